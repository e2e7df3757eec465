import { randomBytes } from 'node:crypto'
import type { Context, MiddlewareHandler } from 'hono'
import { getCookie, setCookie } from 'hono/cookie'
import { sameSecret } from '../auth/credentials.js'

/**
 * The console's session cookie for a request: an opaque id, never the token, under a name that carries the port the
 * browser reached this daemon on (`quire_session_4100`). A browser keeps one cookie jar per host whatever the port, so
 * with one name for all, signing in to a second daemon on 127.0.0.1 replaced the first one's cookie and signed that
 * console out. Two servers cannot share a host and a port, so each daemon (or node) reads only its own cookie.
 */
export function sessionCookieName(c: Context): string {
  const port = /:(\d{1,5})$/.exec(c.req.header('host') ?? '')?.[1] ?? 'default'
  return `quire_session_${port}`
}

const opaque = (): string => randomBytes(32).toString('base64url')

/**
 * The person's browser sessions (issue 11, finding 13). The access token must not live in a URL (history,
 * bookmarks, screenshots, a shoulder) nor on stdout (terminal scrollback, logs of a service manager): `quire serve`
 * prints a link with a one-time code instead, and the console's first load exchanges that code — or the port file's
 * token, for a second browser — for a session id in an `HttpOnly; SameSite=Strict` cookie, then redirects to `/`
 * without the query. The page's script never sees any credential; the browser sends the cookie with every
 * same-origin request, WebSocket handshakes included.
 *
 * Sessions and codes live in this process only: a restarted daemon has a new token and none of the old sessions.
 * A code is good once and until used; an unused printed link stays valid while the daemon runs.
 */
export class ConsoleSessions {
  private readonly sessions = new Set<string>()
  private readonly codes = new Set<string>()

  constructor(private readonly accessToken: string) {}

  /** A fresh one-time code for a console link (`/?code=…`). */
  newLinkCode(): string {
    const code = opaque()
    this.codes.add(code)
    return code
  }

  /** A new session id for a valid one-time code (used up now) or the access token; undefined for anything else. */
  exchange(presented: { readonly code?: string; readonly token?: string }): string | undefined {
    const codeValid = presented.code !== undefined && this.codes.delete(presented.code)
    const tokenValid = presented.token !== undefined && sameSecret(presented.token, this.accessToken)
    if (!codeValid && !tokenValid) return undefined
    const session = opaque()
    this.sessions.add(session)
    return session
  }

  /** Whether the request carries a live session cookie. */
  isPerson(c: Context): boolean {
    const session = getCookie(c, sessionCookieName(c))
    return session !== undefined && this.sessions.has(session)
  }

  /**
   * `GET /?code=…` or `/?token=…`: sets the session cookie when the credential is good, and in every case
   * redirects to `/`, so no credential stays in the address bar. Other requests pass on.
   */
  signIn(): MiddlewareHandler {
    return async (c, next) => {
      const code = c.req.query('code')
      const token = c.req.query('token')
      if (code === undefined && token === undefined) return next()
      const session = this.exchange({ code, token })
      if (session !== undefined) setCookie(c, sessionCookieName(c), session, { httpOnly: true, sameSite: 'Strict', path: '/' })
      c.header('cache-control', 'no-store')
      c.header('referrer-policy', 'no-referrer')
      return c.redirect('/', 303)
    }
  }
}

/**
 * A cookie is sent by the browser on its own, so a request authenticated by it must come from the console's page:
 * the Host/Origin guard (guard.ts) already refuses a foreign Origin; this also refuses a change (anything but GET
 * and HEAD) that carries no Origin at all, which a browser always sends with one.
 */
export const cookieRequestFromConsole = (c: Context): boolean =>
  c.req.method === 'GET' || c.req.method === 'HEAD' || c.req.header('origin') !== undefined
