import { parseArgs } from 'node:util'
import type { FoundDocument } from '../../../core/audit/resolve.js'
import type { HistoryRecord } from '../../../projections/history/historyModel.js'
import { withOwner } from '../owner.js'
import { UsageError } from '../usage.js'

const OUTCOMES = { applied: '', pending: ' [not applied yet]', 'not-applied': ' [NOT APPLIED]' } as const

/**
 * `quire history PATH_OR_ID`: the document's history from the history model: opens and saves (assistants' marked
 * `(mcp)`) with the revision the file holds, assistants' writes and whether they applied, restores, moves, reviews and
 * the person's typing sessions; each line ends with the document's file then. A path the document left (saved
 * elsewhere, its file renamed) finds it too, and the first line says where it is now.
 */
export async function historyCommand(home: string, args: string[], out: (line: string) => void): Promise<number> {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} })
  if (positionals.length !== 1) throw new UsageError('history needs one document (PATH or ID)')
  const target = positionals[0]!
  const cwd = process.cwd()
  const { docId, moved, records } = await withOwner(
    home,
    (owner) => owner.request<FoundDocument & { records: HistoryRecord[] }>('GET', `/admin/history?doc=${encodeURIComponent(target)}&cwd=${encodeURIComponent(cwd)}`),
    async (services) => (await import('../../host/auditAnswers.js')).historyAnswer(services.readModels, target, cwd),
  )
  out(`history of ${docId}${moved ? ` (moved: its file was ${moved.from}, it is now ${moved.to})` : ''}`)
  for (const record of records) out(historyLine(record))
  return 0
}

function historyLine(record: HistoryRecord): string {
  const head = `${String(record.position).padStart(8)}  ${new Date(record.at).toISOString()}`
  const path = record.path ?? '-'
  if (record.kind === 'open' || record.kind === 'save' || record.kind === 'reload') {
    const label = record.mcp ? '(mcp)' : ''
    return `${head}  ${record.kind.padEnd(6)} ${label.padEnd(5)}  ${record.revision.padEnd(10)}  ${String(record.length).padStart(8)} chars  ${record.actor}  ${path}`
  }
  const detail = record.kind === 'edits' ? `${record.detail} until ${new Date(record.until ?? record.at).toISOString()}` : record.detail
  return `${head}  ${record.kind.padEnd(8)}  ${record.revision.padEnd(10)}  ${detail}${record.outcome ? OUTCOMES[record.outcome] : ''}  ${record.actor}  ${path}`
}
