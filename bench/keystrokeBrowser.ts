import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { build } from 'esbuild'
import { chromium, type Browser, type Page } from 'playwright-core'
import { processCpuMs } from './mcpSupport.js'
import { arrivedType, connectPeer, epochMs, nextChange, seedDocument, until, type KeystrokeMode, type KeystrokeServer } from './keystrokePeers.js'
import { percentile } from './util.js'
import { SOURCE_TEXT } from '../core/markdown/mirror.js'

const REPO = fileURLToPath(new URL('../../', import.meta.url))

/** The system Chromium, headless, as the specs launch it. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.QUIRE_CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  })
}

/**
 * Marks each keystroke's paint: a key down arms it, the editor's first DOM change after it asks for an animation
 * frame, and that frame's time (epoch ms) is recorded: the frame that paints the character.
 */
const INSTRUMENT = `((selector) => {
  const root = document.querySelector(selector)
  const state = { painted: [], armed: false }
  globalThis.keystroke = state
  new MutationObserver(() => {
    if (!state.armed) return
    state.armed = false
    requestAnimationFrame(() => state.painted.push(performance.timeOrigin + performance.now()))
  }).observe(root, { subtree: true, childList: true, characterData: true })
  root.addEventListener('keydown', () => { state.armed = true }, true)
})`

export interface BrowserKeystrokes {
  /** Key sent to the character painted, ms. */
  readonly paintP50: number
  /** Key sent to the keystroke at another peer (Quire: durable in the log and bridged), ms. */
  readonly arrivedP50: number
  /** The page's main-thread task time per keystroke (CDP Performance.TaskDuration), ms. */
  readonly clientMs: number
  /** The server process's CPU per keystroke while the person typed, ms. */
  readonly serverCpuMs: number
}

/** Where the typing happens: an open page with the editor mounted, the server behind it, and its observer peer's room. */
export interface TypingTarget {
  readonly page: Page
  readonly server: KeystrokeServer
  readonly room: string
  readonly mode: KeystrokeMode
  readonly contentLength: number
}

/**
 * A person typing `keys` characters at the end of the document, one at a time: each key is pressed once the
 * previous one was painted and reached the observer, and `gapMs` passed (a typist's pause, in which whatever the
 * page does after a change runs, and delays the next key if it is longer).
 */
export async function typeKeys(target: TypingTarget, keys: number, gapMs: number, profileTo?: string): Promise<BrowserKeystrokes> {
  const { page, server, mode } = target
  const selector = mode === 'wysiwyg' ? '.ProseMirror' : '.cm-content'
  const observer = connectPeer(server, target.room)
  try {
    await until(observer, () => observer.doc.getText(SOURCE_TEXT).length >= target.contentLength)
    await page.focus(selector)
    await page.keyboard.press('Control+End')
    await sleep(1000)
    await page.evaluate(`${INSTRUMENT}(${JSON.stringify(selector)})`)
    const cdp = await page.context().newCDPSession(page)
    await cdp.send('Performance.enable')
    const taskDuration = async () => ((await cdp.send('Performance.getMetrics')).metrics.find((metric) => metric.name === 'TaskDuration')?.value ?? Number.NaN) * 1000
    if (profileTo) {
      await cdp.send('Profiler.enable')
      await cdp.send('Profiler.start')
    }
    const type = arrivedType(server, mode, observer.doc)
    const paints: number[] = []
    const arrivals: number[] = []
    const cpuBefore = processCpuMs(server.pid)
    const clientBefore = await taskDuration()
    for (let i = 0; i < keys; i++) {
      const arrived = nextChange(observer, type)
      const sent = epochMs()
      await page.keyboard.press('x')
      await waitInPage(page, `globalThis.keystroke.painted.length > ${i}`, 60_000, 2)
      const painted = (await page.evaluate(`globalThis.keystroke.painted[${i}]`)) as number
      paints.push(painted - sent)
      arrivals.push((await arrived) - sent)
      await sleep(gapMs)
    }
    const clientMs = ((await taskDuration()) - clientBefore) / keys
    const serverCpuMs = (processCpuMs(server.pid) - cpuBefore) / keys
    if (profileTo) {
      const { profile } = await cdp.send('Profiler.stop')
      await mkdir(profileTo, { recursive: true })
      await writeFile(join(profileTo, `chromium-${server.name.replace(' ', '-')}-${mode}-${Date.now()}.cpuprofile`), JSON.stringify(profile))
    }
    await cdp.detach()
    return { paintP50: percentile(paints, 50), arrivedP50: percentile(arrivals, 50), clientMs, serverCpuMs }
  } finally {
    observer.close()
  }
}

