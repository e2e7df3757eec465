import { mkdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Browser } from 'playwright-core'
import { launchDaemon, type Daemon, type McpConnection } from './mcpSupport.js'
import { startReference, type FanoutServer } from './fanoutServers.js'
import { launchChromium, openConsoleTab, seedReferenceRoom, serveReferencePages, typeKeys, type BrowserKeystrokes } from './keystrokeBrowser.js'
import { keystrokeDocument, serverKeystrokes, type KeystrokeMode, type KeystrokeServer, type ServerKeystrokes } from './keystrokePeers.js'
import { fmtMs, fmtRatio, printTable, printTargets, tempDir, unjudged, type Benchmark, type RunOptions, type TargetResult } from './util.js'

/**
 * The person's keystroke against document size (10 KB, 1 MiB, 3 MiB, 8 MiB), in WYSIWYG and in source mode, Quire
 * against the same editors on a plain Yjs server (@y/websocket-server, no bridge, no log) in the same run:
 *
 * - in Chromium, the console typing at the end of the document: key sent to the character painted (the animation
 *   frame after the editor's DOM changed), key sent to the keystroke at another peer (Quire fans out once the
 *   append is durable, and a WYSIWYG keystroke counts once the bridge carried it to `source`), the page's
 *   main-thread time and the server's CPU per key. The reference page is the console's own editor module
 *   (keystrokePage.js) without the console around it.
 * - the server alone: a typist and an observer peer in this process, the server's CPU per keystroke (Quire: the
 *   bridge, serialization, append and fan-out) and the keystroke's latency to the observer.
 *
 * Environment (full runs): QUIRE_BENCH_KEYSTROKE_SIZES (comma-separated KiB, default 10,1024,3072,8192),
 * QUIRE_BENCH_KEYSTROKE_KEYS (browser keys per phase, default 20), QUIRE_BENCH_KEYSTROKE_SERVER_KEYS (server-alone
 * keystrokes, default 100), QUIRE_BENCH_KEYSTROKE_MODES (wysiwyg,source), QUIRE_BENCH_KEYSTROKE_PROFILE (a directory:
 * Chromium CPU profiles of each typing phase; the daemon's come from QUIRE_BENCH_MCP_NODE_ARGS="--cpu-prof …").
 */

const MODES: readonly KeystrokeMode[] = ['wysiwyg', 'source']
/** A typist's pause between keys in the browser (and the server-alone typist's). */
const BROWSER_GAP_MS = 150
const SERVER_GAP_MS = 20

interface Sizes {
  readonly sizesKiB: readonly number[]
  readonly modes: readonly KeystrokeMode[]
  readonly browserKeys: number
  readonly serverKeys: number
  readonly profile: string | undefined
}

function sizesOf(options: RunOptions): Sizes {
  const list = (variable: string, fallback: string) => (process.env[variable] ?? fallback).split(',').map((part) => part.trim()).filter(Boolean)
  if (options.smoke) return { sizesKiB: [10], modes: MODES, browserKeys: 4, serverKeys: 10, profile: undefined }
  return {
    sizesKiB: list('QUIRE_BENCH_KEYSTROKE_SIZES', '10,1024,3072,8192').map(Number),
    modes: list('QUIRE_BENCH_KEYSTROKE_MODES', MODES.join(',')).filter((mode): mode is KeystrokeMode => mode === 'wysiwyg' || mode === 'source'),
    browserKeys: Number(process.env.QUIRE_BENCH_KEYSTROKE_KEYS ?? 20),
    serverKeys: Number(process.env.QUIRE_BENCH_KEYSTROKE_SERVER_KEYS ?? 100),
    profile: process.env.QUIRE_BENCH_KEYSTROKE_PROFILE,
  }
}

interface Row {
  readonly kib: number
  readonly mode: KeystrokeMode
  readonly quire: { readonly browser: BrowserKeystrokes; readonly alone: ServerKeystrokes }
  readonly plain: { readonly browser: BrowserKeystrokes; readonly alone: ServerKeystrokes }
}

