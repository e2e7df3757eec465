/**
 * The person's token stays out of URLs and stdout (issue 11, finding 13). `quire serve` prints a console link with a
 * one-time code, never the token; the first load exchanges the code (or the port file's token) for an `HttpOnly;
 * SameSite=Strict` session cookie and redirects to `/` without a query. The cookie is the console's credential for
 * `/console/api` and `/collab`, and the Host/Origin guard still refuses it from a foreign origin.
 */
import { rm } from 'node:fs/promises'
import WebSocket from 'ws'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { folder, ok } from '../support/conformance.js'
import { launchDaemon, type Daemon } from '../support/mcpHarness.js'
import { printedUpToConsoleLine } from './serveOutput.js'

/**
 * The session cookie from a Set-Cookie header, `quire_session_PORT=…` and its attributes: named for the port the
 * browser reached the daemon on, since a browser keeps one cookie jar per host whatever the port.
 */
const sessionCookie = (response: Response, port: number): string | undefined =>
  response.headers.getSetCookie().find((cookie) => cookie.startsWith(`quire_session_${port}=`))

describe('the console session cookie', () => {
  let workspace: string
  let daemon: Daemon
  let stdout: string
  let cookie: string
  let docId: string

  beforeAll(async () => {
    workspace = await folder('security-console', { 'a.md': 'alpha\n' })
    daemon = await launchDaemon({ workspaces: [workspace] })
    stdout = await printedUpToConsoleLine(daemon.process.stdout!)
    const session = await daemon.connect()
    ok(await session.call('workspace', { action: 'open', filePath: `${workspace}/a.md` }))
    await session.close()
  })
  afterAll(async () => {
    await daemon?.stop()
    await rm(workspace, { recursive: true, force: true })
  })

  it('quire serve prints a console link with a one-time code, and the token nowhere', () => {
    expect(stdout).toMatch(/console: http:\/\/127\.0\.0\.1:\d+\/\?code=[A-Za-z0-9_-]{20,}\n/)
    expect(stdout).not.toContain(daemon.token)
  })

  it('the code is exchanged once for an HttpOnly SameSite=Strict cookie and a redirect to / without the query', async () => {
    const link = /console: (\S+)/.exec(stdout)![1]!
    const first = await fetch(link, { redirect: 'manual' })
    expect(first.status).toBe(303)
    expect(first.headers.get('location')).toBe('/')
    const set = sessionCookie(first, daemon.port)
    expect(set).toBeDefined()
    expect(set).toMatch(/; HttpOnly/i)
    expect(set).toMatch(/; SameSite=Strict/i)
    expect(set).toMatch(/; Path=\//)
    expect(set).not.toContain(daemon.token)
    cookie = set!.split(';')[0]!
    // Used up: the same link signs nobody in again (and still drops the code from the address bar).
    const again = await fetch(link, { redirect: 'manual' })
    expect(again.status).toBe(303)
    expect(sessionCookie(again, daemon.port)).toBeUndefined()
    // The port file's token works for a first load too (a second browser), and is never echoed back.
    const byToken = await fetch(`${daemon.url}/?token=${daemon.token}`, { redirect: 'manual' })
    expect(byToken.headers.get('location')).toBe('/')
    expect(sessionCookie(byToken, daemon.port)).toBeDefined()
  })

  it('the cookie authenticates the console API; a wrong cookie does not', async () => {
    const state = await fetch(`${daemon.url}/console/api/state`, { headers: { cookie } })
    expect(state.status).toBe(200)
    const body = (await state.json()) as { windows: Array<{ tabs: Array<{ docId: string }> }> }
    docId = body.windows.flatMap((window) => window.tabs)[0]!.docId
    expect((await fetch(`${daemon.url}/console/api/state`, { headers: { cookie: `quire_session_${daemon.port}=forged` } })).status).toBe(401)
  })

  it('with the cookie, a foreign Origin is refused (403); a change without an Origin is refused too', async () => {
    const foreign = await fetch(`${daemon.url}/console/api/state`, { headers: { cookie, origin: 'http://127.0.0.1:1' } })
    expect(foreign.status).toBe(403)
    const evil = await fetch(`${daemon.url}/console/api/panels/settings`, {
      method: 'POST',
      headers: { cookie, origin: 'http://evil.example', 'content-type': 'application/json' },
      body: JSON.stringify({ key: 'autoApproveSaves', value: true }),
    })
    expect(evil.status).toBe(403)
    const originless = await fetch(`${daemon.url}/console/api/panels/settings`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ key: 'autoApproveSaves', value: true }),
    })
    expect(originless.status).toBe(403)
    const own = await fetch(`${daemon.url}/console/api/panels/settings`, {
      method: 'POST',
      headers: { cookie, origin: daemon.url, 'content-type': 'application/json' },
      body: JSON.stringify({ key: 'autoApproveSaves', value: false }),
    })
    expect(own.status).toBe(200)
  })

  /**
   * How a WebSocket to /collab/<docId> with these headers goes: `synced` (the server sent its first sync message: the
   * peer was admitted), `closed <code>` (admitted to the handshake, then refused), or the HTTP status that refused it.
   */
  const collab = (headers: Record<string, string>): Promise<string> =>
    new Promise((resolve) => {
      const socket = new WebSocket(`${daemon.url.replace('http', 'ws')}/collab/${docId}`, { headers })
      socket.on('message', () => {
        resolve('synced')
        socket.close()
      })
      socket.on('unexpected-response', (_request, response) => resolve(String(response.statusCode)))
      socket.on('close', (code) => resolve(`closed ${code}`))
      socket.on('error', () => undefined)
    })

  it('the cookie opens the person\'s /collab WebSocket from the console\'s origin, and never from a foreign one', async () => {
    expect(await collab({ cookie, origin: daemon.url })).toBe('synced')
    expect(await collab({ cookie, origin: 'http://127.0.0.1:1' })).toBe('403')
    expect(await collab({ cookie: `quire_session_${daemon.port}=forged`, origin: daemon.url })).toMatch(/^closed 4401$/)
  })

  it('a second daemon on the same host has a cookie of its own: each reads only its own, and neither signs the other out', async () => {
    const other = await launchDaemon()
    try {
      const signIn = await fetch(`${other.url}/?token=${other.token}`, { redirect: 'manual' })
      const otherCookie = sessionCookie(signIn, other.port)!.split(';')[0]!
      // A browser sends every cookie of 127.0.0.1 to both: each daemon takes its own and ignores the other's.
      const both = `${cookie}; ${otherCookie}`
      expect((await fetch(`${daemon.url}/console/api/state`, { headers: { cookie: both } })).status).toBe(200)
      expect((await fetch(`${other.url}/console/api/state`, { headers: { cookie: both } })).status).toBe(200)
      // One daemon's session is nothing to the other, under either name.
      expect((await fetch(`${other.url}/console/api/state`, { headers: { cookie } })).status).toBe(401)
      const renamed = cookie.replace(`quire_session_${daemon.port}=`, `quire_session_${other.port}=`)
      expect((await fetch(`${other.url}/console/api/state`, { headers: { cookie: renamed } })).status).toBe(401)
      expect((await fetch(`${daemon.url}/console/api/state`, { headers: { cookie: otherCookie } })).status).toBe(401)
    } finally {
      await other.stop()
    }
  })
})
