import { QuireError } from '../errors.js'
import type { BrowserPosture } from '../settings/events.js'
import { originOnly } from './url.js'

/**
 * The rules of saved browser state: sessions (`session_save` / `session_load`, BR.SESSION_SAVE.*, BR.SESSION_LOAD.*)
 * and named profiles (`open {profile}`, BR.OPEN.4–6). The adapters store the state and drive Chromium; what may be
 * saved from where, loaded where, and opened how is decided here.
 */

/** What a saved session holds, in numbers only: all an answer, an approval or an event may say of it. */
export interface SessionCounts {
  readonly cookies: number
  readonly localStorage: number
}

/**
 * The origin a session is saved from (BR.SESSION_SAVE.4): the tab's committed page must be an http(s) page, since
 * only a web origin scopes cookies and localStorage. `about:blank`, `data:` and the like have none to save.
 */
export function sessionOriginOf(pageUrl: string): string {
  const origin = originOnly(pageUrl)
  if (!/^https?:\/\//.test(origin)) {
    throw new QuireError('NO_ORIGIN', `the tab shows no web page (${origin}): open an http or https page of the site first`)
  }
  return origin
}

/** A session is loaded only onto a page of the origin it was saved from (BR.SESSION_LOAD.2). */
export function checkSessionLoad(handle: string, savedOrigin: string, pageUrl: string): void {
  const tabOrigin = sessionOriginOf(pageUrl)
  if (tabOrigin !== savedOrigin) {
    throw new QuireError('ORIGIN_MISMATCH', `session "${handle}" was saved from ${savedOrigin}; the tab shows ${tabOrigin}: navigate to ${savedOrigin} first`, {
      savedOrigin,
      tabOrigin,
    })
  }
}

/**
 * A named profile is a persistent cookie store of its own, opened only in the Sandbox posture (BR.OPEN.4): the
 * Shared posture means the person's own profile, and a tab cannot be in two profiles at once.
 */
export function checkProfilePosture(profile: string, posture: BrowserPosture): void {
  if (posture !== 'sandbox') {
    throw new QuireError('PROFILE_NEEDS_SANDBOX', `profile "${profile}" can be opened only in the Sandbox posture; the browser is in the ${posture} posture (Settings: browserPosture)`)
  }
}

/**
 * The assistant never sees a profile's credentials (BR.OPEN.6). A script reads what no other action returns —
 * `document.cookie`, tokens in localStorage — so a tab holding a named profile's logins runs none, approved or not:
 * a tab of the profile, and a tab whose cookie store a session saved from the profile was loaded into.
 */
export function checkScriptInProfile(profile: string | undefined): void {
  if (profile !== undefined) {
    throw new QuireError('PROFILE_TAB', `this tab holds the logins of the browser profile "${profile}": scripts would see its logins, so execute_js is not available on it`)
  }
}

/** Whose saved state (sessions, named profiles) the person's own connections keep: no agent's name can be it. */
export const PERSON_OWNER = '(person)'

/**
 * The owner of a caller's saved sessions and named profiles: its agent (each agent's are its own, so a login saved
 * through one assistant is not another's), or the person for the person's own connections.
 */
export function savedStateOwner(principal: string | null): string {
  return principal ?? PERSON_OWNER
}
