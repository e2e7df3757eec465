import { AsyncLocalStorage } from 'node:async_hooks'
import type { Browser, BrowserContext, Frame, Page } from 'playwright-core'
import { chromiumLauncher } from './chromium.js'
import { runAct, type ActRequest, type ActSuccess } from './act.js'
import { chromiumUnavailable } from './chromiumUnavailable.js'
import { BrowserError } from './errors.js'
import { runExecuteJs, type ExecuteJsResult } from './executeJs.js'
import { runStyle, type StyleChange, type StyleResult, type StyleTarget } from './pageStyle.js'
import type { TabHandle } from './tabHandle.js'
import type { SiteReader } from './extract.js'
import { detectGate } from './gateSignals.js'
import type { Gate } from './gates.js'
import { PageSession } from './pageSession.js'
import { redactUrl } from './url.js'
import { BUILTIN_SITE_READERS } from './wikipediaReader.js'
import type { ConsoleEntry } from './consoleRing.js'
import { locateOnFrames } from './liveOutline.js'
import { dispatchPersonInput, startScreencast } from './liveView.js'
import { PersonProfile } from './personProfile.js'
import { armCapture, type ArmedCapture, type CaptureSink } from './recorderCapture.js'
import { NamedProfiles, type NamedProfileEntry } from './namedProfiles.js'
import { captureSession, restoreSession } from './sessionSnapshot.js'
import type { SessionSnapshot } from './savedSessions.js'
import type { AutomationMode, LocatedOnFrames, PersonInput, PersonTabEntry, ScreencastFrame } from './personSide.js'
import type { BrowserPosture } from '../../core/settings/events.js'
import { judgeHop, type TabHold } from '../../core/browser/hold.js'
import type { OwnServer } from '../../core/browser/ownAddress.js'
import { PopupGuard, TabGuard, type BlockedHop } from './navigationGuard.js'
import { machineAddresses } from './machineAddresses.js'

/**
 * The embedded browser of one daemon: one Chromium process, started on first use and stopped after an idle period;
 * one non-persistent context per principal (the Sandbox posture's separate AI cookie store, BR.GEN.11); AI-owned tabs
 * with ids, a navigation `generation`, loading state and title. Every URL it returns is redacted (BR.GEN.3).
 *
 * Authorization (grants, approvals, attachments) is not here: the MCP layer decides, the engine only does.
 *
 * The person's side: human tabs (opened from the console) and the Shared posture's AI tabs live in the person's
 * persistent profile, a second Chromium started only when first needed (personProfile.ts). An AI principal never
 * reaches a human tab except inside `attached(…)`, which the MCP layer calls once the person approved the
 * attachment (BR.GEN.10). The person watches any tab and takes over through `screencast` and `dispatchInput`.
 */

/** The owner recorded on human tabs; no agent name can take it (names are letters, digits, dots, dashes). */
export const PERSON_TAB_OWNER = '(person)'

export const TAB_LIMIT = 8
export const MAX_WAIT_MS = 9_000
export const READ_NODE_CAP = 2_000
export const READ_NAME_CAP = 200
export const QUERY_ELEMENT_CAP = 50
export const QUERY_TEXT_CAP = 500
export const EXTRACT_HTML_CAP = 2_000_000
export const SCREENSHOT_MAX_QUALITY = 80
const READ_WALK_CAP = 100_000
const NAVIGATION_LIMIT_MS = 60_000
const POLL_MS = 100
const TEARDOWN_ATTEMPTS = 3

export interface EngineOptions {
  readonly executablePath?: string
  /** How long the browser may go without a call before it is stopped (its tabs are then reported closed). */
  readonly idleMs?: number
  /** How long `close` waits for Chromium to confirm a tab's page is gone, per attempt (default 5 s; three attempts). */
  readonly teardownMs?: number
  readonly siteReaders?: readonly SiteReader[]
  /**
   * The person's persistent browser profile (cookies, storage): human tabs and AI tabs opened in the Shared posture
   * use it (BR.GEN.11). Without it neither can be opened.
   */
  readonly profileDir?: string
  /** The folder of the named profiles (`open {profile}`, namedProfiles.ts). Without it none can be opened. */
  readonly profilesDir?: string
}

export type TabCloseReason = 'closed' | 'closed-by-page' | 'crashed' | 'browser-crashed' | 'idle' | 'engine-stopped'

export type EngineEvent =
  | { readonly type: 'browser-started' }
  | { readonly type: 'browser-stopped'; readonly reason: 'idle' | 'crashed' | 'engine-stopped' }
  | { readonly type: 'tab-opened'; readonly principal: string; readonly tabId: string }
  | { readonly type: 'tab-navigated'; readonly principal: string; readonly tabId: string; readonly url: string; readonly generation: number }
  | { readonly type: 'tab-closed'; readonly principal: string; readonly tabId: string; readonly reason: TabCloseReason }
  /** The person clicked, scrolled or typed in a tab's live view: an assistant's run on it must yield. */
  | { readonly type: 'person-input'; readonly tabId: string }

export interface TabState {
  readonly tabId: string
  readonly url: string
  readonly title: string
  readonly loading: boolean
  readonly generation: number
}

export type NavigationOutcome =
  | { readonly status: 'loaded'; readonly navigationId: string; readonly tabId: string; readonly url: string; readonly title: string; readonly generation: number
      /** The landing page reads as a login wall, consent page, challenge or rate limit: advisory only (BR.GATE.1–5). */
      readonly gate?: Gate }
  | { readonly status: 'failed'; readonly navigationId: string; readonly tabId: string; readonly url: string; readonly error: string
      /** The hop the tab's guard stopped, when that is why it failed. */
      readonly blocked?: BlockedHop }

/** What `open`, `navigate` and `wait` answer: a failure or a supersession is thrown as its token instead. */
export type LoadedNavigation = Extract<NavigationOutcome, { readonly status: 'loaded' }>

export interface SnapshotNode {
  readonly role: string
  readonly name: string
  readonly ref: string
  readonly level?: number
  readonly checked?: boolean | 'mixed'
  readonly disabled?: true
  readonly upload?: true
}

export interface ReadResult {
  readonly url: string
  readonly generation: number
  readonly snapshot: readonly SnapshotNode[]
  readonly truncated?: true
  readonly unreachable?: number
}

export interface QueryFields {
  readonly attributes?: boolean
  readonly box?: boolean
  readonly styles?: readonly string[]
}
export interface QueryElement {
  readonly ref: string
  readonly tag: string
  readonly text: string
  readonly attributes?: Readonly<Record<string, string>>
  readonly box?: { readonly x: number; readonly y: number; readonly width: number; readonly height: number }
  readonly styles?: Readonly<Record<string, string>>
}
export interface QueryResult {
  readonly url: string
  readonly count: number
  readonly elements: readonly QueryElement[]
  readonly truncated?: true
}

export interface ExtractResult {
  readonly title: string
  readonly byline: string | null
  readonly url: string
  readonly markdown: string
  readonly textLength: number
  readonly truncated: boolean
}

export type WaitCondition =
  | { readonly ref: string }
  | { readonly role: string; readonly name?: string }
  | { readonly text: string }
  | { readonly urlContains: string }

interface Ticket {
  readonly id: string
  outcome: NavigationOutcome | 'superseded' | undefined
  readonly settled: Promise<void>
  settle(outcome: NavigationOutcome | 'superseded'): void
}

