import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { ClassicLevel } from 'classic-level'
import { cpuPerOp, launchQuireStdio, MarkdownText, p50, p99, pooled, type Series } from '../mcpSupport.js'
import { fmtInt, fmtMs, fmtRatio, settle, withTempDir, type TargetResult } from '../util.js'
import { logLogPlot, logSlope, publish, tableText } from './plot.js'
import { floorLoop, openDocument, raiseMessageLimit, writeLoop, type WrittenDocument } from './writes.js'

/**
 * `document.write` latency against document size: one `quire mcp` (stdio, embedded core) with one Markdown file per
 * size, each written with an 8-character edit (whole text sent, `save: true`), and at each size the floor of the same
 * bytes (synced put + fsync'd atomic write) timed just before. Slope of log(p50) on log(size) of both: the target is
 * that the write's grows no faster than 1.5x the floor's.
 */

export interface WriteSizeSizes {
  readonly sizes: readonly number[]
  readonly phaseMs: number
  readonly minCalls: number
  readonly warmupMs: number
}

/** Floor and write phases per size, taking turns. */
const ROUNDS = 3

const label = (bytes: number): string => (bytes >= 1024 * 1024 ? `${bytes / 1024 / 1024} MiB` : `${bytes / 1024} KiB`)

export async function writeSizeCurve(sizes: WriteSizeSizes, write: boolean): Promise<TargetResult[]> {
  return withTempDir('scaling-size', async (root) => {
    const workspace = join(root, 'workspace')
    const floorDir = join(root, 'floor')
    await mkdir(workspace)
    await mkdir(floorDir)
    const home = join(root, 'home')
    await raiseMessageLimit(home)
    const texts = new Map<number, MarkdownText>()
    for (const size of sizes.sizes) {
      const text = new MarkdownText(size, 31 + size)
      texts.set(size, text)
      await writeFile(join(workspace, `size-${size}.md`), text.text)
    }
    const db = new ClassicLevel<string, Uint8Array>(join(floorDir, 'db'), { valueEncoding: 'view' })
    await db.open()
    const quire = await launchQuireStdio(home, workspace)
    const rows: { size: number; floor: Series; write: Series }[] = []
    try {
      const counter = { n: 0 }
      const opened = new Map<number, { document: WrittenDocument; floorPath: string; floorText: MarkdownText }>()
      for (const size of sizes.sizes) {
        const document = await openDocument(quire, join(workspace, `size-${size}.md`), texts.get(size)!)
        const floorPath = join(floorDir, `floor-${size}.md`)
        const floorText = new MarkdownText(size, 7 + size)
        await writeFile(floorPath, floorText.text)
        opened.set(size, { document, floorPath, floorText })
      }
      // Warm-up: JIT on both sides, LevelDB files, the disk's write path, before the first size is timed.
      const smallest = opened.get(sizes.sizes[0]!)!
      await floorLoop('warm-up', sizes.warmupMs, 3, db, smallest.floorPath, smallest.floorText, counter)
      await writeLoop('warm-up', sizes.warmupMs, 3, quire, smallest.document)
      for (const size of sizes.sizes) {
        const { document, floorPath, floorText } = opened.get(size)!
        // The size's first calls allocate for it on both sides.
        await floorLoop('warm-up', 0, 2, db, floorPath, floorText, counter)
        await writeLoop('warm-up', 0, 2, quire, document)
        // Floor and writes take turns, so a burst of other work on the machine falls on both.
        const floors: Series[] = []
        const writes: Series[] = []
        for (let round = 0; round < ROUNDS; round++) {
          await settle()
          floors.push(await floorLoop(`floor ${label(size)}`, (sizes.phaseMs * 0.6) / ROUNDS, Math.ceil(sizes.minCalls / ROUNDS), db, floorPath, floorText, counter))
          await settle()
          writes.push(await writeLoop(`document.write ${label(size)}`, sizes.phaseMs / ROUNDS, Math.ceil(sizes.minCalls / ROUNDS), quire, document))
        }
        if ((await readFile(document.path, 'utf8')) !== document.text.text) throw new Error(`${document.path} does not hold the last text written`)
        rows.push({ size, floor: pooled(`floor ${label(size)}`, floors), write: pooled(`document.write ${label(size)}`, writes) })
      }
    } finally {
      await quire.close()
      await db.close()
    }
    const floorSlope = logSlope(rows.map((row) => [row.size, p50(row.floor)]))
    const writeSlope = logSlope(rows.map((row) => [row.size, p50(row.write)]))
    const table = tableText(
      ['size', 'writes', 'write p50', 'write p99', 'floor p50', 'floor p99', 'p50 / floor', 'server CPU/write', 'bench CPU/write', 'floor CPU/call', 'per MiB (write p50)'],
      rows.map(({ size, floor, write: series }) => [
        label(size),
        fmtInt(series.latencies.length),
        fmtMs(p50(series)),
        fmtMs(p99(series)),
        fmtMs(p50(floor)),
        fmtMs(p99(floor)),
        fmtRatio(p50(series) / p50(floor)),
        cpuPerOp(series.serverCpuMs, series.latencies.length),
        cpuPerOp(series.clientCpuMs, series.latencies.length),
        cpuPerOp(floor.clientCpuMs, floor.latencies.length),
        fmtMs(p50(series) / (size / 1024 / 1024)),
      ]),
    )
    const plot = logLogPlot(
      'document.write p50 (*) and its floor p50 (o) against document size',
      'document size',
      'ms',
      [
        { label: 'floor: synced put + fsync\'d atomic write of the same bytes', mark: 'o', points: rows.map((row) => [row.size, p50(row.floor)] as const) },
        { label: 'document.write (8-character edit, save: true, over stdio MCP)', mark: '*', points: rows.map((row) => [row.size, p50(row.write)] as const) },
      ],
    )
    // Small sizes are fixed costs on both sides; from 256 KiB on the bytes dominate, which is where a slope says most.
    const large = rows.filter((row) => row.size >= 256 * 1024)
    const largeWriteSlope = logSlope(large.map((row) => [row.size, p50(row.write)]))
    const largeFloorSlope = logSlope(large.map((row) => [row.size, p50(row.floor)]))
    const slopes =
      `log-log slope of p50 on size (1 = linear): document.write ${writeSlope.toFixed(2)}, floor ${floorSlope.toFixed(2)}; ` +
      `ratio ${fmtRatio(writeSlope / floorSlope)}` +
      (large.length >= 2
        ? `\nfrom 256 KiB on: document.write ${largeWriteSlope.toFixed(2)}, floor ${largeFloorSlope.toFixed(2)}; ratio ${fmtRatio(largeWriteSlope / largeFloorSlope)}`
        : '')
    await publish(
      'write-size',
      `scaling: document.write latency against document size (each write sends the whole text with an 8-character edit)\n\n${table}\n\n${slopes}\n\n${plot}`,
      write,
    )
    const first = rows[0]!
    const last = rows[rows.length - 1]!
    const growth = p50(last.write) / p50(first.write)
    const floorGrowth = p50(last.floor) / p50(first.floor)
    return [
      { benchmark: 'scaling', name: 'write-size: slope of write p50 / slope of floor p50 (log-log)', ratio: writeSlope / floorSlope, target: '≤ 1.5x', met: writeSlope / floorSlope <= 1.5 },
      ...(large.length >= 2
        ? [{ benchmark: 'scaling', name: 'write-size: same, sizes ≥ 256 KiB', ratio: largeWriteSlope / largeFloorSlope, target: 'none', met: null }]
        : []),
      { benchmark: 'scaling', name: `write-size: write p50 / floor p50 at ${label(last.size)}`, ratio: p50(last.write) / p50(last.floor), target: 'none', met: null },
      { benchmark: 'scaling', name: `write-size: growth ${label(first.size)} → ${label(last.size)}, write / floor's`, ratio: growth / floorGrowth, target: 'none', met: null },
    ]
  })
}
