import { isOwnAddress, type OwnServer } from './ownAddress.js'
import type { BrowserAccessRequest } from './requests.js'
import { originOnly } from './url.js'

/**
 * Where an assistant's tab may go. Every document request of an AI tab — the URL it was asked to load, each redirect
 * hop, a script's `location`, a form post, a meta refresh, a frame — is judged here before it leaves the browser:
 *
 * - the daemon's own addresses never load (ownAddress.ts), whatever the posture or the person's approvals;
 * - a held tab loads only the origins the person approved for it: a Shared-posture tab (the person's own profile,
 *   BR.GEN.9, APPR.8) and a tab of a named profile (its saved logins, BR.OPEN.5). Any other hop stops, and the
 *   assistant's navigation that met it asks the person for that origin ({@link holdRequest});
 * - a Sandbox tab's cookie store is the assistant's own: it goes anywhere else.
 *
 * Windows an assistant's page opens never load at all (BR.ACT.15: they are reported, never shown).
 */

/** What holds a tab to its approved origins: the person's profile, or a named profile of an agent. */
export type TabHold =
  | { readonly kind: 'shared' }
  | {
      readonly kind: 'profile'
      readonly profile: string
      /** The agent whose profile it is: the caller's own, or one the person shared with it. */
      readonly owner: string
    }

export type HopVerdict =
  | { readonly allow: true }
  | {
      readonly allow: false
      /** `quire`: the daemon's own address; `not-approved`: an origin the person has not approved for the held tab; `scheme`: not a web page. */
      readonly reason: 'quire' | 'not-approved' | 'scheme'
      readonly origin: string
    }

export interface HopContext {
  readonly ownServers: readonly OwnServer[]
  /** Undefined for a tab that goes anywhere (Sandbox posture, no profile). */
  readonly hold: TabHold | undefined
  readonly approvedOrigins: ReadonlySet<string>
}

/** Schemes a document may have that reach no server (a page's own data, its blob, a blank page). */
const LOCAL_SCHEMES = new Set(['data:', 'blob:', 'about:'])

export function judgeHop(raw: string, context: HopContext): HopVerdict {
  const origin = originOnly(raw)
  const scheme = URL.canParse(raw) ? new URL(raw).protocol : ''
  if (scheme !== 'http:' && scheme !== 'https:') return LOCAL_SCHEMES.has(scheme) ? { allow: true } : { allow: false, reason: 'scheme', origin }
  if (isOwnAddress(raw, context.ownServers)) return { allow: false, reason: 'quire', origin }
  if (context.hold !== undefined && !context.approvedOrigins.has(origin)) return { allow: false, reason: 'not-approved', origin }
  return { allow: true }
}

/**
 * What to ask the person before a held tab loads `origin`: a destination approval for the person's profile, a
 * profile approval naming the tab and the profile for a named one (per use: APPR.5).
 */
export function holdRequest(hold: TabHold, tabId: string, origin: string, caller: string): BrowserAccessRequest {
  if (hold.kind === 'shared') return { kind: 'destination', origin, tabId }
  return { kind: 'profile', origin, profile: hold.profile, tabId, ...(hold.owner !== caller ? { owner: hold.owner } : {}) }
}

/**
 * What to ask the person before an assistant's own navigation of a tab to `target`: nothing for a tab that is not
 * held, a URL the engine refuses anyway (not http or https), or a page of the origin the tab already shows (BR.GEN.9:
 * only a new origin is asked for). `currentUrl` is null for a tab not loaded yet.
 */
export function askBeforeLoading(hold: TabHold | undefined, tabId: string, currentUrl: string | null, target: string, caller: string): BrowserAccessRequest | undefined {
  if (hold === undefined || !URL.canParse(target) || !/^https?:$/.test(new URL(target).protocol)) return undefined
  const origin = originOnly(target)
  const currentOrigin = currentUrl === null ? undefined : originOnly(currentUrl)
  if (currentOrigin === origin) return undefined
  const request = holdRequest(hold, tabId, origin, caller)
  return request.kind === 'destination' && currentOrigin !== undefined ? { ...request, currentOrigin } : request
}