interface Tab {
  readonly id: string
  readonly principal: string
  readonly automationMode: AutomationMode
  /** When it was last brought to the front (a counter, not a time): the latest is the foreground tab. */
  frontedAt: number
  readonly page: Page
  readonly session: PageSession
  /** The named profile the tab was opened in (an AI tab of the Sandbox posture in that profile's cookie store). */
  readonly profile?: string
  /** The agent whose profile it is (the tab's own principal's, or one the person shared). */
  readonly profileOwner?: string
  /** Where an assistant's tab may go (core/browser/hold.ts); the person's tabs have none. */
  readonly guard?: TabGuard
  generation: number
  tickets: Ticket[]
  closing: boolean
}

const VIEWPORT = { width: 1280, height: 800 }
const LAUNCH_ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--no-first-run',
]

/** A ref as handed out: the document-local handle plus the generation it was read in (`e5` of generation 2 → `e5g2`). */
function publicRef(localRef: string, generation: number): string {
  return `${localRef}g${generation}`
}

function checkTimeout(timeoutMs: number | undefined): number {
  if (timeoutMs === undefined) return MAX_WAIT_MS
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_WAIT_MS) {
    throw new BrowserError('INVALID_ARGUMENT', `timeoutMs must be an integer from 1 to ${MAX_WAIT_MS}`)
  }
  return timeoutMs
}

/** What the guard's refusal of a hop is, as the tab's navigation answers it. */
function blockedError(blocked: Omit<BlockedHop, 'seq' | 'mainFrame'>, tabId?: string, navigationId?: string): BrowserError {
  const data = { ...(tabId !== undefined ? { tabId } : {}), ...(navigationId !== undefined ? { navigationId } : {}), url: blocked.url, origin: blocked.origin, reason: blocked.reason }
  if (blocked.reason === 'not-approved') {
    return new BrowserError('DESTINATION_NOT_APPROVED', `the navigation reached ${blocked.origin}, which the person has not approved for this tab; it was stopped before its request left the browser`, data)
  }
  if (blocked.reason === 'quire') {
    return new BrowserError('BLOCKED_DESTINATION', `${blocked.url} is Quire's own address: an assistant's tab never loads it`, data)
  }
  return new BrowserError('BLOCKED_DESTINATION', `${blocked.url} is not a web page: an assistant's tab loads only http and https pages`, data)
}

/** What Playwright says of a load another navigation took the place of, and where that one went. */
const INTERRUPTED = /is interrupted by another navigation to "([^"]*)"/

/** How long a failed load's error page may take to commit before the failure is answered anyway. */
const ERROR_PAGE_MS = 2_000

/** Resolves once the page shows Chromium's error page, or after ERROR_PAGE_MS. */
function errorPageCommitted(page: Page): Promise<void> {
  if (page.url().startsWith('chrome-error:')) return Promise.resolve()
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer)
      page.off('framenavigated', onNavigated)
      resolve()
    }
    const onNavigated = (frame: Frame): void => {
      if (frame === page.mainFrame() && frame.url().startsWith('chrome-error:')) done()
    }
    const timer = setTimeout(done, ERROR_PAGE_MS)
    page.on('framenavigated', onNavigated)
  })
}

function checkUrl(raw: string): string {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new BrowserError('INVALID_URL', 'not an absolute URL')
  }
  // file:, chrome: and the like would reach the machine itself, not the web.
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new BrowserError('INVALID_URL', `only http and https pages can be opened, not ${url.protocol}`)
  return url.href
}

function later<T>(ms: number): Promise<T | 'timeout'> {
  return new Promise((resolve) => setTimeout(() => resolve('timeout'), ms).unref())
}

export class BrowserEngine {
  readonly #options: EngineOptions
  #browser: Promise<Browser> | undefined
  readonly #contexts = new Map<string, Promise<BrowserContext>>()
  readonly #tabs = new Map<string, Tab>()
  readonly #listeners = new Set<(event: EngineEvent) => void>()
  #nextTab = 0
  #nextNavigation = 0
  #idleTimer: NodeJS.Timeout | undefined
  #busy = 0
  #stopping = false
  readonly #startingOpens = new Map<string, number>()
  /** Opens still starting in each named profile (by owner and name): a profile is not deleted under them. */
  readonly #startingProfileOpens = new Map<string, { readonly profile: string; readonly profileOwner: string; readonly count: number }>()
  #profile: PersonProfile | undefined
  #named: NamedProfiles | undefined
  #fronts = 0
  /** The daemon's own servers: no assistant's tab loads them (core/browser/ownAddress.ts). */
  #ownServers: OwnServer[] = []
  /** The popup guards of the contexts assistants' tabs live in; the person's profile's only while one of theirs is open. */
  readonly #popupGuards = new WeakMap<BrowserContext, PopupGuard>()
  /** The named profile whose logins a cookie store holds since a session saved from it was loaded there. */
  readonly #carriedProfile = new WeakMap<BrowserContext, string>()
  /** The one human tab a call may reach, set only by `attached` for the calls made inside it. */
  readonly #attachment = new AsyncLocalStorage<{ readonly principal: string; readonly tabId: string }>()

  constructor(options: EngineOptions = {}) {
    this.#options = options
  }