/** Quire's daemon with an MCP connection that makes its documents, and the console's address. */
interface QuireSide {
  readonly daemon: Daemon
  readonly mcp: McpConnection
  readonly server: KeystrokeServer
  readonly consoleUrl: string
  newDocument(content: string): Promise<{ tabId: string; docId: string }>
}

async function startQuireSide(home: string, workspace: string): Promise<QuireSide> {
  const daemon = await launchDaemon(home, workspace)
  const [port, token] = (await readFile(join(home, 'port'), 'utf8')).trim().split(':') as [string, string]
  const mcp = await daemon.connect('keystroke')
  return {
    daemon,
    mcp,
    server: { name: 'quire', pid: daemon.pid, url: `ws://127.0.0.1:${port}/collab`, params: { token } },
    consoleUrl: `http://127.0.0.1:${port}/?token=${token}`,
    async newDocument(content) {
      const { tabId } = (await mcp.call('workspace', { action: 'new' })) as { tabId: string }
      await mcp.call('document', { action: 'write', tabId, content, save: false })
      const response = await fetch(`http://127.0.0.1:${port}/collab`, { headers: { authorization: `Bearer ${token}` } })
      const listing = (await response.json()) as { windows: { tabs: { tabId: string; docId: string }[] }[] }
      const docId = listing.windows.flatMap((window) => window.tabs).find((tab) => tab.tabId === tabId)?.docId
      if (!docId) throw new Error(`GET /collab does not list tab ${tabId}`)
      return { tabId, docId }
    },
  }
}

function referenceServer(reference: FanoutServer): KeystrokeServer {
  return { name: 'plain yjs', pid: reference.pid, url: reference.url, params: {} }
}

async function measureSize(sizes: Sizes, kib: number, mode: KeystrokeMode, quire: QuireSide, reference: KeystrokeServer, browser: Browser, pages: Awaited<ReturnType<typeof serveReferencePages>>): Promise<Row> {
  const content = keystrokeDocument(kib * 1024)
  const room = `keystroke-${kib}-${mode}`
  const { tabId, docId } = await quire.newDocument(content)
  // The server alone first (a WYSIWYG typist attaches the mirror, as the console would), then the person in Chromium.
  const quireAlone = await serverKeystrokes(quire.server, docId, mode, content, sizes.serverKeys, SERVER_GAP_MS)
  const plainAlone = await serverKeystrokes(reference, `${room}-alone`, mode, content, sizes.serverKeys, SERVER_GAP_MS)
  const typedAlone = sizes.serverKeys
  const quirePage = await openConsoleTab(browser, quire.consoleUrl, tabId, mode)
  const quireBrowser = await typeKeys({ page: quirePage, server: quire.server, room: docId, mode, contentLength: content.length + typedAlone }, sizes.browserKeys, BROWSER_GAP_MS, sizes.profile)
  await quirePage.context().close()
  const seeded = await seedReferenceRoom(reference, `${room}-page`, content, mode)
  const plainPage = await pages.open(browser, reference, `${room}-page`, mode)
  const plainBrowser = await typeKeys({ page: plainPage, server: reference, room: `${room}-page`, mode, contentLength: content.length }, sizes.browserKeys, BROWSER_GAP_MS, sizes.profile)
  await plainPage.context().close()
  seeded.release()
  const row = { kib, mode, quire: { browser: quireBrowser, alone: quireAlone }, plain: { browser: plainBrowser, alone: plainAlone } }
  printRows([row])
  return row
}

const sizeLabel = (kib: number): string => (kib >= 1024 ? `${kib / 1024} MiB` : `${kib} KB`)

function printRows(rows: readonly Row[]): void {
  printTable(
    'keystroke: Quire / plain Yjs (same editor, same run)',
    ['size', 'mode', 'paint p50', 'durable p50', 'page ms/key', 'server CPU/key (console)', 'server alone CPU/key', 'server alone p50'],
    rows.map((row) => [
      sizeLabel(row.kib),
      row.mode,
      pair(row.quire.browser.paintP50, row.plain.browser.paintP50),
      pair(row.quire.browser.arrivedP50, row.plain.browser.arrivedP50),
      pair(row.quire.browser.clientMs, row.plain.browser.clientMs),
      pair(row.quire.browser.serverCpuMs, row.plain.browser.serverCpuMs),
      pair(row.quire.alone.cpuMs, row.plain.alone.cpuMs),
      pair(row.quire.alone.p50, row.plain.alone.p50),
    ]),
  )
}

