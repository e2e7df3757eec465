import { mkdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { afterEach } from 'vitest'
import { launchDaemon, REPO_ROOT, tempDir, type Daemon, type Session } from './mcpHarness.js'

/**
 * Uncaught errors of any console page, since the last test ended: a JavaScript error in the person's editor fails
 * the test it happened in (or the next one, if it came between tests), even when everything it checked looked right.
 */
const pageErrors: string[] = []

// Registered once per test file that uses this rig (hooks at a module's top level attach to the file's root suite).
afterEach(() => {
  const errors = pageErrors.splice(0)
  if (errors.length > 0) throw new Error(`the console threw ${errors.length} uncaught error(s):\n${errors.join('\n')}`)
})

function watchPage(page: Page): void {
  page.on('pageerror', (error) => pageErrors.push(`${error.name}: ${error.message}\n${error.stack ?? ''}`))
}

function watchContext(context: BrowserContext): BrowserContext {
  for (const page of context.pages()) watchPage(page)
  context.on('page', watchPage)
  return context
}

/**
 * The system Chromium (never a downloaded one), headless, with everything that phones home switched off. Every page
 * opened in it is watched for uncaught errors (see `pageErrors`), whichever way a test opens it.
 */
export async function launchChromium(): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: process.env.QUIRE_CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  })
  // `browser.newPage` makes its context through `this.newContext`, so this one wrapper covers both.
  const newContext = browser.newContext.bind(browser)
  browser.newContext = async (...args) => watchContext(await newContext(...args))
  return browser
}

/** The shape of `window.quireConsole` (web/console/introspection.ts), restated here: specs compile without DOM types. */
export interface ConsoleEditor {
  readonly tabId: string
  readonly docId: string
  readonly window: string
  readonly mode: 'wysiwyg' | 'source'
  readonly mounted: boolean
  readonly connection: 'connecting' | 'synced' | 'offline'
  readonly text: string | null
  readonly selection: { readonly anchor: number; readonly head: number } | null
  readonly presence: {
    readonly window: string
    readonly tabId: string
    readonly focused: boolean
    readonly mode: 'wysiwyg' | 'source'
    readonly composing: boolean
    readonly compositionEndedAt: number | null
    readonly selection: unknown
  }
}
interface Rect {
  readonly left: number
  readonly right: number
  readonly top: number
  readonly bottom: number
}
interface Introspected {
  readonly quireConsole: { editor(): ConsoleEditor | null; coordsAt(pos: number): Rect | null }
}

/** Opens the console as a person would, from the link `quire serve` prints. */
export async function openConsole(browser: Browser, daemon: Daemon): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 760 } })
  const page = await context.newPage()
  await page.goto(`${daemon.url}/?token=${daemon.token}`)
  await page.locator('.tabstrip').waitFor()
  return page
}

/** The open editor as the page sees it, or null when no document is open. */
export function consoleEditor(page: Page): Promise<ConsoleEditor | null> {
  return page.evaluate(() => (globalThis as unknown as Introspected).quireConsole.editor())
}

export async function coordsAt(page: Page, pos: number): Promise<Rect> {
  const rect = await page.evaluate((at) => (globalThis as unknown as Introspected).quireConsole.coordsAt(at), pos)
  if (!rect) throw new Error(`position ${pos} is not on screen`)
  return rect
}

/** Activates a tab by clicking it in the tab strip, then waits for its editor to be mounted and synced in `mode`. */
export async function openTab(page: Page, tabId: string, mode: 'wysiwyg' | 'source'): Promise<ConsoleEditor> {
  await page.locator(`.tab[data-tab-id="${tabId}"]`).click()
  // A WYSIWYG view waits for the server's mirror before it mounts, so wait for the session, not the editor.
  await eventually(() => consoleEditor(page), (editor) => editor?.tabId === tabId && editor.connection === 'synced')
  const current = await consoleEditor(page)
  if (current?.mode !== mode) await page.locator(`.mode-switch [data-mode="${mode}"]`).click()
  return eventually(
    () => consoleEditor(page),
    (editor): editor is ConsoleEditor => editor?.tabId === tabId && editor.mode === mode && editor.mounted && editor.connection === 'synced',
  ) as Promise<ConsoleEditor>
}

/** Polls until `accept` holds (the daemon, the browser and the editor all settle asynchronously). */
export async function eventually<T>(read: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  let last: T = await read()
  while (!accept(last)) {
    if (Date.now() > deadline) throw new Error(`still not as expected after ${timeoutMs} ms; last: ${JSON.stringify(last)}`)
    await sleep(50)
    last = await read()
  }
  return last
}

/** Saves what the person saw, for a human to look at after the run: test-artifacts/screenshots/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  const folder = join(REPO_ROOT, 'test-artifacts', 'screenshots')
  await mkdir(folder, { recursive: true })
  await page.screenshot({ path: join(folder, `${name.replace(/[^A-Za-z0-9._-]+/g, '-')}.png`) })
}

/** One daemon with a workspace folder, an MCP session to it, Chromium, and (unless asked not to) the console open. */
export interface ConsoleRig {
  readonly folder: string
  readonly daemon: Daemon
  readonly mcp: Session
  readonly browser: Browser
  readonly page: Page
  close(): Promise<void>
}

export async function consoleRig(prefix: string): Promise<ConsoleRig> {
  const folder = await tempDir(prefix)
  const daemon = await launchDaemon({ workspaces: [folder] })
  const mcp = await daemon.connect()
  const browser = await launchChromium()
  const page = await openConsole(browser, daemon)
  return {
    folder, daemon, mcp, browser, page,
    async close() {
      await browser.close()
      await mcp.close()
      await daemon.stop()
      await rm(folder, { recursive: true, force: true })
    },
  }
}

/** An assistant with its own token (so its name is the principal on all it does), connected to the rig's daemon. */
export async function connectAgent(rig: ConsoleRig, name: string): Promise<Session> {
  const added = await fetch(`${rig.daemon.url}/admin/agents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${rig.daemon.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  })
  return rig.daemon.connect(((await added.json()) as { token: string }).token)
}
