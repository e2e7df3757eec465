import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { ClassicLevel } from 'classic-level'
import { CLI, cpuPerOp, launchQuireStdio, launchStdio, MarkdownText, p50, p99, pooled, type Series } from '../mcpSupport.js'
import { fmtInt, fmtMs, fmtRatio, runChild, settle, withTempDir, type TargetResult } from '../util.js'
import type { HistorySample } from './historyChild.js'
import { logLogPlot, publish, tableText } from './plot.js'
import { floorLoop, openDocument, writeLoop } from './writes.js'

/**
 * Write latency against the length of a document's history. One 10 KB Markdown file is opened over MCP
 * (`quire mcp`, stdio, embedded core); between checkpoints the server stops and a fresh process appends peer
 * keystrokes to the document (bench/scaling/historyChild.ts: type a character, delete it, so the text stays the
 * file's) until its stream holds the checkpoint's number of events; the engine closes, snapshotting it. The server
 * starts again, and the same number of `document.write` calls (8-character edit, `save: true`) is timed, after the
 * same number of floor calls (synced put + fsync'd atomic write of the same 10 KB). The writes themselves add a few
 * events each, so the history at a checkpoint's last write is a little longer than the checkpoint; both are printed.
 * The target: write p50 at the longest history within 1.2x of the shortest (both against the floor pooled over all
 * checkpoints; the floor does not depend on the history).
 */

export interface HistorySizes {
  readonly checkpoints: readonly number[]
  readonly writes: number
}

const SIZE = 10 * 1024

/** QUIRE_BENCH_MCP_NODE_ARGS, as launchQuireStdio passes it (e.g. `--cpu-prof --cpu-prof-dir=DIR`), for the timed servers. */
const nodeArgs = (): string[] => (process.env.QUIRE_BENCH_MCP_NODE_ARGS ?? '').split(' ').filter((arg) => arg.length > 0)

interface Point {
  readonly events: number
  readonly eventsAfter: number
  readonly generationMs: number
  readonly write: Series
  readonly floor: Series
}