/**
 * Polls `expression` in the page until it is true. Not `waitForFunction`: the console's content security policy
 * forbids the eval its polling uses, while an evaluation through the DevTools protocol is allowed.
 */
async function waitInPage(page: Page, expression: string, timeoutMs: number, intervalMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while ((await page.evaluate(expression)) !== true) {
    if (Date.now() > deadline) throw new Error(`still not true after ${timeoutMs} ms: ${expression}`)
    await sleep(intervalMs)
  }
}

/** The console signed in with the daemon's token, its tab `tabId` open in `mode`, the editor mounted and synced. */
export async function openConsoleTab(browser: Browser, consoleUrl: string, tabId: string, mode: KeystrokeMode): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 760 } })
  // The mode the person last used on the tab, before the console opens it (it may open the newest tab at once): a
  // source-mode person never asks for the mirror, so the bridge does not run.
  await context.addInitScript(`sessionStorage.setItem(${JSON.stringify(`quire.console.mode.${tabId}`)}, ${JSON.stringify(mode)})`)
  const page = await context.newPage()
  await page.goto(consoleUrl)
  await page.locator('.tabstrip').waitFor()
  await page.locator(`.tab[data-tab-id="${tabId}"]`).click()
  const ready = `(() => { const e = globalThis.quireConsole.editor(); return e !== null && e.tabId === ${JSON.stringify(tabId)} && e.mode === ${JSON.stringify(mode)} && e.mounted && e.connection === 'synced' })()`
  await waitInPage(page, ready, 120_000, 200)
  return page
}

/** The reference page (keystrokePage.js) bundled once, served with the console's CSS on a loopback port. */
export interface ReferencePages {
  open(browser: Browser, server: KeystrokeServer, room: string, mode: KeystrokeMode): Promise<Page>
  close(): Promise<void>
}

export async function serveReferencePages(): Promise<ReferencePages> {
  const outdir = join(REPO, 'dist', 'bench-keystroke-page')
  await build({
    absWorkingDir: REPO,
    entryPoints: [
      { in: 'bench/keystrokePage.js', out: 'page' },
      { in: 'web/console/console.css', out: 'page' },
    ],
    outdir,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome115'],
    minify: true,
    logLevel: 'warning',
  })
  const files: Record<string, { type: string; body: Buffer | string }> = {
    '/': { type: 'text/html', body: '<!doctype html><html><head><link rel="stylesheet" href="/page.css"></head><body><div id="editor"></div><script type="module" src="/page.js"></script></body></html>' },
    '/page.js': { type: 'text/javascript', body: await readFile(join(outdir, 'page.js')) },
    '/page.css': { type: 'text/css', body: await readFile(join(outdir, 'page.css')) },
  }
  const http: Server = createServer((request, response) => {
    const file = files[new URL(request.url ?? '/', 'http://localhost').pathname]
    if (!file) {
      response.writeHead(404).end()
      return
    }
    response.writeHead(200, { 'content-type': file.type }).end(file.body)
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  const port = (http.address() as AddressInfo).port
  return {
    async open(browser, server, room, mode) {
      const context = await browser.newContext({ viewport: { width: 1200, height: 760 } })
      const page = await context.newPage()
      const query = new URLSearchParams({ ws: server.url, room, mode })
      await page.goto(`http://127.0.0.1:${port}/?${query}`)
      await waitInPage(page, 'globalThis.keystrokeReady === true', 120_000, 200)
      return page
    },
    close: () => new Promise<void>((resolve) => http.close(() => resolve())),
  }
}

/** A plain Yjs room holding `content` (and its mirror in WYSIWYG mode), kept by a seeding peer until `release`. */
export async function seedReferenceRoom(server: KeystrokeServer, room: string, content: string, mode: KeystrokeMode): Promise<{ release(): void }> {
  const seeder = connectPeer(server, room, {}, seedDocument(content, mode))
  await new Promise<void>((resolve) => (seeder.provider.synced ? resolve() : seeder.provider.once('sync', () => resolve())))
  // Let the upload reach the server before another peer asks for the room.
  await sleep(200)
  return { release: () => seeder.close() }
}
