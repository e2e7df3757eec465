import type { BrowserContext, Page, Request, Route } from 'playwright-core'
import { judgeHop, type TabHold } from '../../core/browser/hold.js'
import type { OwnServer } from '../../core/browser/ownAddress.js'
import { originOnly, redactUrl } from './url.js'

/**
 * The browser side of core's hold rules (core/browser/hold.ts). Each AI tab's page session pauses every document
 * request of the tab (DevTools' Fetch domain, which pauses each redirect hop too) and asks its {@link TabGuard}
 * before the request leaves the browser; a stopped one fails as `net::ERR_BLOCKED_BY_CLIENT`. Windows an assistant's
 * page opens are another page, which the tab's session never sees: {@link PopupGuard} aborts their requests in the
 * contexts where assistants' tabs live (Playwright's context routes are set on a new page before it may load).
 */

/** A hop the guard stopped: the URL redacted, its origin and why. */
export interface BlockedHop {
  readonly url: string
  readonly origin: string
  readonly reason: 'quire' | 'not-approved' | 'scheme'
  readonly mainFrame: boolean
  /** Counts the tab's stops, so a navigation can tell the ones met after it began. */
  readonly seq: number
}

/** Stops remembered per tab: the newest few are all a navigation's answer needs. */
const BLOCKS_KEPT = 8

/** One AI tab's navigation rules: what holds it, the origins the person approved for it, and the hops it stopped. */
export class TabGuard {
  readonly #approved = new Set<string>()
  #blocks: BlockedHop[] = []
  #seq = 0

  constructor(
    readonly hold: TabHold | undefined,
    private readonly ownServers: () => readonly OwnServer[],
  ) {}

  /** Lets the held tab load `origin` from now on (the person approved it for this tab). */
  approve(origin: string): void {
    this.#approved.add(origin)
  }

  approves(url: string): boolean {
    return this.hold === undefined || this.#approved.has(originOnly(url))
  }

  /** Whether a document request for `url` may leave the browser; a refusal is remembered for the navigation's answer. */
  allows(url: string, mainFrame: boolean): boolean {
    const verdict = judgeHop(url, { ownServers: this.ownServers(), hold: this.hold, approvedOrigins: this.#approved })
    if (verdict.allow) return true
    this.#blocks = [...this.#blocks.slice(1 - BLOCKS_KEPT), { url: redactUrl(url), origin: verdict.origin, reason: verdict.reason, mainFrame, seq: ++this.#seq }]
    return false
  }

  /** Where the count of stops is now. */
  get mark(): number {
    return this.#seq
  }

  /** The newest main-frame hop stopped after `mark`, if any. */
  stoppedSince(mark: number): BlockedHop | undefined {
    return this.#blocks.findLast((block) => block.seq > mark && block.mainFrame)
  }
}

/** A request's URL never has the fragment its window was opened with. */
const withoutFragment = (url: string): string => url.replace(/#.*$/s, '')

/** How long a window the guard stopped is remembered, for a person's tab that opened it to load it after all. */
const ABORTED_KEPT_MS = 30_000

/**
 * Aborts the requests of pages that are not yet tabs (a window a page opened) in one browser context. A window of an
 * assistant's tab never loads; the person's own tab's window is stopped too (the request comes before anyone can tell
 * whose window it is), and loaded once the engine has made it a tab of the person's ({@link wasStopped}).
 */
export class PopupGuard {
  readonly #context: BrowserContext
  readonly #isTab: (page: Page) => boolean
  readonly #stopped = new Map<string, number>()
  #installed: Promise<void> | undefined
  readonly #handler = (route: Route, request: Request): Promise<void> => this.#route(route, request)

  constructor(context: BrowserContext, isTab: (page: Page) => boolean) {
    this.#context = context
    this.#isTab = isTab
  }

  /** Starts guarding; resolves once the context's new pages are guarded (twice is once). */
  install(): Promise<void> {
    this.#installed ??= this.#context.route('**/*', this.#handler).then(() => undefined)
    return this.#installed
  }

  async uninstall(): Promise<void> {
    const installed = this.#installed
    if (installed === undefined) return
    this.#installed = undefined
    this.#stopped.clear()
    await installed.catch(() => undefined)
    // Installed again meanwhile (a new assistant's tab): the route stays.
    if (this.#installed !== undefined) return
    await this.#context.unroute('**/*', this.#handler).catch(() => undefined)
  }

  /** Whether the guard stopped a window's request for `url` a moment ago (then forgets it). */
  wasStopped(url: string): boolean {
    const key = withoutFragment(url)
    const at = this.#stopped.get(key)
    this.#stopped.delete(key)
    return at !== undefined && Date.now() - at < ABORTED_KEPT_MS
  }

  async #route(route: Route, request: Request): Promise<void> {
    let page: Page | undefined
    try {
      page = request.frame().page()
    } catch {
      // A new window's first request comes before its frame exists.
      page = undefined
    }
    if (page !== undefined && this.#isTab(page)) return route.fallback()
    if (request.isNavigationRequest()) this.#stopped.set(withoutFragment(request.url()), Date.now())
    await route.abort('blockedbyclient').catch(() => undefined)
  }
}