export async function historyCurve(sizes: HistorySizes, write: boolean): Promise<TargetResult[]> {
  return withTempDir('scaling-history', async (root) => {
    const workspace = join(root, 'workspace')
    const floorDir = join(root, 'floor')
    await mkdir(workspace)
    await mkdir(floorDir)
    const home = join(root, 'home')
    // One file per checkpoint, so each history is exactly as long as asked when its writes start.
    const files = sizes.checkpoints.map((checkpoint, index) => ({ checkpoint, path: join(workspace, `history-${checkpoint}.md`), text: new MarkdownText(SIZE, 77 + index) }))
    for (const one of files) await writeFile(one.path, one.text.text)
    // Written before each checkpoint's timed writes, so the server's JIT warms up on a document other than the measured one.
    const warm = { path: join(workspace, 'warm-up.md'), text: new MarkdownText(SIZE, 76) }
    await writeFile(warm.path, warm.text.text)
    const floorPath = join(floorDir, 'floor.md')
    const floorText = new MarkdownText(SIZE, 78)
    await writeFile(floorPath, floorText.text)
    const db = new ClassicLevel<string, Uint8Array>(join(floorDir, 'db'), { valueEncoding: 'view' })
    await db.open()
    const counter = { n: 0 }
    const points: Point[] = []
    try {
      {
        const quire = await launchQuireStdio(home, workspace)
        try {
          for (const one of [warm, ...files]) await openDocument(quire, one.path, one.text)
        } finally {
          await quire.close()
        }
      }
      for (const { checkpoint, path, text } of files) {
        const grown = await runChild<HistorySample>('scaling/historyChild.js', [home, path, String(checkpoint)])
        // Not launchQuireStdio: the review limit is already raised, and `quire settings set` on a data directory with
        // open tabs dies of a disk-watch read racing its close (adapters/cli/commands/person.ts opens it watching).
        const quire = await launchStdio(CLI, ['--home', home, 'mcp', '--workspace', workspace], 'quire-stdio', nodeArgs())
        let point: Omit<Point, 'eventsAfter'>
        try {
          const document = await openDocument(quire, path, text)
          // The history is a person's typing: saved once, so each write's save: true saves (an assistant's write does
          // not save a person's unsaved edits, docs/tools.md).
          await quire.call('workspace', { action: 'save', tabId: document.tabId })
          await writeLoop('warm-up', 0, 5, quire, await openDocument(quire, warm.path, warm.text))
          await floorLoop('warm-up', 0, 3, db, floorPath, floorText, counter)
          await settle()
          const floor = await floorLoop(`floor at ${fmtInt(grown.events)}`, 0, sizes.writes, db, floorPath, floorText, counter)
          await settle()
          const written = await writeLoop(`document.write at ${fmtInt(grown.events)}`, 0, sizes.writes, quire, document)
          if ((await readFile(path, 'utf8')) !== text.text) throw new Error(`${path} does not hold the last text written`)
          point = { events: grown.events, generationMs: grown.milliseconds, write: written, floor }
        } finally {
          await quire.close()
        }
        // How long the history is after the timed writes: a child that adds nothing.
        const after = await runChild<HistorySample>('scaling/historyChild.js', [home, path, '0'])
        points.push({ ...point, eventsAfter: after.events })
      }
    } finally {
      await db.close()
    }
    const first = points[0]!
    // The floor does not depend on the history (the same 10 KB each time): pooled over every checkpoint it is one
    // steadier reference than each checkpoint's 40 calls on a busy machine.
    const floor = pooled('floor (all checkpoints)', points.map((point) => point.floor))
    const floorP50 = p50(floor)
    const cpu = (point: Point) => (point.write.serverCpuMs ?? Number.NaN) / point.write.latencies.length
    const table = tableText(
      ['history (events)', 'after the writes', 'writes', 'write p50', 'write p99', 'floor p50 (here)', 'p50 / pooled floor', 'vs shortest', 'server CPU/write', 'CPU vs shortest', 'made in'],
      points.map((point) => [
        fmtInt(point.events),
        fmtInt(point.eventsAfter),
        fmtInt(point.write.latencies.length),
        fmtMs(p50(point.write)),
        fmtMs(p99(point.write)),
        fmtMs(p50(point.floor)),
        fmtRatio(p50(point.write) / floorP50),
        fmtRatio(p50(point.write) / p50(first.write)),
        cpuPerOp(point.write.serverCpuMs, point.write.latencies.length),
        fmtRatio(cpu(point) / cpu(first)),
        `${(point.generationMs / 1000).toFixed(1)} s`,
      ]),
    )
    const floorLine = `floor pooled over the checkpoints: p50 ${fmtMs(floorP50)}, p99 ${fmtMs(p99(floor))} (${fmtInt(floor.latencies.length)} calls)`
    const plot = logLogPlot(
      'document.write p50 (*) and its floor p50 (o) against the document\'s history length (10 KB text)',
      'events in the document\'s stream',
      'ms',
      [
        { label: 'floor: synced put + fsync\'d atomic write of 10 KB', mark: 'o', points: points.map((point) => [point.events, p50(point.floor)] as const) },
        { label: 'document.write (8-character edit, save: true)', mark: '*', points: points.map((point) => [point.events, p50(point.write)] as const) },
      ],
    )
    await publish(
      'history',
      `scaling: document.write latency against history length (${sizes.writes} writes per point, after as many floor calls)\n\n${table}\n\n${floorLine}\n\n${plot}`,
      write,
    )
    const last = points.at(-1)!
    const growth = p50(last.write) / p50(first.write)
    return [
      { benchmark: 'scaling', name: `history: write p50 at ${fmtInt(last.events)} / at ${fmtInt(first.events)} events (vs the pooled floor)`, ratio: growth, target: '≤ 1.2x', met: growth <= 1.2 },
      { benchmark: 'scaling', name: `history: server CPU per write at ${fmtInt(last.events)} / at ${fmtInt(first.events)} events`, ratio: cpu(last) / cpu(first), target: 'none', met: null },
      { benchmark: 'scaling', name: `history: write p50 / pooled floor p50 at ${fmtInt(last.events)} events`, ratio: p50(last.write) / floorP50, target: 'none', met: null },
    ]
  })
}
