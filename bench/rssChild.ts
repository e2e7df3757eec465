import { readFileSync } from 'node:fs'
import { openEmbeddedEngine } from '../adapters/leveldb/embeddedEngine.js'
import { ingestTrace } from '../adapters/trace/ingestTrace.js'
import { readTrace } from '../adapters/trace/traceFile.js'
import { applyTracePlain } from './plainYjs.js'
import { reportToParent } from './util.js'

/**
 * One run of rss.ts, in a fresh process, reporting the process's peak RSS (`maxRSS`, KiB) when done.
 *
 *   node dist/bench/rssChild.js ingest <trace> <home>   durable ingest with ingestTrace (engine closed at the end)
 *   node dist/bench/rssChild.js plain <trace>           the trace's edits applied to a plain Y.Doc
 *   node dist/bench/rssChild.js idle                    loads the same modules, does nothing
 */

export interface RssSample {
  readonly mode: string
  /** `process.resourceUsage().maxRSS`. On Linux it also counts what fork() copied of the parent (it survives exec). */
  readonly maxRssKiB: number
  /** VmHWM from /proc/self/status: the peak RSS of this process image only; null where there is no /proc. */
  readonly hwmKiB: number | null
  readonly milliseconds: number
}

function vmHwm(): number | null {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))
    return match ? Number(match[1]) : null
  } catch {
    return null
  }
}

const [mode, trace, home] = process.argv.slice(2)
const started = performance.now()
if (mode === 'ingest' && trace && home) {
  const engine = await openEmbeddedEngine(home)
  const result = await ingestTrace(engine, trace)
  await engine.close()
  if (!result.matchesEndContent) throw new Error('ingest did not reach the trace end content')
} else if (mode === 'plain' && trace) {
  const parsed = await readTrace(trace)
  const { doc } = applyTracePlain(parsed)
  if (parsed.kind === 'sequential' && doc.getText('source').toString() !== parsed.endContent) throw new Error('plain replay differs')
} else if (mode !== 'idle') {
  throw new Error('usage: rssChild.js ingest <trace> <home> | plain <trace> | idle')
}
reportToParent({
  mode,
  maxRssKiB: process.resourceUsage().maxRSS,
  hwmKiB: vmHwm(),
  milliseconds: performance.now() - started,
} satisfies RssSample)
