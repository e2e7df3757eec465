import type { CDPSession, Page } from 'playwright-core'
import { AGENT_LIB_SOURCE } from './agentLib.js'
import { ConsoleRing, type ConsoleEntry } from './consoleRing.js'
import { BrowserError } from './errors.js'

/**
 * The engine's own DevTools session on one page. Everything the engine reads goes through here, so that reads run in
 * an isolated world (never the page's), screenshots come from the compositor, and console capture needs no shim in
 * the page (BRR.CONSOLE.5's no-bridge guarantee holds trivially: the page has nothing to talk to).
 */

const WORLD_NAME = 'quire-agent'
const SCREENSHOT_ATTEMPTS = 4

interface RemoteObject {
  readonly type: string
  readonly value?: unknown
  readonly unserializableValue?: string
  readonly description?: string
}
interface ExceptionDetails {
  readonly text: string
  readonly executionContextId?: number
  readonly exception?: RemoteObject
}
interface DomNode {
  readonly children?: readonly DomNode[]
  readonly shadowRoots?: readonly (DomNode & { readonly shadowRootType?: string })[]
  readonly contentDocument?: DomNode
  readonly templateContent?: DomNode
}

const CONSOLE_LEVELS: Readonly<Record<string, ConsoleEntry['level']>> = {
  log: 'log', info: 'info', warning: 'warn', error: 'error', debug: 'debug', assert: 'error', trace: 'log', dir: 'log',
}

function describeValue(object: RemoteObject | undefined): string {
  if (object === undefined) return ''
  if (object.type === 'string') return String(object.value)
  if (object.unserializableValue !== undefined) return object.unserializableValue
  if (object.description !== undefined) return object.description
  return object.value === undefined ? object.type : JSON.stringify(object.value)
}

/** `Error: boom\n    at …` → `Error: boom`: the stack is the page's detail, not the message. */
function firstLine(text: string): string {
  return text.split('\n', 1)[0] ?? ''
}

/**
 * How long a read waits for the page: a page whose main thread never comes back (a script busy for good) must not
 * hold the assistant's call for a minute. The same bound as every wait of the browser tools (MAX_WAIT_MS).
 */
const PAGE_ANSWER_MS = 9_000

/** `request`, or EVAL_TIMEOUT when the page has not answered within PAGE_ANSWER_MS. */
async function answeredWithin<T>(request: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const expired = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), PAGE_ANSWER_MS)
  })
  try {
    const outcome = await Promise.race([request, expired])
    if (outcome === 'timeout') {
      request.catch(() => undefined)
      throw new BrowserError('EVAL_TIMEOUT', `the page did not answer within ${PAGE_ANSWER_MS / 1000} s (its main thread is busy); try again later`, { detail: { indeterminate: true } })
    }
    return outcome
  } finally {
    clearTimeout(timer)
  }
}

export class PageSession {
  readonly console = new ConsoleRing()
  #mainFrameId = ''
  #contextFrames = new Map<number, string>()
  #world: number | undefined
  #loading = false
  #popups: string[] = []
  #scriptWorlds = 0

  private constructor(private readonly cdp: CDPSession) {}

  /**
   * The engine's session on `page`. With `allowDocument`, every document request of the page (its main frame's and
   * its frames', each redirect hop included) waits for that answer before it leaves the browser, and a refused one
   * fails as `net::ERR_BLOCKED_BY_CLIENT`: an assistant's tab goes nowhere its rules do not allow (navigationGuard.ts).
   */
  static async attach(page: Page, options: { readonly allowDocument?: (url: string, mainFrame: boolean) => boolean } = {}): Promise<PageSession> {
    const cdp = await page.context().newCDPSession(page)
    const session = new PageSession(cdp)
    await session.#start()
    if (options.allowDocument) await session.#guardDocuments(options.allowDocument)
    return session
  }

  async #guardDocuments(allow: (url: string, mainFrame: boolean) => boolean): Promise<void> {
    this.cdp.on('Fetch.requestPaused', ({ requestId, request, frameId }) => {
      const allowed = allow(request.url, frameId === this.#mainFrameId)
      const answer = allowed ? this.cdp.send('Fetch.continueRequest', { requestId }) : this.cdp.send('Fetch.failRequest', { requestId, errorReason: 'BlockedByClient' })
      // A page closed in between has no request left to answer.
      answer.catch(() => undefined)
    })
    await this.cdp.send('Fetch.enable', { patterns: [{ urlPattern: '*', resourceType: 'Document', requestStage: 'Request' }] })
  }

