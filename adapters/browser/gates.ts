/**
 * Gate detection (BR.GATE.1–5): whether the page a navigation landed on reads as a login wall, a consent
 * interstitial, a human-verification challenge or a rate limit, so that an assistant stops and involves the person
 * instead of reading an empty wall or retrying into it.
 *
 * Precision comes first. A gate an assistant is told about makes it stop and ask the person; a gate it is wrongly
 * told about stops work that could have gone on, and a page about CAPTCHAs, a shop selling something for $429 or a
 * footer saying "Protected by Cloudflare" are everyday pages (BR.GATE.3). So a page is a gate only when
 *
 * - it renders a challenge widget at interactive size (the one signal strong enough alone, BR.GATE.2), on a sparse
 *   page or under a challenge title — an article with a reCAPTCHA under its comment form, or one about CAPTCHAs with a
 *   live demo, is still an article; or
 * - at least two INDEPENDENT signals of the same kind agree on a SPARSE page (BR.GATE.2).
 *
 * Signals are independent when they come from different sources: the document title, the visible text, the URL, the
 * page's structure (a rendered password field) and the HTTP status. Many phrases found in one source are one signal:
 * an article quoting "verify you are human" and "I'm not a robot" is still only text. Sparse means little visible
 * text: walls, interstitials and challenges say one thing, while an ordinary page that merely mentions a sign-in or a
 * cookie says much more.
 *
 * The result is advisory only (BR.GATE.4): it is attached to a load that already succeeded and changes nothing about
 * what the assistant may do. Every hint sends the assistant to the person (BR.GATE.5); none suggests getting around
 * the gate.
 */

export type GateKind = 'login-required' | 'consent' | 'challenge' | 'rate-limited'

export interface Gate {
  readonly kind: GateKind
  readonly hint: string
}

/** What the landing page shows, read in its isolated world (gateSignals.ts). */
export interface GateSignals {
  /** scheme://host[:port]/path: already redacted, the classifier needs no more than host and path. */
  readonly url: string
  readonly title: string
  /** The first TEXT_HEAD_LIMIT characters of the visible text, whitespace collapsed. */
  readonly textHead: string
  /** The length of the whole visible text, whitespace collapsed. */
  readonly textLength: number
  /** A reCAPTCHA, hCaptcha or Turnstile frame rendered at interactive size (not an invisible or badge-only one). */
  readonly challengeWidget: boolean
  /** A password input a person can see (not hidden, transparent, off-page or a few pixels large). */
  readonly passwordField: boolean
  /** The HTTP status of the document's response, or null when the page cannot tell. */
  readonly status: number | null
}

/** How much visible text the signals carry. Every phrase a gate is recognised by sits near the top of its page. */
export const TEXT_HEAD_LIMIT = 4_000

/**
 * At most this much visible text makes a page sparse. Login walls, challenge and rate-limit pages say one thing and
 * stop, in a few hundred characters; a consent interstitial listing what its cookies are for runs longer, to about
 * 1,500, hence the margin. Articles and feeds are far over it; a short shop page may not be, which is why sparseness
 * is never a signal itself, only the ground two signals must stand on.
 */
export const SPARSE_TEXT_LIMIT = 2_000

/** Where a signal was seen. Two signals count as two only when their sources differ. */
export type SignalSource = 'title' | 'text' | 'url' | 'page' | 'status'

export const GATE_HINTS: Readonly<Record<GateKind, string>> = {
  'login-required':
    'This page wants a sign-in. Ask the person to sign in themselves in the console\'s Browser view, then read the page again; do not type credentials for them.',
  consent:
    'This page asks for a consent choice (cookies or terms). Ask the person to make that choice in the console\'s Browser view; it is theirs to make.',
  challenge:
    'This page asks to verify that a human is there. Ask the person to complete the check in the console\'s Browser view, then wait on the tab or read it again.',
  'rate-limited':
    'The site says it has had too many requests. Tell the person and let them decide when to try again; do not retry on your own.',
}

interface Signal {
  readonly source: SignalSource
  readonly seen: (page: PageView) => boolean
}

/** The signals with the URL taken apart once. */
interface PageView {
  readonly signals: GateSignals
  readonly host: string
  readonly path: string
}

// Challenge titles are matched at the title's start: Cloudflare's "Just a moment..." and "Attention Required!" and the
// other vendors' pages lead with the phrase, while an article about them ("Why sites ask 'Are you a robot?'") does not.
const CHALLENGE_TITLE = /^\s*(?:just a moment|attention required|verify(?:ing)? (?:that )?you are (?:a )?human|are you a robot|checking your browser|security check|human verification|one more step)/i
const CHALLENGE_TEXT = /verify(?:ing)? (?:that )?you are (?:a )?human|complete the (?:security )?check|i'?m not a robot|press (?:&|and) hold|unusual traffic from your (?:computer )?network|automated queries|checking (?:if the site connection is secure|your browser before accessing)|enable javascript and cookies to continue/i
// Cloudflare and the like answer a challenge with 403 or 503, which alone are everyday errors.
const CHALLENGE_STATUS = new Set([403, 503])

