import { classifyGate, TEXT_HEAD_LIMIT, type Gate, type GateSignals } from './gates.js'
import type { PageSession } from './pageSession.js'

/**
 * Reading the gate signals of a landed page (gates.ts classifies them). The reader is source text evaluated in the
 * engine's isolated world (PageSession.evaluate), like agentLib.ts: it shares the DOM, not the page's globals, and
 * it only reads — no DOM writes, no clicks, no focus — so looking for a gate changes nothing on the page (BR.GATE.4).
 *
 * "Rendered" follows what a person sees, not what the markup says: a password input that is display:none,
 * transparent, pushed off the page or a few pixels large (a honeypot, a hidden login form waiting behind a link) is
 * not a rendered password field, and a challenge frame counts only at interactive size — an invisible reCAPTCHA, its
 * corner badge or a challenge popup not yet shown is no challenge a person is being asked to pass.
 */

/**
 * The smallest box a challenge a person can act on is drawn in. The vendors' widgets are 300×65 (Turnstile),
 * 304×78 (reCAPTCHA) and 303×78 (hCaptcha) in their normal size and about 150×140 in their compact one.
 */
export const WIDGET_MIN_WIDTH = 120
export const WIDGET_MIN_HEIGHT = 50

/** How long the reading may take. A page whose main thread is stuck gives no signals rather than a load that never ends. */
export const GATE_READ_LIMIT_MS = 1_000

export const GATE_SIGNALS_SOURCE = String.raw`((textHeadLimit, widgetMinWidth, widgetMinHeight) => {
  const normalize = (text) => (text || '').replace(/\s+/g, ' ').trim()
  const text = document.body ? normalize(document.body.innerText) : ''
  // checkVisibility walks display, visibility, opacity and content-visibility up the tree (both option spellings).
  const visible = (el) => el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true, opacityProperty: true, visibilityProperty: true })
  // On the page at all: a box pushed left of or above the document (left: -9999px) is there for scripts, not people.
  const onPage = (rect) => rect.right + scrollX > 0 && rect.bottom + scrollY > 0
  const passwordField = Array.from(document.querySelectorAll('input[type=password]')).some((input) => {
    const rect = input.getBoundingClientRect()
    return visible(input) && onPage(rect) && rect.width >= 20 && rect.height >= 10
  })
  const PROVIDER = /^https:\/\/(?:(?:www\.)?google\.com\/recaptcha\/|(?:www\.)?recaptcha\.net\/recaptcha\/|(?:[\w-]+\.)*hcaptcha\.com\/|challenges\.cloudflare\.com\/)/i
  const CONTAINER = '.g-recaptcha, .h-captcha, .cf-turnstile'
  const challengeWidget = Array.from(document.querySelectorAll('iframe')).some((frame) => {
    const src = frame.src || ''
    if (!PROVIDER.test(src) && !frame.closest(CONTAINER)) return false
    // reCAPTCHA v3 and invisible v2 draw only a corner badge; it asks nothing of anyone.
    if (/[?&]size=invisible\b/.test(src) || frame.closest('.grecaptcha-badge')) return false
    const rect = frame.getBoundingClientRect()
    return visible(frame) && onPage(rect) && rect.width >= widgetMinWidth && rect.height >= widgetMinHeight
  })
  const navigation = performance.getEntriesByType('navigation')[0]
  const status = navigation && typeof navigation.responseStatus === 'number' && navigation.responseStatus > 0 ? navigation.responseStatus : null
  return {
    url: location.protocol + '//' + location.host + location.pathname,
    title: document.title,
    textHead: text.slice(0, textHeadLimit),
    textLength: text.length,
    challengeWidget,
    passwordField,
    status,
  }
})`

/** The expression PageSession.evaluate runs. */
export function gateSignalsExpression(): string {
  return `${GATE_SIGNALS_SOURCE}(${TEXT_HEAD_LIMIT}, ${WIDGET_MIN_WIDTH}, ${WIDGET_MIN_HEIGHT})`
}

function isSignals(value: unknown): value is GateSignals {
  if (typeof value !== 'object' || value === null) return false
  const v = value as Record<string, unknown>
  return typeof v.url === 'string' && typeof v.title === 'string' && typeof v.textHead === 'string' &&
    typeof v.textLength === 'number' && typeof v.challengeWidget === 'boolean' && typeof v.passwordField === 'boolean' &&
    (v.status === null || typeof v.status === 'number')
}

/** The landed page's gate signals, or null when they cannot be read (the document went away, the page hangs, …). */
export async function readGateSignals(session: PageSession): Promise<GateSignals | null> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), GATE_READ_LIMIT_MS)
    timer.unref()
  })
  try {
    const read = session.evaluate<unknown>(gateSignalsExpression()).then((value) => (isSignals(value) ? value : null), () => null)
    return await Promise.race([read, timeout])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * The gate of the page a navigation just loaded, or null. Never throws: detection is advisory and a load that
 * succeeded stays a success whatever happens here (BR.GATE.4).
 */
export async function detectGate(session: PageSession): Promise<Gate | null> {
  try {
    const signals = await readGateSignals(session)
    return signals === null ? null : classifyGate(signals)
  } catch {
    return null
  }
}
