import { randomBytes } from 'node:crypto'
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { runCli } from '../support/cli.js'
import { docIdOfTab, until } from '../support/collabPeers.js'
import { editorPeer, type EditorPeer } from '../support/editorPeer.js'
import { envelope, openTab, readDoc, real, within } from '../support/faultSession.js'
import { inheritedEnv, launchDaemon, tempDir, type Daemon, type Session } from '../support/mcpHarness.js'
import { usePostgresDatabase } from '../support/postgresServer.js'
import { startTestRedis, type TestRedis } from '../support/redisServer.js'

/**
 * Two nodes with the same QUIRE_NODE_ID (issue 25, item 6). Each drops the other's presence as its own echo, so the
 * person composing with an input method on one is unseen by the other, and an assistant's write through the other
 * lands mid-composition instead of answering BUSY. Real `quire serve` nodes on one PostgreSQL log and one
 * redis-server: a node whose id another running node holds refuses to start (one line naming the id and the fix),
 * and a node that finds out only once Redis is back (it started while Redis was down) stops taking requests and
 * says why in /readyz, so no write through it lands while the person composes.
 */
const database = usePostgresDatabase()
const open: { daemons: Daemon[]; sessions: Session[]; editors: EditorPeer[]; redis: TestRedis[]; roots: string[] } = {
  daemons: [], sessions: [], editors: [], redis: [], roots: [],
}

afterEach(async () => {
  for (const editor of open.editors.splice(0)) editor.close()
  await Promise.allSettled(open.sessions.splice(0).map((session) => session.close()))
  await Promise.allSettled(open.daemons.splice(0).map((daemon) => daemon.stop()))
  for (const redis of open.redis.splice(0)) await redis.stop()
  for (const root of open.roots.splice(0)) await rm(root, { recursive: true, force: true })
})

interface Readiness {
  readonly status: number
  readonly body: Record<string, unknown>
}

async function readyz(daemon: Daemon): Promise<Readiness> {
  const response = await fetch(`${daemon.url}/readyz`)
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

/** A shared log, a redis-server, a workspace with one file, and the environment of a node with a given id. */
async function cluster() {
  const redis = await startTestRedis()
  open.redis.push(redis)
  const store = `${database()}${database().includes('?') ? '&' : '?'}schema=clash_${randomBytes(6).toString('hex')}`
  const root = await real(await tempDir('quire-clash-'))
  open.roots.push(root)
  const folder = join(root, 'workspace')
  await mkdir(folder)
  const file = join(folder, 'notes.md')
  await writeFile(file, 'hello world\n')
  const env = (id: string) => ({ QUIRE_STORE: store, QUIRE_REDIS: redis.url, QUIRE_NODE_ID: id })
  return { redis, root, folder, file, env }
}

async function serve(env: Record<string, string>, workspaces: string[] = []): Promise<Daemon> {
  const daemon = await launchDaemon({ env, workspaces })
  open.daemons.push(daemon)
  return daemon
}

async function connect(daemon: Daemon): Promise<Session> {
  const session = await daemon.connect()
  open.sessions.push(session)
  return session
}

/** Node A serving the workspace, with the person's editor composing on its file's tab. */
async function personComposingOn(a: Daemon, file: string) {
  await until("node A's presence to connect", async () => (await readyz(a)).body['presence'] === 'connected')
  const onA = await connect(a)
  const tabId = await openTab(onA, file)
  const docId = await docIdOfTab(a.port, a.token, tabId)
  const editor = editorPeer(a.url, a.token, docId, { tabId })
  open.editors.push(editor)
  await within(10_000, 'the editor to sync', editor.synced())
  editor.present({ composing: true })
  // On its own node the composition holds writes back (the probe writes the text the document has: a probe that
  // lands before the composition is seen changes nothing).
  await until('node A to see the composition', async () => {
    const result = await onA.call('document', { action: 'write', tabId, content: 'hello world\n', save: false })
    return (result.structured as { error?: string } | undefined)?.error === 'BUSY'
  })
  return { onA, tabId, before: await readDoc(onA, tabId) }
}

describe('issue 25 item 6: two nodes with the same QUIRE_NODE_ID', () => {
  it('a node started with the id a running node holds refuses to serve: exit 1, one line naming the id and the fix; nothing lands while the person composes', async () => {
    const { root, file, folder, env } = await cluster()
    const a = await serve(env('twin'), [folder])
    const { onA, tabId, before } = await personComposingOn(a, file)

    const homeB = join(root, 'node-b')
    const b = await runCli(['--home', homeB, 'serve'], { env: { ...inheritedEnv(), ...env('twin') }, timeoutMs: 45_000 })
    expect(b.timedOut, `node B served with the clashing id:\n${b.stdout}\n${b.stderr}`).toBe(false)
    expect(b.code).toBe(1)
    const lines = b.stderr.trimEnd().split('\n')
    expect(lines, b.stderr).toHaveLength(1)
    expect(lines[0]).toMatch(/"twin"/)
    expect(lines[0]).toMatch(/QUIRE_NODE_ID/)
    expect(lines[0]).not.toMatch(/unexpected error|\bat .*:\d+:\d+/)
    // It never listened: no port file for a client to find.
    expect(await readdir(homeB).catch(() => [])).not.toContain('port')

    // Node A serves on, unaffected: ready, the composition still holds writes back, the document as it was.
    expect(await readyz(a)).toMatchObject({ status: 200, body: { ready: true, presence: 'connected' } })
    envelope(await onA.call('document', { action: 'write', tabId, content: 'must not land\n', save: false }), 'BUSY')
    expect(await readDoc(onA, tabId)).toEqual(before)
  })

  it('a node that learns of the clash once Redis is back stops taking requests and says why in /readyz; no write through it lands while the person composes', async () => {
    const { redis, file, folder, env } = await cluster()
    const a = await serve(env('twin'), [folder])
    const { onA, tabId, before } = await personComposingOn(a, file)

    // Redis goes away; node B starts meanwhile, with A's id: it cannot know, and serves with presence of its own.
    await redis.kill()
    await until("node A's presence to degrade", async () => (await readyz(a)).body['presence'] === 'degraded')
    const b = await serve(env('twin'))
    const onB = await connect(b)
    await until('node B to know the tab', async () => !(await onB.call('document', { action: 'read', tabId })).isError)

    await redis.restart()
    await until("node A's presence to connect again", async () => (await readyz(a)).body['presence'] === 'connected', 20_000)
    await until('node B to find the clash', async () => (await readyz(b)).status === 503, 30_000)
    const unready = await readyz(b)
    expect(unready.body).toMatchObject({ ready: false, status: 'not-ready', presence: 'clash' })
    expect(unready.body['reason']).toMatch(/QUIRE_NODE_ID/)
    // The open endpoint names no node, path or address.
    expect(JSON.stringify(unready.body)).not.toMatch(/twin|redis\.sock/)

    // The assistant's write through B is refused outright, and nothing changed.
    const refused = await onB.call('document', { action: 'write', tabId, content: 'must not land\n', save: false }).then(
      (result) => ({ landed: result.text }),
      (error: unknown) => error,
    )
    expect(refused).toMatchObject({ code: 503 })
    expect(String(refused)).toMatch(/NODE_ID_CLASH/)
    expect(await readDoc(onA, tabId)).toEqual(before)
    envelope(await onA.call('document', { action: 'write', tabId, content: 'must not land\n', save: false }), 'BUSY')
    expect(await readyz(a)).toMatchObject({ status: 200, body: { ready: true, presence: 'connected' } })
  })
})