// A title that IS a sign-in ("Sign in – Google Accounts", "Login | Acme", "登录"), not one that mentions signing in.
const LOGIN_TITLE = /^\s*(?:sign[ -]?in|log[ -]?in|login|anmelden|connexion|iniciar sesi[oó]n)\b|^\s*(?:登录|登入|ログイン|로그인)|[|·•–—-]\s*(?:sign[ -]?in|log[ -]?in|login)\s*$/i
const LOGIN_PATH = /(?:^|\/)(?:sign|log)[-_]?in(?:\/|\.\w+$|$)/i
const LOGIN_TEXT = /\b(?:sign|log) in to (?:continue|view|read|see|access)\b|\byou (?:must|need to) (?:be )?(?:signed|logged) in\b|\bplease (?:sign|log) in\b|\byour session (?:has )?expired\b/i

// A consent page lives on a consent host (consent.google.com, consent.youtube.com) or under a /consent/ segment.
const CONSENT_PATH = /(?:^|\/)(?:cookie-?)?consent(?:\/|\.\w+$|$)/i
const CONSENT_TITLE = /before you continue|cookie (?:consent|settings|preferences|choices)|privacy (?:choices|settings|preferences)|\bconsent\b/i
const CONSENT_TEXT = /before you continue|accept all|reject all|agree (?:and|&) (?:continue|proceed)|manage (?:cookie|privacy) (?:settings|preferences|options)|we (?:and our partners )?use cookies/i

// "429" only as a status: "Error 429", "HTTP 429", a title that starts with it; never a price or a model number.
const RATE_TITLE = /too many requests|rate[- ]limit(?:ed| exceeded)|you are being rate[- ]limited|^\s*429\b|\b(?:error|http|status|code)\s*429\b/i
const RATE_TEXT = /too many requests|rate[- ]?limit(?:ed|ing)?|request limit (?:reached|exceeded)|you have been (?:temporarily )?(?:rate[- ]limited|blocked)/i
// The body of a rate-limit page also tells when to come back; a page merely discussing rate limits seldom does both.
const RATE_RETRY = /try again|retry|come back later|wait a (?:few|moment|while|minute)/i

const RULES: readonly { readonly kind: GateKind; readonly signals: readonly Signal[] }[] = [
  {
    kind: 'challenge',
    signals: [
      { source: 'title', seen: ({ signals }) => CHALLENGE_TITLE.test(signals.title) },
      { source: 'text', seen: ({ signals }) => CHALLENGE_TEXT.test(signals.textHead) },
      { source: 'status', seen: ({ signals }) => signals.status !== null && CHALLENGE_STATUS.has(signals.status) },
    ],
  },
  {
    kind: 'rate-limited',
    signals: [
      { source: 'title', seen: ({ signals }) => RATE_TITLE.test(signals.title) },
      { source: 'text', seen: ({ signals }) => RATE_TEXT.test(signals.textHead) && RATE_RETRY.test(signals.textHead) },
      { source: 'status', seen: ({ signals }) => signals.status === 429 },
    ],
  },
  {
    kind: 'login-required',
    signals: [
      { source: 'page', seen: ({ signals }) => signals.passwordField },
      { source: 'title', seen: ({ signals }) => LOGIN_TITLE.test(signals.title) },
      { source: 'url', seen: ({ path }) => LOGIN_PATH.test(path) },
      { source: 'text', seen: ({ signals }) => LOGIN_TEXT.test(signals.textHead) },
    ],
  },
  {
    kind: 'consent',
    signals: [
      { source: 'url', seen: ({ host, path }) => host.startsWith('consent.') || CONSENT_PATH.test(path) },
      { source: 'title', seen: ({ signals }) => CONSENT_TITLE.test(signals.title) },
      { source: 'text', seen: ({ signals }) => CONSENT_TEXT.test(signals.textHead) },
    ],
  },
]

function view(signals: GateSignals): PageView {
  try {
    const url = new URL(signals.url)
    return { signals, host: url.hostname.toLowerCase(), path: url.pathname }
  } catch {
    // An unparseable URL gives no URL signal; the others still count.
    return { signals, host: '', path: '' }
  }
}

/** The distinct sources that show `kind`'s signals on this page. */
export function gateSources(signals: GateSignals, kind: GateKind): SignalSource[] {
  const page = view(signals)
  const rule = RULES.find((candidate) => candidate.kind === kind)!
  return [...new Set(rule.signals.filter((signal) => signal.seen(page)).map((signal) => signal.source))]
}

function gate(kind: GateKind): Gate {
  return { kind, hint: GATE_HINTS[kind] }
}

/**
 * The gate the landing page reads as, or null. The kinds are tried from the most to the least blocking: a challenge
 * or rate-limit page that also shows a sign-in form is first of all a challenge or a rate limit.
 */
export function classifyGate(signals: GateSignals): Gate | null {
  const sparse = signals.textLength <= SPARSE_TEXT_LIMIT
  // BR.GATE.2's one strong signal, kept to pages it can be about: a sparse page, or one whose title says it is a check.
  if (signals.challengeWidget && (sparse || CHALLENGE_TITLE.test(signals.title))) return gate('challenge')
  if (!sparse) return null
  for (const rule of RULES) {
    if (gateSources(signals, rule.kind).length >= 2) return gate(rule.kind)
  }
  return null
}
