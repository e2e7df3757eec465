import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import * as Y from 'yjs'
import { openEngine } from '../core/engine.js'
import { openEmbeddedEngine } from '../adapters/leveldb/embeddedEngine.js'
import { ingestTrace } from '../adapters/trace/ingestTrace.js'
import type { ColdOpenSample } from './coldOpenChild.js'
import {
  fmtInt, fmtMs, fmtRatio, median, printTable, runChild, sized, withTempDir,
  type Benchmark, type RunOptions, type TargetResult,
} from './util.js'
import { tracePath } from './trace.js'

/**
 * Cold open of an ingested document: after the ingest the engine is closed (which snapshots), then fresh processes
 * open the engine and load the document (snapshot + empty tail) and, in the same process, decode the document's
 * final Yjs state into a plain Y.Doc. Each process measures both, alternating which goes first (the second one
 * finds Yjs's code already compiled); medians over all processes.
 */

async function run(options: RunOptions): Promise<TargetResult[]> {
  const processes = sized(options, 'QUIRE_BENCH_COLD_RUNS', 10, 2)
  const path = tracePath(options)
  return withTempDir('cold-open', async (dir) => {
    const home = join(dir, 'home')
    const statePath = join(dir, 'state.bin')
    const engine = await openEmbeddedEngine(home)
    let docId: string
    let contentLength: number
    try {
      const result = await ingestTrace(engine, path)
      docId = result.docId
      const document = (await engine.documents.get(docId))!
      contentLength = document.content.length
      const state = Y.encodeStateAsUpdate(document.ydoc)
      await writeFile(statePath, state)
      console.log(`ingested ${fmtInt(result.events)} events as ${docId}; final Yjs state ${fmtInt(state.length)} bytes, ${fmtInt(contentLength)} characters`)
    } finally {
      await engine.close()
    }

    const samples: ColdOpenSample[] = []
    for (let index = 0; index < processes; index++) {
      const order = index % 2 === 0 ? 'engine-first' : 'yjs-first'
      const sample = await runChild<ColdOpenSample>('coldOpenChild.js', [home, docId, statePath, order])
      if (!sample.sameContent || sample.contentLength !== contentLength) throw new Error('cold-opened content differs from the ingested document')
      samples.push(sample)
    }

    const pick = (samples: readonly ColdOpenSample[], field: 'openMs' | 'getMs' | 'yjsMs') => median(samples.map((s) => s[field]))
    const engineFirst = samples.filter((s) => s.order === 'engine-first')
    const yjsFirst = samples.filter((s) => s.order === 'yjs-first')
    const getAll = pick(samples, 'getMs')
    const yjsAll = pick(samples, 'yjsMs')
    const getCold = pick(engineFirst, 'getMs')
    const yjsCold = pick(yjsFirst, 'yjsMs')
    printTable(
      `cold-open: ${processes} fresh processes, medians`,
      ['measure', 'all runs', 'when first', 'when second'],
      [
        ['openEngine (LevelDB open)', fmtMs(pick(samples, 'openMs')), fmtMs(pick(engineFirst, 'openMs')), fmtMs(pick(yjsFirst, 'openMs'))],
        ['documents.get + .content', fmtMs(getAll), fmtMs(getCold), fmtMs(pick(yjsFirst, 'getMs'))],
        ['Y.applyUpdate + toString', fmtMs(yjsAll), fmtMs(yjsCold), fmtMs(pick(engineFirst, 'yjsMs'))],
        ['ratio get / applyUpdate', fmtRatio(getAll / yjsAll), fmtRatio(getCold / yjsCold), fmtRatio(pick(yjsFirst, 'getMs') / pick(engineFirst, 'yjsMs'))],
      ],
    )
    console.log('"when first": each side measured in processes where it ran first, i.e. with nothing compiled yet.')
    const ratio = getAll / yjsAll
    const coldRatio = getCold / yjsCold
    const targets: TargetResult[] = [
      { benchmark: 'cold-open', name: 'documents.get / Y.applyUpdate (all runs)', ratio, target: '≤ 2x', met: ratio <= 2 },
      { benchmark: 'cold-open', name: 'same, each side measured first', ratio: coldRatio, target: '≤ 2x', met: coldRatio <= 2 },
    ]
    return targets
  })
}

export const coldOpenBenchmark: Benchmark = {
  name: 'cold-open',
  description: 'loading an ingested document in a fresh process vs Y.applyUpdate of its state',
  run,
}
