import { readFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { REPO_ROOT } from '../../support/mcpHarness.js'

/**
 * The fixture web site (specs/fixtures/site) on loopback, for the browser engine's tests. Besides the static pages:
 * `/many?n=N` (N buttons, for the caps), `/cookie/set?v=V` and `/cookie/show` (a cookie written and shown back, to tell
 * cookie stores apart), `/session/login?sid=S&tok=T&pref=P` and `/session/whoami` (a sign-in that sets an HttpOnly cookie,
 * a page cookie and a localStorage token; a page saying whether this browser is signed in, with a digest of its token),
 * `/slow.html?hold=NAME` (a page that loads once released), `/huge` (an article past the extract cap), static pages in folders and with `?status=N` (served with that HTTP status), and `/hold/NAME`, a response held until the test calls `release(NAME)`, so
 * that a test decides exactly when a page finishes loading or changes — no timing guesses.
 *
 * The hostile pages (`/hostile/…?to=URL`) each try to take the tab, or a window or frame of it, to `to`: a server
 * redirect (`/hostile/redirect?status=302|307`), a meta refresh, a script's `location`, `window.open` (at load and
 * from an "Open" button), a form POST (a "Send" button) and an iframe. `/untitled` is a page without a title. Every
 * request the server receives is kept in `requests`, so a test can tell that a request never left the browser.
 */
export interface FixtureSite {
  /** http://127.0.0.1:PORT */
  readonly origin: string
  /** The same server under another host name, so another origin: http://localhost:PORT */
  readonly otherOrigin: string
  url(path: string): string
  /** Every request received so far, in order: its method, Host header and path (no query). */
  readonly requests: readonly FixtureRequest[]
  release(name: string): void
  close(): Promise<void>
}

export interface FixtureRequest {
  readonly method: string
  readonly host: string
  readonly path: string
}

const SITE_DIR = join(REPO_ROOT, 'specs', 'fixtures', 'site')

const escapeHtml = (text: string): string => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
/** A string as a script literal that cannot end the script element it sits in. */
const scriptString = (text: string): string => JSON.stringify(text).replace(/</g, '\\u003c')

/** The hostile pages: each takes the tab (or a window or frame of it) to `to` its own way. */
function hostilePage(kind: string, to: string): string | undefined {
  const target = escapeHtml(to)
  switch (kind) {
    case 'meta':
      return `<!doctype html><title>Meta refresh</title><meta http-equiv="refresh" content="0;url=${target}"><h1>Refreshing</h1>`
    case 'script':
      return `<!doctype html><title>Script location</title><h1>Moving</h1><script>location.href = ${scriptString(to)}</script>`
    case 'open':
      return `<!doctype html><title>Opener</title><h1>Opener</h1><button onclick="window.open(${escapeHtml(scriptString(to))})">Open</button>` +
        `<script>window.open(${scriptString(to)})</script>`
    case 'form':
      return `<!doctype html><title>Form post</title><form method="post" action="${target}"><input name="q" value="1" aria-label="Query"><button>Send</button></form>`
    case 'frame':
      return `<!doctype html><title>Framed</title><h1>Framed</h1><iframe title="inner" src="${target}"></iframe>`
    default:
      return undefined
  }
}

export async function serveFixtureSite(): Promise<FixtureSite> {
  // What each held name finishes once released.
  const held = new Map<string, (() => void)[]>()
  const holdOn = (name: string, finish: () => void): void => {
    if (released.has(name)) finish()
    else held.set(name, [...(held.get(name) ?? []), finish])
  }
  const released = new Set<string>()
  // The session ids `/session/login` handed out: `/session/whoami` knows a signed-in browser by them.
  const issuedSessions = new Set<string>()
  const requests: FixtureRequest[] = []
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://fixture')
    requests.push({ method: request.method ?? 'GET', host: request.headers.host ?? '', path: url.pathname })
    const hostile = /^\/hostile\/(\w+)$/.exec(url.pathname)
    if (hostile) {
      const to = url.searchParams.get('to') ?? '/'
      if (hostile[1] === 'redirect') {
        const status = url.searchParams.get('status') === '307' ? 307 : 302
        return void response.writeHead(status, { location: to }).end()
      }
      const page = hostilePage(hostile[1]!, to)
      if (page === undefined) return void response.writeHead(404).end('not found')
      return void response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page)
    }
    if (url.pathname === '/untitled') {
      return void response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><h1>No title here</h1>')
    }
    const hold = /^\/hold\/([\w-]+)$/.exec(url.pathname)
    if (hold) {
      return holdOn(hold[1]!, () => response.end('released'))
    }
    if (url.pathname === '/many') {
      const n = Number(url.searchParams.get('n') ?? '10')
      const buttons = Array.from({ length: n }, (_, i) => `<button class="b">Button ${i}</button>`).join('')
      response.setHeader('content-type', 'text/html; charset=utf-8')
      return void response.end(`<!doctype html><title>Many</title><body>${buttons}</body>`)
    }
    if (url.pathname === '/huge') {
      // An article whose HTML is longer than the extract capture cap (2,000,000 characters).
      const paragraph = `<p>${'The sea keeps its own time, and the harbour keeps the sea. '.repeat(16)}</p>`
      const body = Array.from({ length: 2_400 }, (_, i) => (i === 0 ? '<p>FIRST PARAGRAPH of a very long article.</p>' : paragraph)).join('')
      response.setHeader('content-type', 'text/html; charset=utf-8')
      return void response.end(`<!doctype html><title>Huge</title><body><article><h1>Huge</h1>${body}<p>LAST PARAGRAPH</p></article></body>`)
    }
    if (url.pathname === '/cookie/set') {
      response.setHeader('set-cookie', `who=${encodeURIComponent(url.searchParams.get('v') ?? '')}; Path=/`)
      response.setHeader('content-type', 'text/html; charset=utf-8')
      return void response.end('<!doctype html><title>Cookie set</title><h1>Cookie set</h1>')
    }
    if (url.pathname === '/cookie/show') {
      const who = /(?:^|;\s*)who=([^;]*)/.exec(request.headers.cookie ?? '')?.[1]
      response.setHeader('content-type', 'text/html; charset=utf-8')
      return void response.end(`<!doctype html><title>Cookie</title><h1>cookie: ${who === undefined ? 'none' : decodeURIComponent(who)}</h1>`)
    }
    if (url.pathname === '/session/login') {
      // A sign-in that leaves what a real one does: an HttpOnly session cookie (only the server can set it), a cookie
      // of the page's own, and a token in localStorage. The values come in the query, which no answer or log keeps.
      const sid = url.searchParams.get('sid') ?? ''
      issuedSessions.add(sid)
      response.setHeader('set-cookie', [`sid=${encodeURIComponent(sid)}; HttpOnly; Path=/; Max-Age=3600`, 'seen=1; Path=/session'])
      response.setHeader('content-type', 'text/html; charset=utf-8')
      return void response.end(`<!doctype html><title>Signed in</title><h1>Signed in</h1><script>
        const query = new URLSearchParams(location.search)
        localStorage.setItem('token', query.get('tok') ?? '')
        document.cookie = 'pref=' + encodeURIComponent(query.get('pref') ?? '') + '; Path=/; Max-Age=3600'
        document.title = 'Signed in, stored'
      </script>`)
    }
    if (url.pathname === '/session/whoami') {
      // Whether this browser holds a session the server issued, and a digest of the page's token: never a value.
      const sid = /(?:^|;\s*)sid=([^;]*)/.exec(request.headers.cookie ?? '')?.[1]
      const signedIn = sid !== undefined && issuedSessions.has(decodeURIComponent(sid))
      response.setHeader('content-type', 'text/html; charset=utf-8')
      return void response.end(`<!doctype html><title>Who am I</title><h1>${signedIn ? 'signed in' : 'signed out'}</h1><p id="token">token: reading</p><script>
        const token = localStorage.getItem('token')
        const shown = document.getElementById('token')
        if (token === null) shown.textContent = 'token: none'
        else crypto.subtle.digest('SHA-256', new TextEncoder().encode(token)).then((digest) => {
          shown.textContent = 'token: ' + [...new Uint8Array(digest)].slice(0, 8).map((byte) => byte.toString(16).padStart(2, '0')).join('')
        })
      </script>`)
    }
    if (url.pathname === '/slow.html') {
      // The page itself loads only once the test releases it.
      return holdOn(url.searchParams.get('hold') ?? 'slow', () => {
        response.setHeader('content-type', 'text/html; charset=utf-8')
        response.end('<!doctype html><title>Slow</title><h1>Finally</h1>')
      })
    }
    const file = url.pathname === '/' ? 'index.html' : url.pathname.slice(1)
    // Pages may sit in folders (gates/consent/…); segments of word characters only, so nothing climbs out of the site.
    if (!/^(?:[\w-]+\/)*[\w-]+\.html$/.test(file)) return void response.writeHead(404).end('not found')
    // `?status=429` serves the page with that HTTP status, as an error page of a real site would be.
    const status = /^[2-5]\d\d$/.test(url.searchParams.get('status') ?? '') ? Number(url.searchParams.get('status')) : 200
    readFile(join(SITE_DIR, file)).then(
      (body) => response.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(body),
      () => response.writeHead(404).end('not found'),
    )
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const origin = `http://127.0.0.1:${port}`
  return {
    origin,
    otherOrigin: `http://localhost:${port}`,
    url: (path) => `${origin}${path}`,
    requests,
    release(name) {
      released.add(name)
      for (const finish of held.get(name) ?? []) finish()
      held.delete(name)
    },
    async close() {
      for (const finishes of held.values()) for (const finish of finishes) finish()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