const pair = (ours: number, theirs: number): string => `${fmtMs(ours)} / ${fmtMs(theirs)} (${fmtRatio(ours / theirs)})`

async function run(options: RunOptions): Promise<TargetResult[]> {
  const sizes = sizesOf(options)
  const home = await tempDir('keystroke-home')
  const workspace = await tempDir('keystroke-ws')
  if (sizes.profile) await mkdir(sizes.profile, { recursive: true })
  const quire = await startQuireSide(home.path, workspace.path)
  const reference = await startReference()
  const browser = await launchChromium()
  const pages = await serveReferencePages()
  const rows: Row[] = []
  try {
    for (const kib of sizes.sizesKiB) {
      for (const mode of sizes.modes) rows.push(await measureSize(sizes, kib, mode, quire, referenceServer(reference), browser, pages))
    }
  } finally {
    await pages.close()
    await browser.close()
    await quire.mcp.close()
    await quire.daemon.stop()
    await reference.stop()
    await home.remove()
    await workspace.remove()
  }
  console.log('')
  printRows(rows)
  return targetsOf(rows)
}

/** A 3 MiB keystroke (the largest measured in a smoke run) against a 10 KB one, and against plain Yjs at its size. */
function targetsOf(rows: readonly Row[]): TargetResult[] {
  const targets: TargetResult[] = []
  const smallest = Math.min(...rows.map((row) => row.kib))
  for (const row of rows) {
    const small = rows.find((other) => other.kib === smallest && other.mode === row.mode)!
    const label = `${sizeLabel(row.kib)} ${row.mode}`
    const judged = row.kib === 3072
    targets.push({ benchmark: 'keystroke', name: `paint p50, ${label} (quire/plain yjs)`, ratio: row.quire.browser.paintP50 / row.plain.browser.paintP50, target: '≤ 1.5x', met: judged ? row.quire.browser.paintP50 / row.plain.browser.paintP50 <= 1.5 : null })
    if (row.kib !== smallest) {
      const growth = row.quire.browser.paintP50 / small.quire.browser.paintP50
      targets.push({ benchmark: 'keystroke', name: `paint p50, ${label} / ${sizeLabel(smallest)} (quire)`, ratio: growth, target: '≤ 1.5x', met: judged ? growth <= 1.5 : null })
      const cpuGrowth = row.quire.alone.cpuMs / small.quire.alone.cpuMs
      targets.push({ benchmark: 'keystroke', name: `server CPU/key, ${label} / ${sizeLabel(smallest)} (quire)`, ratio: cpuGrowth, target: '≤ 1.5x', met: judged ? cpuGrowth <= 1.5 : null })
    }
    targets.push({ benchmark: 'keystroke', name: `durable p50, ${label} (quire/plain yjs)`, ratio: row.quire.browser.arrivedP50 / row.plain.browser.arrivedP50, target: 'record', met: null })
    targets.push({ benchmark: 'keystroke', name: `server CPU/key alone, ${label} (quire/plain yjs)`, ratio: row.quire.alone.cpuMs / row.plain.alone.cpuMs, target: 'record', met: null })
  }
  return targets
}

export const keystrokeBenchmark: Benchmark = {
  name: 'keystroke',
  description: "a person's keystroke against document size (10 KB–8 MiB), WYSIWYG and source, console in Chromium and server alone, vs the same editor on plain Yjs",
  run,
}

/** `node dist/bench/keystroke.js [--smoke]` runs this benchmark alone (bench/run.ts registers it for the suite). */
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const options: RunOptions = { smoke: process.argv.includes('--smoke') }
  run(options).then(
    (targets) => {
      printTargets('keystroke', options.smoke ? unjudged(targets) : targets)
      process.exit(0)
    },
    (error: unknown) => {
      console.error(error)
      process.exit(1)
    },
  )
}