  /** Subscribes to what happens to the browser and its tabs (for the `browser` event stream); returns the unsubscriber. */
  onEvent(listener: (event: EngineEvent) => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  #emit(event: EngineEvent): void {
    for (const listener of this.#listeners) listener(event)
  }

  get running(): boolean {
    return this.#browser !== undefined
  }

  /** Restarts the idle countdown; it runs only while no call is in flight and a browser is up. */
  #touch(): void {
    if (this.#idleTimer) clearTimeout(this.#idleTimer)
    this.#idleTimer = undefined
    if (this.#busy > 0 || (!this.#browser && !this.#profile?.running && !this.#named?.running)) return
    this.#idleTimer = setTimeout(() => void this.#shutdown('idle'), this.#options.idleMs ?? 10 * 60_000)
    this.#idleTimer.unref()
  }

  async #use<T>(work: () => Promise<T>): Promise<T> {
    this.#busy++
    this.#touch()
    try {
      return await work()
    } catch (error) {
      if (error instanceof BrowserError) throw error
      // The page, its context or the whole browser went away under the call.
      if (error instanceof Error && /has been closed|Target closed|Session closed|browser has disconnected/i.test(error.message)) {
        throw new BrowserError('TAB_CLOSED', 'the tab closed during the call')
      }
      throw error
    } finally {
      this.#busy--
      this.#touch()
    }
  }

  async #ensureBrowser(): Promise<Browser> {
    if (this.#browser) return this.#browser
    const executablePath = this.#options.executablePath ?? '/usr/bin/chromium'
    const launching = chromiumLauncher().then((chromium) => chromium.launch({ executablePath, headless: true, args: LAUNCH_ARGS }))
    this.#browser = launching
    let browser: Browser
    try {
      browser = await launching
    } catch (error) {
      this.#browser = undefined
      throw chromiumUnavailable('Chromium', executablePath, error as Error)
    }
    browser.on('disconnected', () => {
      // A disconnect we did not ask for is a crash: its tabs are gone, the next call starts a new browser.
      if (this.#browser !== launching || this.#stopping) return
      this.#forget('browser-crashed', 'sandbox')
      this.#emit({ type: 'browser-stopped', reason: 'crashed' })
    })
    this.#emit({ type: 'browser-started' })
    return browser
  }

  /** Drops the tabs of the browser that went away: the Sandbox one, the person's profile, or both. */
  #forget(reason: TabCloseReason, which: 'all' | 'sandbox' | 'profile' = 'all'): void {
    if (which !== 'profile') {
      this.#browser = undefined
      this.#contexts.clear()
    }
    // A named profile's tabs go with their own Chromium only (#namedProfiles' onCrash), or with everything.
    const tabs = [...this.#tabs.values()].filter((tab) => which === 'all' || (tab.profile === undefined && (which === 'sandbox') === (tab.automationMode === 'ai-sandbox')))
    for (const tab of tabs) this.#tabs.delete(tab.id)
    for (const tab of tabs) {
      for (const ticket of tab.tickets) ticket.settle({ status: 'failed', navigationId: ticket.id, tabId: tab.id, url: '', error: 'the tab was closed' })
      this.#emit({ type: 'tab-closed', principal: tab.principal, tabId: tab.id, reason })
    }
  }

  async #shutdown(reason: 'idle' | 'engine-stopped'): Promise<void> {
    if (this.#idleTimer) clearTimeout(this.#idleTimer)
    const pending = this.#browser
    const profile = this.#profile?.running ? this.#profile : undefined
    const named = this.#named?.running ? this.#named : undefined
    if (!pending && !profile && !named) return
    this.#stopping = true
    this.#forget(reason)
    try {
      const browser = await pending?.catch(() => undefined)
      await browser?.close()
      await profile?.close()
      await named?.closeAll()
    } finally {
      this.#stopping = false
    }
    this.#emit({ type: 'browser-stopped', reason })
  }

  /** Stops the browser (the daemon is shutting down); the next call would start a new one. */
  async stop(): Promise<void> {
    await this.#shutdown('engine-stopped')
  }

  /**
   * A server of the daemon's own, once it listens: from then on no assistant's tab loads any of its addresses, by any
   * Host alias it answers to (core/browser/ownAddress.ts), whatever the posture and whatever the person approved.
   */
  blockServer(server: { readonly port: number; readonly host: string; readonly allowedHosts: readonly string[] }): void {
    const wildcard = server.host === '0.0.0.0' || server.host === '::'
    this.#ownServers = [...this.#ownServers, { port: server.port, listenHost: server.host, allowedHosts: [...server.allowedHosts], machineAddresses: wildcard ? machineAddresses() : [] }]
  }

  /**
   * Refuses at once a URL no assistant's tab may ever load (not http or https, the daemon's own): callers check it
   * before they ask the person anything about it.
   */
  checkDestination(url: string): void {
    this.#checkAiUrl(url)
  }

  /** An AI tab's URL, refused at once when no assistant's tab may ever load it (the daemon's own, say). */
  #checkAiUrl(raw: string): string {
    const url = checkUrl(raw)
    const verdict = judgeHop(url, { ownServers: this.#ownServers, hold: undefined, approvedOrigins: new Set() })
    if (!verdict.allow) throw blockedError({ url: redactUrl(url), origin: verdict.origin, reason: verdict.reason })
    return url
  }

  async #contextFor(principal: string, automationMode: AutomationMode = 'ai-sandbox', profile?: { readonly name: string; readonly owner: string }): Promise<BrowserContext> {
    if (profile !== undefined) return this.#namedProfiles().context(profile.owner, profile.name)
    if (automationMode !== 'ai-sandbox') return this.#personProfile().context()
    const browser = await this.#ensureBrowser()
    let context = this.#contexts.get(principal)
    if (!context) {
      context = browser.newContext({ viewport: VIEWPORT, acceptDownloads: false, serviceWorkers: 'block' })
        .then((created) => {
          this.#closePopups(created)
          return created
        })
      this.#contexts.set(principal, context)
    }
    return context
  }

  /**
   * Popups of AI tabs are never shown (BR.ACT.15): the opener's session records the URL it asked for. A popup the
   * person's own tab opens (a link to a new window) becomes another tab of theirs, as in any browser.
   */
  #closePopups(context: BrowserContext): void {
    context.on('page', (page) => {
      if ([...this.#tabs.values()].some((tab) => tab.page === page)) return
      void page.opener().then(async (opener) => {
        if (!opener) return
        const from = [...this.#tabs.values()].find((tab) => tab.page === opener)
        if (from?.automationMode !== 'human') return void (await page.close().catch(() => undefined))
        const session = await PageSession.attach(page).catch(() => undefined)
        if (!session) return void (await page.close().catch(() => undefined))
        const tab = this.#register(PERSON_TAB_OWNER, 'human', page, session)
        await this.#bringToFront(tab).catch(() => undefined)
        // The guard stopped the window's first request while an assistant's tab was open in this profile: it is
        // the person's, so it loads now.
        const wanted = await session.entryUrl().catch(() => undefined)
        if (wanted !== undefined && this.#popupGuards.get(context)?.wasStopped(wanted)) void this.#personNavigate(tab, wanted).catch(() => undefined)
      })
    })
  }

  /**
   * Aborts the requests of windows an assistant's page opens in `context` (navigationGuard.ts); in the person's
   * profile only while an assistant's tab is open there (#releasePopupGuard, when the last one closes).
   */
  async #guardPopups(context: BrowserContext): Promise<void> {
    let guard = this.#popupGuards.get(context)
    if (!guard) {
      guard = new PopupGuard(context, (page) => [...this.#tabs.values()].some((tab) => tab.page === page))
      this.#popupGuards.set(context, guard)
    }
    await guard.install()
  }

  /** The person's profile needs no popup guard once no assistant's tab is open in it. */
  #releasePopupGuard(tab: Tab): void {
    if (tab.automationMode !== 'ai-shared') return
    if ([...this.#tabs.values()].some((other) => other.automationMode === 'ai-shared')) return
    void this.#popupGuards.get(tab.page.context())?.uninstall()
  }

  #personProfile(): PersonProfile {
    const profileDir = this.#options.profileDir
    if (profileDir === undefined) {
      throw new BrowserError('BROWSER_UNAVAILABLE', "this engine has no profile folder for the person's browser: human tabs and the Shared posture need one")
    }
    this.#profile ??= new PersonProfile({
      profileDir, executablePath: this.#options.executablePath ?? '/usr/bin/chromium', args: LAUNCH_ARGS, viewport: VIEWPORT,
      prepare: (context) => this.#closePopups(context),
      onCrash: () => this.#forget('browser-crashed', 'profile'),
    })
    return this.#profile
  }

  #namedProfiles(): NamedProfiles {
    const dir = this.#options.profilesDir
    if (dir === undefined) throw new BrowserError('BROWSER_UNAVAILABLE', 'this engine has no folder for named browser profiles')
    this.#named ??= new NamedProfiles({
      dir, executablePath: this.#options.executablePath ?? '/usr/bin/chromium', args: LAUNCH_ARGS, viewport: VIEWPORT,
      prepare: (context) => this.#closePopups(context),
      onCrash: (owner, name) => {
        for (const tab of [...this.#tabs.values()]) if (tab.profile === name && tab.profileOwner === owner) this.#dropTab(tab, 'browser-crashed')
      },
    })
    return this.#named
  }

  /** The named profiles (names, owners, origins opened in them), for the person's console. Starts no browser. */
  async listProfiles(): Promise<NamedProfileEntry[]> {
    return this.#options.profilesDir === undefined ? [] : this.#namedProfiles().list()
  }

  /**
   * Deletes the named profiles called `name` (only `owner`'s, when given) with their logins; refused while a tab of
   * one is open (close the tabs first).
   */
  async deleteProfile(name: string, owner?: string): Promise<{ name: string; deleted: boolean }> {
    const mine = (tab: { readonly profile?: string; readonly profileOwner?: string }) => tab.profile === name && (owner === undefined || tab.profileOwner === owner)
    const open = [...this.#tabs.values()].filter((tab) => mine(tab) && !tab.closing)
    if (open.length > 0) throw new BrowserError('PROFILE_IN_USE', `profile "${name}" has ${open.length} tab(s) open (${open.map((tab) => tab.id).join(', ')}); close them first`)
    if ([...this.#startingProfileOpens.values()].some((starting) => starting.count > 0 && mine(starting))) throw new BrowserError('PROFILE_IN_USE', `a tab of profile "${name}" is being opened`)
    return { name, deleted: await this.#namedProfiles().delete(name, owner) }
  }

  /**
   * The named profile whose logins a tab of `principal` holds, if any: the profile it was opened in, or the one a
   * session loaded into its cookie store was saved from (the profile's rules travel with its cookies).
   */
  profileOf(principal: string, tabId: string): string | undefined {
    const tab = this.#tab(principal, tabId)
    return tab.profile ?? this.#carriedProfile.get(tab.page.context())
  }

  /** What holds an assistant's tab to the origins the person approved for it, if anything (core/browser/hold.ts). */
  holdOf(principal: string, tabId: string): TabHold | undefined {
    return this.#tab(principal, tabId, 'ai-owned').guard?.hold
  }

  /** Lets a held tab of `principal` load `origin` from now on: the person approved it for this tab. */
  approveOrigin(principal: string, tabId: string, origin: string): void {
    this.#tab(principal, tabId, 'ai-owned').guard?.approve(origin)
  }

  /**
   * The tab an AI principal's call may use. A human tab only inside `attached` for this principal and tab, and never
   * for what only AI-owned tabs allow (`use: 'ai-owned'`: close, navigate, wait, console).
   */
  #tab(principal: string, tabId: string, use: 'read-or-act' | 'ai-owned' = 'read-or-act'): Tab {
    const tab = this.#tabs.get(tabId)
    if (!tab || tab.closing) throw new BrowserError('TAB_NOT_FOUND', `no tab ${tabId}`)
    if (tab.automationMode === 'human') {
      const attachment = this.#attachment.getStore()
      if (use === 'read-or-act' && attachment?.principal === principal && attachment.tabId === tabId) return tab
      throw new BrowserError('TAB_NOT_AI_OWNED', use === 'ai-owned'
        ? `${tabId} is the person's tab: only AI-owned tabs can be closed, navigated, waited on or have their console read`
        : `${tabId} is the person's tab: reading or acting on it needs the person's attachment approval`)
    }
    // Another principal's tab is reported missing, not forbidden: its existence is not theirs to learn.
    if (tab.principal !== principal) throw new BrowserError('TAB_NOT_FOUND', `no tab ${tabId}`)
    return tab
  }

  tabsOf(principal: string): Promise<TabState[]> {
    return this.#use(() => Promise.all([...this.#tabs.values()].filter((tab) => tab.principal === principal && !tab.closing).map((tab) => this.#state(tab))))
  }

  /** Where the tab is (redacted URL and generation), from the engine's own bookkeeping: no round trip to the page. */
  tabPlace(principal: string, tabId: string): { readonly tabId: string; readonly url: string; readonly generation: number } {
    const tab = this.#tab(principal, tabId)
    return { tabId: tab.id, url: redactUrl(tab.page.url()), generation: tab.generation }
  }

  async tabState(principal: string, tabId: string): Promise<TabState> {
    return this.#use(async () => {
      return this.#state(this.#tab(principal, tabId))
    })
  }

  async #state(tab: Tab): Promise<TabState> {
    return { tabId: tab.id, url: redactUrl(tab.page.url()), title: await this.#titleOf(tab), loading: tab.session.loading, generation: tab.generation }
  }

  /** The page's title, or for a page without one its URL redacted as every URL (never Chromium's fallback, query and all). */
  async #titleOf(tab: Tab): Promise<string> {
    const title = await tab.session.title().catch(() => '')
    return title !== '' ? title : redactUrl(tab.page.url())
  }

  /** The URLs the tab's page tried to open as popups since the last call; the popups themselves were closed. */
  takePopups(principal: string, tabId: string): string[] {
    return this.#tab(principal, tabId).session.takePopups().map(redactUrl)
  }

  /** Opens an AI-owned tab and loads `url` in it (BR.OPEN.1, BR.OPEN.2); the 9th tab of a principal is refused (BR.OPEN.7). */
  /**
   * `beforeLoad` runs once the tab exists and before its page loads (the Shared posture's destination approval): if it
   * throws, the tab stays open on a blank page, so the caller can tell the assistant to retry with `navigate` on it
   * (BR.OPEN.8).
   */
  async open(
    principal: string,
    url: string,
    options: {
      timeoutMs?: number; posture?: BrowserPosture; beforeLoad?: (tabId: string) => Promise<void>; profile?: string
      /** The agent whose named profile it is (default: `principal`'s own). */
      profileOwner?: string
      /** An origin the person already approved for the tab (a profile's open approval names it). */
      approvedOrigin?: string
    } = {},
  ): Promise<LoadedNavigation> {
    return this.#use(async () => {
      const target = this.#checkAiUrl(url)
      const profile = options.profile === undefined ? undefined : { name: options.profile, owner: options.profileOwner ?? principal }
      // A named profile is a Sandbox-posture cookie store of its own (BR.OPEN.4); the MCP layer refuses it first.
      if (profile !== undefined && options.posture === 'shared') throw new BrowserError('INVALID_ARGUMENT', 'a named profile opens only in the Sandbox posture')
      // The posture is the setting's at the time of the open; the tab keeps it for its life (BR.OPEN.1).
      const automationMode: AutomationMode = options.posture === 'shared' ? 'ai-shared' : 'ai-sandbox'
      const timeoutMs = checkTimeout(options.timeoutMs)
      const open = [...this.#tabs.values()].filter((tab) => tab.principal === principal && !tab.closing).length
      // Opens still starting count too: two concurrent opens must not both take the eighth place.
      const starting = this.#startingOpens.get(principal) ?? 0
      if (open + starting >= TAB_LIMIT) {
        throw new BrowserError('TAB_LIMIT', `at most ${TAB_LIMIT} AI tabs may be open at once; close one first`)
      }
      this.#startingOpens.set(principal, starting + 1)
      const profileKey = profile === undefined ? undefined : `${profile.owner}\n${profile.name}`
      const starts = (by: number) => {
        if (profile === undefined || profileKey === undefined) return
        const count = (this.#startingProfileOpens.get(profileKey)?.count ?? 0) + by
        this.#startingProfileOpens.set(profileKey, { profile: profile.name, profileOwner: profile.owner, count })
      }
      starts(1)
      const hold: TabHold | undefined =
        profile !== undefined ? { kind: 'profile', profile: profile.name, owner: profile.owner } : automationMode === 'ai-shared' ? { kind: 'shared' } : undefined
      const guard = new TabGuard(hold, () => this.#ownServers)
      if (options.approvedOrigin !== undefined) guard.approve(options.approvedOrigin)
      let page: Page | undefined
      let session: PageSession
      try {
        const context = await this.#contextFor(principal, automationMode, profile)
        page = await context.newPage()
        session = await PageSession.attach(page, { allowDocument: (hop, mainFrame) => guard.allows(hop, mainFrame) })
      } catch (error) {
        await page?.close().catch(() => undefined)
        if (error instanceof BrowserError) throw error
        throw new BrowserError('BROWSER_UNAVAILABLE', `the tab could not be opened: ${(error as Error).message.split('\n', 1)[0]}`)
      } finally {
        this.#startingOpens.set(principal, (this.#startingOpens.get(principal) ?? 1) - 1)
        starts(-1)
      }
      const tab = this.#register(principal, automationMode, page, session, { guard, ...(profile !== undefined ? { profile: profile.name, profileOwner: profile.owner } : {}) })
      // Once the tab counts (a last Shared tab closing meanwhile must not take the guard away) and before it loads.
      await this.#guardPopups(page.context())
      if (profile !== undefined) await this.#named?.noteOrigin(profile.owner, profile.name, new URL(target).origin).catch(() => undefined)
      await options.beforeLoad?.(tab.id)
      return this.#navigate(tab, target, timeoutMs)
    })
  }

  #register(
    principal: string, automationMode: AutomationMode, page: Page, session: PageSession,
    extra: { readonly guard?: TabGuard; readonly profile?: string; readonly profileOwner?: string } = {},
  ): Tab {
    const tab: Tab = {
      id: `tab-${++this.#nextTab}`, principal, automationMode, frontedAt: 0, page, session, generation: 0, tickets: [], closing: false, ...extra,
    }
    this.#tabs.set(tab.id, tab)
    page.on('framenavigated', (frame) => {
      if (frame !== page.mainFrame()) return
      tab.generation++
      this.#emit({ type: 'tab-navigated', principal, tabId: tab.id, url: redactUrl(frame.url()), generation: tab.generation })
    })
    // A page also closes when its browser dies; 'disconnected' comes right after, in the same turn, and names the
    // real reason, so the page's own close is looked at once that turn is over.
    page.on('close', () => setImmediate(() => this.#dropTab(tab, tab.closing ? 'closed' : 'closed-by-page')))
    page.on('crash', () => {
      this.#dropTab(tab, 'crashed')
      void page.close().catch(() => undefined)
    })
    this.#emit({ type: 'tab-opened', principal, tabId: tab.id })
    return tab
  }

  /** Navigates an AI-owned tab (BR.NAVIGATE.1); the result is the ticket's outcome, or TIMEOUT carrying it (BR.NAVIGATE.3). */
  async navigate(principal: string, tabId: string, url: string, options: { timeoutMs?: number } = {}): Promise<LoadedNavigation> {
    return this.#use(async () => {
      const target = this.#checkAiUrl(url)
      const timeoutMs = checkTimeout(options.timeoutMs)
      return this.#navigate(this.#tab(principal, tabId, 'ai-owned'), target, timeoutMs)
    })
  }

  #dropTab(tab: Tab, reason: TabCloseReason): void {
    if (this.#tabs.get(tab.id) !== tab) return
    this.#tabs.delete(tab.id)
    for (const ticket of tab.tickets) ticket.settle({ status: 'failed', navigationId: ticket.id, tabId: tab.id, url: '', error: 'the tab was closed' })
    void tab.session.detach()
    this.#releasePopupGuard(tab)
    this.#emit({ type: 'tab-closed', principal: tab.principal, tabId: tab.id, reason })
  }

  async #navigate(tab: Tab, url: string, timeoutMs: number): Promise<LoadedNavigation> {
    // open and navigate bring their tab to the foreground (BR.OPEN.1, BR.NAVIGATE.1); reads never do.
    await this.#bringToFront(tab)
    for (const earlier of tab.tickets) earlier.settle('superseded')
    let settle!: (outcome: NavigationOutcome | 'superseded') => void
    const settled = new Promise<void>((resolve) => {
      settle = (outcome) => {
        if (ticket.outcome !== undefined) return
        ticket.outcome = outcome
        resolve()
      }
    })
    const ticket: Ticket = { id: `nav-${++this.#nextNavigation}`, outcome: undefined, settled, settle: (outcome) => settle(outcome) }
    tab.tickets = [...tab.tickets.slice(-15), ticket]
    const mark = tab.guard?.mark ?? 0
    let reloaded = false
    const load = async (): Promise<void> => {
      try {
        await tab.page.goto(url, { waitUntil: 'load', timeout: NAVIGATION_LIMIT_MS })
      } catch (error) {
        const interruption = error instanceof Error ? INTERRUPTED.exec(error.message) : null
        // A later navigation of ours settled this ticket first; a hop the guard stopped is this load's own failure.
        if (interruption === null || ticket.outcome !== undefined || tab.guard?.stoppedSince(mark) !== undefined) throw error
        if (interruption[1]!.startsWith('chrome-error:')) {
          // The error page of an earlier load the guard stopped committed later than errorPageCommitted waited (a
          // loaded machine) and took this load's place: it is begun again, once.
          if (reloaded) throw error
          reloaded = true
          return load()
        }
        // The page moved on by itself, or Chromium reported a redirect hop as a navigation of its own (it may, with
        // requests intercepted): a page the guard let through committed, and this load ends when that page has loaded.
        await tab.page.waitForLoadState('load', { timeout: NAVIGATION_LIMIT_MS })
      }
    }
    load()
      .then(
        async () => {
          const title = await this.#titleOf(tab)
          // Read once, when the ticket settles, so that a later wait gives the same outcome (BRR.WAIT.6); never throws.
          const gate = await detectGate(tab.session)
          ticket.settle({ status: 'loaded', navigationId: ticket.id, tabId: tab.id, url: redactUrl(tab.page.url()), title, generation: tab.generation, ...(gate ? { gate } : {}) })
        },
        async (error: Error) => {
          // A hop the guard stopped (a redirect, or the page moving on by itself as it loaded) is why it failed.
          const blocked = tab.guard?.stoppedSince(mark)
          // Chromium commits its error page after the load has failed: a navigation made before that would be
          // interrupted by it, so the ticket settles once it is there.
          if (blocked !== undefined) await errorPageCommitted(tab.page)
          ticket.settle({
            status: 'failed', navigationId: ticket.id, tabId: tab.id, url: redactUrl(url), error: error.message.split('\n', 1)[0] ?? 'navigation failed',
            ...(blocked !== undefined ? { blocked } : {}),
          })
        },
      )
    return this.#awaitTicket(tab, ticket, timeoutMs)
  }

  async #awaitTicket(tab: Tab, ticket: Ticket, timeoutMs: number): Promise<LoadedNavigation> {
    if ((await Promise.race([ticket.settled, later<void>(timeoutMs)])) === 'timeout') {
      throw new BrowserError('TIMEOUT', `the navigation did not finish within ${timeoutMs} ms; wait on its ticket`, { tabId: tab.id, navigationId: ticket.id })
    }
    const outcome = ticket.outcome
    if (outcome === 'superseded') {
      throw new BrowserError('NAVIGATION_SUPERSEDED', 'a later navigation replaced this one', { tabId: tab.id, navigationId: ticket.id })
    }
    if (outcome === undefined) throw new Error('a settled ticket has an outcome')
    if (outcome.status === 'failed' && outcome.blocked !== undefined) throw blockedError(outcome.blocked, tab.id, ticket.id)
    if (outcome.status === 'failed') throw new BrowserError('NAVIGATION_FAILED', outcome.error, { tabId: tab.id, navigationId: ticket.id })
    return outcome
  }

  /** The buffered outcome of a navigation ticket, by default the tab's latest (BRR.WAIT.1, BRR.WAIT.5); starts nothing. */
  async wait(principal: string, tabId: string, options: { navigationId?: string; timeoutMs?: number } = {}): Promise<LoadedNavigation> {
    return this.#use(async () => {
      const timeoutMs = checkTimeout(options.timeoutMs)
      const tab = this.#tab(principal, tabId, 'ai-owned')
      const ticket = options.navigationId === undefined ? tab.tickets.at(-1) : tab.tickets.find((t) => t.id === options.navigationId)
      if (!ticket) throw new BrowserError('NAVIGATION_NOT_FOUND', options.navigationId === undefined ? 'this tab has no navigation to wait on' : `no navigation ${options.navigationId} on this tab`)
      return this.#awaitTicket(tab, ticket, timeoutMs)
    })
  }

  /**
   * Closes every tab of `principal` and drops its Sandbox cookie store: what a connection whose tabs were its own
   * (one without an agent token) leaves behind when it ends. Starts no browser.
   */
  async release(principal: string): Promise<void> {
    const tabs = [...this.#tabs.values()].filter((tab) => tab.principal === principal && !tab.closing)
    for (const tab of tabs) {
      tab.closing = true
      await tab.page.close().catch(() => undefined)
      this.#dropTab(tab, 'closed')
    }
    const context = this.#contexts.get(principal)
    this.#contexts.delete(principal)
    await context?.then((created) => created.close()).catch(() => undefined)
  }

  /** Closes an AI-owned tab (BR.CLOSE.1, BR.CLOSE.4). */
  async close(principal: string, tabId: string): Promise<{ tabId: string; closed: true; destroyed: true }> {
    return this.#use(async () => {
      const tab = this.#tab(principal, tabId, 'ai-owned')
      tab.closing = true
      const destroyed = await this.#teardown(tab)
      // The record goes either way (BR.CLOSE.5): the tab is closed as far as anyone can use it.
      this.#dropTab(tab, 'closed')
      if (!destroyed) {
        throw new BrowserError('TAB_TEARDOWN_FAILED', `Chromium did not confirm that ${tabId}'s page is gone; the tab is closed, but its page may still be running`, { tabId, destroyed: false })
      }
      return { tabId, closed: true, destroyed: true }
    })
  }

  /** Closes the tab's page, retrying, until Chromium confirms it is gone; false when it never did. */
  async #teardown(tab: Tab): Promise<boolean> {
    const waitMs = this.#options.teardownMs ?? 5_000
    for (let attempt = 0; attempt < TEARDOWN_ATTEMPTS; attempt++) {
      if (tab.page.isClosed()) return true
      const confirmed = await Promise.race([tab.page.close().then(() => true, () => tab.page.isClosed()), later<boolean>(waitMs)])
      if (confirmed === true) return true
    }
    return tab.page.isClosed()
  }

  /** The ARIA-oriented read (BRR.READ.1–7). Refs carry the generation they were read in. */
  async read(principal: string, tabId: string): Promise<ReadResult> {
    return this.#use(async () => {
      const tab = this.#tab(principal, tabId)
      for (let attempt = 0; ; attempt++) {
        const generation = tab.generation
        const page = await tab.session.evaluate<{ snapshot: SnapshotNode[]; truncated: boolean; unreachableFrames: number }>(
          `__quireAgent.read(${JSON.stringify({ nodeCap: READ_NODE_CAP, nameCap: READ_NAME_CAP, walkCap: READ_WALK_CAP })})`,
        )
        const closedRoots = await tab.session.closedShadowRoots()
        // A navigation that committed while reading leaves refs of a document that is gone: read the new one.
        if (generation !== tab.generation && attempt < 2) continue
        const unreachable = page.unreachableFrames + closedRoots
        return {
          url: redactUrl(tab.page.url()),
          generation,
          snapshot: page.snapshot.map((node) => ({ ...node, ref: publicRef(node.ref, generation) })),
          ...(page.truncated ? { truncated: true as const } : {}),
          ...(unreachable > 0 ? { unreachable } : {}),
        }
      }
    })
  }

  /** The document-local handle of a ref, or a refusal when it belongs to an older generation of the tab. */
  #localRef(tab: Tab, ref: string): string {
    const match = /^(e\d+)g(\d+)$/.exec(ref)
    if (!match) throw new BrowserError('INVALID_ARGUMENT', `${JSON.stringify(ref)} is not a ref from a read`)
    if (Number(match[2]) !== tab.generation) {
      throw new BrowserError('STALE_REF', 'the page navigated since this ref was read; read it again', { generation: tab.generation })
    }
    return match[1]!
  }

  /** What a ref names now: its role, name and tag; REF_NOT_FOUND once the element left the document. */
  async describeRef(principal: string, tabId: string, ref: string): Promise<{ role: string | null; name: string; tag: string }> {
    return this.#use(async () => {
      const tab = this.#tab(principal, tabId)
      const local = this.#localRef(tab, ref)
      const described = await tab.session.evaluate<{ role: string | null; name: string; tag: string } | null>(`__quireAgent.describe(${JSON.stringify(local)})`)
      if (described === null) throw new BrowserError('REF_NOT_FOUND', 'the element of this ref is no longer in the page')
      return described
    })
  }

  /** CSS query in the isolated world (BRR.QUERY.1–5): at most 50 elements, 500 characters of text each. */
  async query(principal: string, tabId: string, selector: string, fields: QueryFields = {}): Promise<QueryResult> {
    return this.#use(async () => {
      const tab = this.#tab(principal, tabId)
      if (typeof selector !== 'string' || selector.trim() === '') throw new BrowserError('INVALID_SELECTOR', 'selector must be a non-empty CSS selector')
      const generation = tab.generation
      const args = {
        selector, elementCap: QUERY_ELEMENT_CAP, textCap: QUERY_TEXT_CAP,
        fields: { attributes: fields.attributes === true, box: fields.box === true, styles: [...(fields.styles ?? [])] },
      }
      const result = await tab.session.evaluate<{ invalidSelector?: string; count: number; elements: QueryElement[] }>(`__quireAgent.query(${JSON.stringify(args)})`)
      if (result.invalidSelector !== undefined) throw new BrowserError('INVALID_SELECTOR', result.invalidSelector)
      return {
        url: redactUrl(tab.page.url()),
        count: result.count,
        elements: result.elements.map((element) => ({ ...element, ref: publicRef(element.ref, generation) })),
        ...(result.count > result.elements.length ? { truncated: true as const } : {}),
      }
    })
  }

  /** The tab's current rendering as a JPEG, quality capped (BRR.SCREENSHOT.1–2). */
  async screenshot(principal: string, tabId: string, options: { quality?: number } = {}): Promise<{ url: string; title: string; jpegBase64: string }> {
    return this.#use(async () => {
      const tab = this.#tab(principal, tabId)
      const quality = Math.max(1, Math.min(SCREENSHOT_MAX_QUALITY, Math.round(options.quality ?? 70)))
      const jpegBase64 = await tab.session.screenshot(quality)
      return { url: redactUrl(tab.page.url()), title: await this.#titleOf(tab), jpegBase64 }
    })
  }

  /** The main frame's console since the tab opened, newest 200 (BRR.CONSOLE.1–4, 6). */
  console(principal: string, tabId: string): { entries: readonly ConsoleEntry[]; url: string } {
    const tab = this.#tab(principal, tabId, 'ai-owned')
    return { entries: tab.session.console.entries(), url: redactUrl(tab.page.url()) }
  }

  /** What `console` would answer, and the ring emptied, so the next read sees only new output (BR.CONSOLE_CLEAR.1–2). */
  consoleClear(principal: string, tabId: string): { entries: readonly ConsoleEntry[]; url: string } {
    const tab = this.#tab(principal, tabId, 'ai-owned')
    return { entries: tab.session.console.drain(), url: redactUrl(tab.page.url()) }
  }

  /** A click, type, scroll or key on the page (BR.ACT.1–18); a refusal is thrown as ACT_REFUSED (see act.ts). */
  async act(principal: string, tabId: string, request: ActRequest): Promise<ActSuccess> {
    return this.#use(async () => runAct(this.#handle(this.#tab(principal, tabId)), request))
  }

  /** One style change on a ref or a selector's elements (BR.STYLE.1, BR.STYLE.3; see pageStyle.ts). */
  async style(principal: string, tabId: string, request: StyleTarget | (StyleTarget & StyleChange), change?: StyleChange): Promise<StyleResult> {
    return this.#use(async () => runStyle(this.#handle(this.#tab(principal, tabId)), request, change))
  }

  /** The tab's cookies and localStorage for `origin`, its committed page's origin (session_save; sessionSnapshot.ts). */
  async captureSession(principal: string, tabId: string, origin: string): Promise<SessionSnapshot> {
    return this.#use(async () => {
      const tab = this.#tab(principal, tabId)
      return captureSession(tab.page.context(), tab.session, origin)
    })
  }

  /**
   * Puts a saved session into the tab's cookie store and page, which must still be of its origin (session_load). A
   * session saved from a named profile carries its logins: the cookie store keeps that profile's rules from then on.
   */
  async restoreSession(principal: string, tabId: string, snapshot: SessionSnapshot, fromProfile?: string): Promise<void> {
    return this.#use(async () => {
      const tab = this.#tab(principal, tabId)
      if (fromProfile !== undefined) this.#carriedProfile.set(tab.page.context(), fromProfile)
      await restoreSession(tab.page.context(), tab.session, snapshot)
    })
  }

  /** A script in an isolated world of its own (BR.EXECUTE_JS.1–3, BR.GEN.6; see executeJs.ts). */
  async executeJs(principal: string, tabId: string, script: string, options: { timeoutMs?: number } = {}): Promise<ExecuteJsResult> {
    return this.#use(async () => runExecuteJs(this.#handle(this.#tab(principal, tabId)), script, options))
  }

  #handle(tab: Tab): TabHandle {
    return {
      session: tab.session,
      generation: () => tab.generation,
      url: () => redactUrl(tab.page.url()),
      localRef: (ref) => this.#localRef(tab, ref),
      publicRef,
    }
  }

  /**
   * Arms `workflow_record`'s capture shim on an AI-owned tab (recorderCapture.ts): the person's clicks and field edits
   * reach `sink` as locators, and each document the tab loads, until disarmed. Whether the person allowed it is the
   * caller's to have asked.
   */
  async armCapture(principal: string, tabId: string, sink: CaptureSink): Promise<ArmedCapture> {
    return this.#use(async () => armCapture(this.#tab(principal, tabId, 'ai-owned').page, sink))
  }

  /** Reader-mode Markdown of the page (BRR.EXTRACT.1–5). */
  async extract(principal: string, tabId: string): Promise<ExtractResult> {
    return this.#use(async () => {
      const tab = this.#tab(principal, tabId)
      const capture = await tab.session.evaluate<{ html: string; truncated: boolean }>(`__quireAgent.capture(${JSON.stringify({ htmlCap: EXTRACT_HTML_CAP })})`)
      const pageUrl = tab.page.url()
      // The reader libraries (linkedom, Readability, turndown) load on the first extract, not with every process.
      const { extractArticle } = await import('./extract.js')
      const article = extractArticle(capture.html, pageUrl, this.#options.siteReaders ?? BUILTIN_SITE_READERS)
      if (article === null) throw new BrowserError('PAGE_UNREADABLE', 'no article could be read from this page')
      return {
        title: article.title, byline: article.byline, url: redactUrl(pageUrl), markdown: article.markdown,
        textLength: article.textLength, truncated: capture.truncated,
      }
    })
  }

  /** Polls one condition until it holds or the time is up (BRR.WAIT_FOR.1–7). */
  async waitFor(principal: string, tabId: string, condition: WaitCondition, options: { timeoutMs?: number } = {}): Promise<{ matched: boolean; ref?: string }> {
    return this.#use(async () => {
      const timeoutMs = checkTimeout(options.timeoutMs)
      const tab = this.#tab(principal, tabId)
      const keys = Object.keys(condition).filter((key) => key !== 'name')
      if (keys.length !== 1 || ('name' in condition && !('role' in condition))) {
        throw new BrowserError('INVALID_ARGUMENT', 'give exactly one of ref, role (with an optional name), text, urlContains')
      }
      if ('urlContains' in condition && /[?#]/.test(condition.urlContains)) {
        throw new BrowserError('INVALID_ARGUMENT', 'urlContains is matched against the URL without query and fragment; it cannot contain ? or #')
      }
      const fixedRef = 'ref' in condition ? this.#localRef(tab, condition.ref) : undefined
      const generation = tab.generation
      const deadline = Date.now() + timeoutMs
      for (;;) {
        if (tab.closing || this.#tabs.get(tab.id) !== tab) throw new BrowserError('TAB_CLOSED', 'the tab closed while waiting')
        if (fixedRef !== undefined && tab.generation !== generation) {
          throw new BrowserError('STALE_REF', 'the page navigated while waiting on this ref; read it again', { generation: tab.generation })
        }
        const probing = this.#probe(tab, condition, fixedRef, generation)
        // A page whose main thread never comes back (a script busy for good) must not hold the call past its bound.
        const found = await Promise.race([probing, later<null>(Math.max(1, deadline - Date.now()))])
        if (found === 'timeout') {
          probing.catch(() => undefined)
          return { matched: false }
        }
        if (found !== null) return found
        if (Date.now() >= deadline) return { matched: false }
        await later(Math.min(POLL_MS, Math.max(1, deadline - Date.now())))
      }
    })
  }

  async #bringToFront(tab: Tab): Promise<void> {
    // Counted when asked, not when Chromium answers: a tab made front is the foreground from that moment on, and
    // two tabs brought forward at once keep the order they were asked in.
    tab.frontedAt = ++this.#fronts
    await tab.page.bringToFront()
  }

  /**
   * Runs `work` with the human tab `tabId` reachable for `principal`'s reads and acts: the MCP layer calls it only
   * once the person approved the attachment (BR.GEN.10, BRR.GEN.3, APPR.9). Only the calls made inside `work` see the
   * tab; close, navigate, wait and console still refuse it with TAB_NOT_AI_OWNED.
   */
  async attached<T>(principal: string, tabId: string, work: () => Promise<T>): Promise<T> {
    const tab = this.#tabs.get(tabId)
    if (!tab || tab.closing) throw new BrowserError('TAB_NOT_FOUND', `no tab ${tabId}`)
    if (tab.automationMode !== 'human') throw new BrowserError('INVALID_ARGUMENT', `${tabId} is not a human tab: an attachment is for the person's tabs`)
    return this.#attachment.run({ principal, tabId }, work)
  }

  /**
   * The tab a call without a tabId means (BRR.GEN.3): of this principal's AI tabs and the person's tabs, the one last
   * brought to the front. A human tab still needs `attached` to be read; other principals' tabs are never the answer.
   */
  foregroundTab(principal: string): { readonly tabId: string; readonly automationMode: AutomationMode } | null {
    let best: Tab | undefined
    for (const tab of this.#tabs.values()) {
      if (tab.closing || (tab.automationMode !== 'human' && tab.principal !== principal)) continue
      if (!best || tab.frontedAt > best.frontedAt) best = tab
    }
    return best ? { tabId: best.id, automationMode: best.automationMode } : null
  }

  /**
   * Every tab, the assistants' and the person's, for the person's tab strip. Listing starts no browser and does not
   * count as use: a console watching the list must not keep an idle browser up.
   */
  async listTabs(): Promise<PersonTabEntry[]> {
    const tabs = [...this.#tabs.values()].filter((tab) => !tab.closing)
    const front = Math.max(0, ...tabs.map((tab) => tab.frontedAt))
    return Promise.all(tabs.map(async (tab) => ({
      ...(await this.#state(tab)),
      automationMode: tab.automationMode,
      ...(tab.automationMode === 'human' ? {} : { principal: tab.principal }),
      ...(tab.profile !== undefined ? { profile: tab.profile } : {}),
      front: front > 0 && tab.frontedAt === front,
    })))
  }

  #personTab(tabId: string, human: boolean): Tab {
    const tab = this.#tabs.get(tabId)
    if (!tab || tab.closing) throw new BrowserError('TAB_NOT_FOUND', `no tab ${tabId}`)
    if (human && tab.automationMode !== 'human') throw new BrowserError('INVALID_ARGUMENT', `${tabId} is an assistant's tab, not one of the person's`)
    return tab
  }

  /** The person's own new tab, in their profile, brought to the front; answers once it loaded or MAX_WAIT_MS passed. */
  async openHumanTab(url: string): Promise<PersonTabEntry> {
    return this.#use(async () => {
      const target = checkUrl(url)
      let page: Page | undefined
      let session: PageSession
      try {
        page = await (await this.#contextFor(PERSON_TAB_OWNER, 'human')).newPage()
        session = await PageSession.attach(page)
      } catch (error) {
        await page?.close().catch(() => undefined)
        if (error instanceof BrowserError) throw error
        throw new BrowserError('BROWSER_UNAVAILABLE', `the tab could not be opened: ${(error as Error).message.split('\n', 1)[0]}`)
      }
      const tab = this.#register(PERSON_TAB_OWNER, 'human', page, session)
      return this.#personNavigate(tab, target)
    })
  }

  /** Loads `url` in one of the person's tabs (the address bar). */
  async navigateHumanTab(tabId: string, url: string): Promise<PersonTabEntry> {
    return this.#use(async () => {
      const target = checkUrl(url)
      return this.#personNavigate(this.#personTab(tabId, true), target)
    })
  }

  async #personNavigate(tab: Tab, url: string): Promise<PersonTabEntry> {
    // The person sees the page as it loads, or its error page: only a bad URL is refused.
    await this.#navigate(tab, url, MAX_WAIT_MS).catch((error: unknown) => {
      if (!(error instanceof BrowserError) || !['TIMEOUT', 'NAVIGATION_FAILED', 'NAVIGATION_SUPERSEDED'].includes(error.code)) throw error
    })
    return (await this.listTabs()).find((entry) => entry.tabId === tab.id) ?? this.#gone(tab.id)
  }

  #gone(tabId: string): never {
    throw new BrowserError('TAB_CLOSED', `${tabId} closed while loading`)
  }

  async closeHumanTab(tabId: string): Promise<{ tabId: string; closed: true }> {
    return this.#use(async () => {
      const tab = this.#personTab(tabId, true)
      tab.closing = true
      await tab.page.close()
      this.#dropTab(tab, 'closed')
      return { tabId, closed: true }
    })
  }

  /** The person picked a tab to watch: it comes to the front (headless Chromium draws frames only for that tab). */
  async bringToFront(tabId: string): Promise<void> {
    return this.#use(() => this.#bringToFront(this.#personTab(tabId, false)))
  }

  /**
   * The live view of any tab for the person: `onFrame` gets each JPEG the compositor draws. The tab comes to the
   * front; while a screencast runs, the browser is in use (no idle stop). The stopper is safe to call twice; a tab
   * that closes ends its screencast on its own (watch the `tab-closed` event).
   */
  async screencast(tabId: string, onFrame: (frame: ScreencastFrame) => void): Promise<() => Promise<void>> {
    return this.#use(async () => {
      const tab = this.#personTab(tabId, false)
      await this.#bringToFront(tab)
      const stop = await startScreencast(tab.page, onFrame)
      this.#busy++
      let stopped = false
      return async () => {
        if (stopped) return
        stopped = true
        this.#busy--
        this.#touch()
        await stop()
      }
    })
  }

  /** Where the elements an assistant asks to act on are on the tab's live view (liveOutline.ts). */
  async locateForPerson(tabId: string, role: string, name: string): Promise<LocatedOnFrames> {
    return this.#use(() => locateOnFrames(this.#personTab(tabId, false).page, role, name))
  }

  /** The person's click, wheel or key on the live view, sent to the page; emits `person-input` (runs yield to it). */
  async dispatchInput(tabId: string, input: PersonInput): Promise<void> {
    return this.#use(async () => {
      const tab = this.#personTab(tabId, false)
      this.#emit({ type: 'person-input', tabId })
      await dispatchPersonInput(tab.page, input)
    })
  }

  async #probe(tab: Tab, condition: WaitCondition, fixedRef: string | undefined, refGeneration: number): Promise<{ matched: true; ref?: string } | null> {
    // urlContains reads tab state, no page round-trip (BRR.WAIT_FOR.5), on the redacted URL (BRR.WAIT_FOR.6).
    if ('urlContains' in condition) return redactUrl(tab.page.url()).includes(condition.urlContains) ? { matched: true } : null
    try {
      if (fixedRef !== undefined) {
        const shown = await tab.session.evaluate<boolean | null>(`__quireAgent.refRendered(${JSON.stringify(fixedRef)})`)
        return shown === true && tab.generation === refGeneration ? { matched: true, ref: publicRef(fixedRef, refGeneration) } : null
      }
      if ('role' in condition) {
        const generation = tab.generation
        const args = { role: condition.role, name: condition.name, nodeCap: READ_NODE_CAP, nameCap: READ_NAME_CAP, walkCap: READ_WALK_CAP }
        const ref = await tab.session.evaluate<string | null>(`__quireAgent.findRole(${JSON.stringify(args)})`)
        return ref === null || generation !== tab.generation ? null : { matched: true, ref: publicRef(ref, generation) }
      }
      const { text } = condition as { readonly text: string }
      const present = await tab.session.evaluate<boolean>(`__quireAgent.hasText(${JSON.stringify(text)})`)
      return present ? { matched: true } : null
    } catch (error) {
      // A document between navigations has nothing to match yet; the next poll looks again.
      if (error instanceof BrowserError) throw error
      return null
    }
  }
}
