import { parseArgs } from 'node:util'
import type { Engine } from '../../../core/engine.js'
import { ingestTrace } from '../../trace/ingestTrace.js'
import { UsageError } from '../usage.js'

/** `quire ingest-trace FILE`: the last line printed is the new document's id. */
export async function ingestTraceCommand(engine: Engine, args: string[], out: (line: string) => void): Promise<number> {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} })
  if (positionals.length !== 1) throw new UsageError('ingest-trace needs exactly one FILE')
  const result = await ingestTrace(engine, positionals[0]!)
  const seconds = result.milliseconds / 1000
  out(`ingested ${result.events} peer edits in ${seconds.toFixed(2)} s (${Math.round(result.events / seconds)} events/s), revision ${result.revision}`)
  if (!result.matchesEndContent) out("warning: the document's content differs from the trace's end content")
  out(result.docId)
  return result.matchesEndContent ? 0 : 1
}
