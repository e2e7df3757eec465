import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { openEmbeddedEngine } from '../../adapters/leveldb/embeddedEngine.js'
import { MarkdownText } from '../mcpSupport.js'
import { fmtInt, fmtRatio, median, now, runChild, withTempDir, type TargetResult } from '../util.js'
import type { IdleMemorySample } from './idleMemoryChild.js'
import { logLogPlot, publish, tableText } from './plot.js'

/**
 * Memory against the number of open idle documents. The largest count of documents (small Markdown texts, each its
 * own) is made once into one data directory and the engine closed (each is snapshotted); then for each count a fresh
 * process opens the engine and loads that many of them (they stay in its repository, idle), and another fresh
 * process holds as many plain Y.Docs of the same texts, the reference. Per document: the growth of heapUsed +
 * external after a full GC (and of RSS) divided by the count. The target: the engine's per document ≤ the
 * reference's.
 */

export interface IdleMemorySizes {
  readonly counts: readonly number[]
  readonly bytes: number
  readonly runs: number
}

const SEED = 101

const kib = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KiB`

export async function idleMemoryCurve(sizes: IdleMemorySizes, write: boolean): Promise<TargetResult[]> {
  return withTempDir('scaling-memory', async (root) => {
    const home = join(root, 'home')
    const most = Math.max(...sizes.counts)
    const generating = now()
    const engine = await openEmbeddedEngine(home)
    const ids: string[] = []
    try {
      // In groups, so the group committer batches their appends.
      for (let start = 0; start < most; start += 64) {
        const group = Array.from({ length: Math.min(64, most - start) }, (_, offset) => start + offset)
        const created = await Promise.all(
          group.map((index) =>
            engine.commands.documents.create({
              kind: 'markdown', content: new MarkdownText(sizes.bytes, SEED + index).text, path: null, title: `idle ${index}`, origin: 'trace', actor: { kind: 'system' },
            }),
          ),
        )
        ids.push(...created.map((one) => one.docId))
      }
    } finally {
      await engine.close()
    }
    const idsPath = join(root, 'ids.json')
    await writeFile(idsPath, JSON.stringify(ids))
    console.log(`memory: ${fmtInt(most)} documents of ${fmtInt(sizes.bytes)} bytes made in ${((now() - generating) / 1000).toFixed(1)} s; ${sizes.runs} run(s) per count`)

    const rows: { count: number; engineHeap: number; plainHeap: number; engineRss: number; plainRss: number }[] = []
    for (const count of sizes.counts) {
      const engineHeap: number[] = []
      const plainHeap: number[] = []
      const engineRss: number[] = []
      const plainRss: number[] = []
      for (let run = 0; run < sizes.runs; run++) {
        const engineSample = await runChild<IdleMemorySample>('scaling/idleMemoryChild.js', ['engine', home, idsPath, String(count)])
        const plainSample = await runChild<IdleMemorySample>('scaling/idleMemoryChild.js', ['plain', String(sizes.bytes), String(SEED), String(count)])
        if (engineSample.characters !== plainSample.characters) throw new Error(`the engine holds ${engineSample.characters} characters, the plain Y.Docs ${plainSample.characters}`)
        engineHeap.push((engineSample.heapAfter - engineSample.heapBefore) / count)
        plainHeap.push((plainSample.heapAfter - plainSample.heapBefore) / count)
        engineRss.push((engineSample.rssAfter - engineSample.rssBefore) / count)
        plainRss.push((plainSample.rssAfter - plainSample.rssBefore) / count)
      }
      rows.push({ count, engineHeap: median(engineHeap), plainHeap: median(plainHeap), engineRss: median(engineRss), plainRss: median(plainRss) })
    }
    const table = tableText(
      ['idle documents', 'engine heap/doc', 'plain Y.Doc heap/doc', 'heap ratio', 'engine RSS/doc', 'plain RSS/doc', 'RSS ratio', 'engine heap total'],
      rows.map((row) => [
        fmtInt(row.count),
        kib(row.engineHeap),
        kib(row.plainHeap),
        fmtRatio(row.engineHeap / row.plainHeap),
        kib(row.engineRss),
        kib(row.plainRss),
        row.plainRss > 0 ? fmtRatio(row.engineRss / row.plainRss) : '-',
        `${((row.engineHeap * row.count) / 1024 / 1024).toFixed(1)} MiB`,
      ]),
    )
    const plot = logLogPlot(
      'memory held (heapUsed + external, after GC) by N idle documents: the engine (*) and plain Y.Docs of the same texts (o)',
      'idle documents',
      'MiB',
      [
        { label: 'plain Y.Doc per text', mark: 'o', points: rows.map((row) => [row.count, (row.plainHeap * row.count) / 1024 / 1024] as const) },
        { label: 'engine (documents.get, from snapshots)', mark: '*', points: rows.map((row) => [row.count, (row.engineHeap * row.count) / 1024 / 1024] as const) },
      ],
    )
    await publish(
      'idle-memory',
      `scaling: memory against open idle documents (${fmtInt(sizes.bytes)}-byte Markdown texts; per document = growth / N; medians of ${sizes.runs})\n\n${table}\n\n${plot}`,
      write,
    )
    const last = rows.at(-1)!
    return [
      { benchmark: 'scaling', name: `idle-memory: engine / plain Y.Doc heap per document at ${fmtInt(last.count)}`, ratio: last.engineHeap / last.plainHeap, target: '≤ 1x', met: last.engineHeap / last.plainHeap <= 1 },
      { benchmark: 'scaling', name: `idle-memory: engine / plain Y.Doc RSS per document at ${fmtInt(last.count)}`, ratio: last.engineRss / last.plainRss, target: 'none', met: null },
    ]
  })
}
