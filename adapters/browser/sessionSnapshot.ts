import type { BrowserContext, Cookie } from 'playwright-core'
import { BrowserError } from './errors.js'
import type { PageSession } from './pageSession.js'
import type { SessionCookie, SessionSnapshot } from './savedSessions.js'

/**
 * A tab's session as Chromium holds it, for `session_save` and `session_load` (BR.SESSION_SAVE.4, BR.SESSION_LOAD.1):
 * the localStorage of the page's committed origin, read and written in the engine's isolated world (the page's own
 * scripts cannot see or patch what it uses), and the cookies of the tab's cookie store that this origin's host gets,
 * of every path, HttpOnly ones included.
 *
 * The page script checks `location.origin` in the same turn that reads or writes the storage: a page that moved to
 * another origin since the caller looked is refused, never read from or written into.
 */

/** Whether a cookie of `domain` (`example.com`, or `.example.com` for a domain cookie) is sent to `host`. */
function domainMatches(domain: string, host: string): boolean {
  if (!domain.startsWith('.')) return domain === host
  const bare = domain.slice(1)
  return host === bare || host.endsWith(domain)
}

function cookiesOf(all: readonly Cookie[], origin: string): SessionCookie[] {
  const { hostname, protocol } = new URL(origin)
  return all
    .filter((cookie) => domainMatches(cookie.domain, hostname) && (!cookie.secure || protocol === 'https:'))
    .map(({ name, value, domain, path, expires, httpOnly, secure, sameSite }) => ({ name, value, domain, path, expires, httpOnly, secure, sameSite }))
}

type StorageAnswer = { readonly moved: string } | { readonly unavailable: string } | { readonly items: [string, string][] } | { readonly written: number }

function answerOrRefusal(answer: StorageAnswer, origin: string): StorageAnswer {
  if ('moved' in answer) throw new BrowserError('ORIGIN_MISMATCH', `the tab moved to ${answer.moved} before its session was reached; it is no longer ${origin}`)
  if ('unavailable' in answer) throw new BrowserError('PAGE_UNREADABLE', `the page's localStorage cannot be used: ${answer.unavailable}`)
  return answer
}

export async function captureSession(context: BrowserContext, session: PageSession, origin: string): Promise<SessionSnapshot> {
  const read = `(() => {
    if (location.origin !== ${JSON.stringify(origin)}) return { moved: location.origin }
    try {
      const items = []
      for (let i = 0; i < localStorage.length; i++) {
        const key = localStorage.key(i)
        if (key !== null) items.push([key, localStorage.getItem(key) ?? ''])
      }
      return { items }
    } catch (error) {
      return { unavailable: String(error && error.message || error) }
    }
  })()`
  const answer = answerOrRefusal(await session.evaluate<StorageAnswer>(read), origin) as { items: [string, string][] }
  const cookies = cookiesOf(await context.cookies(), origin)
  return { origin, cookies, localStorage: answer.items }
}

/**
 * Makes the tab's origin hold exactly the saved session: its localStorage replaced by the saved items, the cookies
 * this origin's host gets replaced by the saved ones. The storage is written first, in the page, where the origin is
 * checked; the cookies only once that succeeded.
 */
export async function restoreSession(context: BrowserContext, session: PageSession, snapshot: SessionSnapshot): Promise<void> {
  const write = `(() => {
    if (location.origin !== ${JSON.stringify(snapshot.origin)}) return { moved: location.origin }
    try {
      const items = ${JSON.stringify(snapshot.localStorage)}
      localStorage.clear()
      for (const [key, value] of items) localStorage.setItem(key, value)
      return { written: items.length }
    } catch (error) {
      return { unavailable: String(error && error.message || error) }
    }
  })()`
  answerOrRefusal(await session.evaluate<StorageAnswer>(write, { once: true }), snapshot.origin)
  for (const cookie of cookiesOf(await context.cookies(), snapshot.origin)) {
    await context.clearCookies({ name: cookie.name, domain: cookie.domain, path: cookie.path })
  }
  if (snapshot.cookies.length > 0) await context.addCookies(snapshot.cookies.map((cookie) => ({ ...cookie })))
}