  async #start(): Promise<void> {
    const cdp = this.cdp
    cdp.on('Runtime.executionContextCreated', ({ context }) => {
      const frameId = (context.auxData as { frameId?: string } | undefined)?.frameId
      if (frameId !== undefined) this.#contextFrames.set(context.id, frameId)
    })
    cdp.on('Runtime.executionContextDestroyed', ({ executionContextId }) => {
      this.#contextFrames.delete(executionContextId)
      if (executionContextId === this.#world) this.#world = undefined
    })
    cdp.on('Runtime.executionContextsCleared', () => {
      this.#contextFrames.clear()
      this.#world = undefined
    })
    cdp.on('Runtime.consoleAPICalled', (event) => {
      if (!this.#inMainFrame(event.executionContextId)) return
      const level = CONSOLE_LEVELS[event.type]
      if (level === undefined) return
      this.console.push(level, event.args.map((arg) => describeValue(arg as RemoteObject)).join(' '))
    })
    cdp.on('Runtime.exceptionThrown', ({ exceptionDetails }) => {
      const details = exceptionDetails as ExceptionDetails
      if (details.executionContextId !== undefined && !this.#inMainFrame(details.executionContextId)) return
      const what = firstLine(details.exception ? describeValue(details.exception) : details.text)
      if (details.text.includes('(in promise)')) this.console.push('error', `Unhandled rejection: ${what}`)
      else this.console.push('error', `Uncaught ${what}`)
    })
    cdp.on('Page.frameStartedLoading', ({ frameId }) => {
      if (frameId === this.#mainFrameId) this.#loading = true
    })
    cdp.on('Page.frameStoppedLoading', ({ frameId }) => {
      if (frameId === this.#mainFrameId) this.#loading = false
    })
    cdp.on('Page.windowOpen', ({ url }) => {
      this.#popups.push(url)
    })
    await cdp.send('Page.enable')
    const { frameTree } = await cdp.send('Page.getFrameTree')
    this.#mainFrameId = frameTree.frame.id
    await cdp.send('Runtime.enable')
  }

  #inMainFrame(contextId: number): boolean {
    return this.#contextFrames.get(contextId) === this.#mainFrameId
  }

  get loading(): boolean {
    return this.#loading
  }

  /** Calls `listener` with each URL the page tries to open as a window from now on; returns the unsubscriber. */
  onWindowOpen(listener: (url: string) => void): () => void {
    const forward = ({ url }: { url: string }): void => listener(url)
    this.cdp.on('Page.windowOpen', forward)
    return () => this.cdp.off('Page.windowOpen', forward)
  }

  /** The URLs the page tried to open as windows since the last call (they were closed, never shown: BR.ACT.15). */
  takePopups(): string[] {
    return this.#popups.splice(0)
  }

  /**
   * The page's own title, '' when it has none. Chromium's tab title falls back to the page's URL, query and fragment
   * included; the navigation entry keeps the title the page set, and nothing else.
   */
  async title(): Promise<string> {
    return (await this.#currentEntry())?.title ?? ''
  }

  /** The URL the tab's current navigation entry is for: the page's, or the one that failed on an error page. */
  async entryUrl(): Promise<string | undefined> {
    return (await this.#currentEntry())?.url
  }

  async #currentEntry(): Promise<{ url: string; title: string } | undefined> {
    const { currentIndex, entries } = await this.cdp.send('Page.getNavigationHistory')
    return entries[currentIndex]
  }

  /**
   * Runs `expression` (which may use `__quireAgent`) in the isolated world of the main frame's current document.
   * A navigation destroys the world's context; the call then retries once in the new document's world. With `once`
   * (for expressions that change the page) it retries only when the old context was already gone before anything
   * ran, never after a context was destroyed under a running call: the change must not happen twice.
   */
  async evaluate<T>(expression: string, options: { readonly once?: boolean } = {}): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const world = this.#world ?? (await this.#createWorld())
      try {
        const result = await answeredWithin(this.cdp.send('Runtime.evaluate', {
          expression, contextId: world, returnByValue: true, awaitPromise: true,
        }))
        if (result.exceptionDetails) {
          throw new BrowserError('PAGE_UNREADABLE', firstLine(describeValue(result.exceptionDetails.exception as RemoteObject) || result.exceptionDetails.text))
        }
        return result.result.value as T
      } catch (error) {
        const gone = error instanceof Error && (options.once ? /Cannot find context/i : /Cannot find context|context was destroyed|Execution context/i).test(error.message)
        if (!gone || attempt > 0) throw error
        this.#world = undefined
      }
    }
  }

  async #createWorld(): Promise<number> {
    const { executionContextId } = await this.cdp.send('Page.createIsolatedWorld', {
      frameId: this.#mainFrameId, worldName: WORLD_NAME, grantUniveralAccess: false,
    })
    await this.cdp.send('Runtime.evaluate', { expression: AGENT_LIB_SOURCE, contextId: executionContextId, returnByValue: true })
    this.#world = executionContextId
    return executionContextId
  }

  /**
   * Runs `expression` in an isolated world of its own, made for this call only: it shares the DOM but neither the
   * page's globals nor the agent library's world, so what it leaves behind cannot reach the ref store. Answers
   * 'timeout' when it has not finished within `timeoutMs`; JavaScript still running then, before or after an await,
   * is terminated by Chromium (Runtime.evaluate's `timeout`), so a runaway script cannot hang the tab.
   */
  async evaluateInFreshWorld(expression: string, timeoutMs: number): Promise<{ value: unknown } | { exception: string } | 'timeout'> {
    const { executionContextId } = await this.cdp.send('Page.createIsolatedWorld', {
      frameId: this.#mainFrameId, worldName: `quire-script-${++this.#scriptWorlds}`, grantUniveralAccess: false,
    })
    const running = this.cdp.send('Runtime.evaluate', {
      expression, contextId: executionContextId, returnByValue: true, awaitPromise: true, timeout: timeoutMs,
    })
    let timer: NodeJS.Timeout | undefined
    const expired = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs)
    })
    try {
      const outcome = await Promise.race([running, expired])
      if (outcome === 'timeout') {
        running.catch(() => undefined)
        return 'timeout'
      }
      if (outcome.exceptionDetails) {
        const details = outcome.exceptionDetails as ExceptionDetails
        // Chromium's own termination of a run past `timeout` comes back as an exception.
        if (/Execution was terminated/i.test(details.text) || /Execution was terminated/i.test(describeValue(details.exception))) return 'timeout'
        return { exception: firstLine(describeValue(details.exception) || details.text) }
      }
      return { value: outcome.result.value }
    } finally {
      clearTimeout(timer)
    }
  }

  /**
   * Closed shadow roots in the main document that a DOM walk meets but cannot enter (BRR.READ.6). No page script can
   * see them; the DevTools DOM domain can, without running anything in the page. Roots nested inside a closed root
   * are not counted: the walk never gets that far.
   */
  async closedShadowRoots(): Promise<number> {
    const { root } = await this.cdp.send('DOM.getDocument', { depth: -1, pierce: true })
    let closed = 0
    const visit = (node: DomNode): void => {
      for (const shadow of node.shadowRoots ?? []) {
        if (shadow.shadowRootType === 'closed') closed++
        else visit(shadow)
      }
      for (const child of node.children ?? []) visit(child)
      if (node.contentDocument) visit(node.contentDocument)
    }
    visit(root as DomNode)
    return closed
  }

  /** The compositor's rendering as JPEG: no DOM is read and no page JavaScript runs (BRR.SCREENSHOT.2). */
  async screenshot(quality: number): Promise<string> {
    for (let attempt = 1; ; attempt++) {
      try {
        const { data } = await answeredWithin(this.cdp.send('Page.captureScreenshot', { format: 'jpeg', quality }))
        return data
      } catch (error) {
        // Headless Chromium refuses a capture while a background tab has no frame yet ("Unable to capture
        // screenshot"); bringing the tab to the front makes the compositor draw one.
        if (attempt >= SCREENSHOT_ATTEMPTS || !String(error).includes('Unable to capture screenshot')) throw error
        await this.cdp.send('Page.bringToFront').catch(() => undefined)
        await new Promise((resolve) => setTimeout(resolve, 50 * attempt))
      }
    }
  }

  async detach(): Promise<void> {
    await this.cdp.detach().catch(() => undefined)
  }
}
