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
  for (const line of historyLines(records)) out(line)
  return 0
}

/** One line per record, each column as wide as its widest cell in this listing, so long details keep them aligned. */
function historyLines(records: readonly HistoryRecord[]): string[] {
  const rows = records.map(historyCells)
  const width = (column: 'kind' | 'revision' | 'detail') => Math.max(0, ...rows.map((row) => row[column].length))
  const [kind, revision, detail] = [width('kind'), width('revision'), width('detail')]
  return rows.map((row) => `${row.head}  ${row.kind.padEnd(kind)}  ${row.revision.padEnd(revision)}  ${row.detail.padEnd(detail)}  ${row.actor}  ${row.path}`)
}

function historyCells(record: HistoryRecord): { head: string; kind: string; revision: string; detail: string; actor: string; path: string } {
  const head = `${String(record.position).padStart(8)}  ${new Date(record.at).toISOString()}`
  const cells = { head, revision: record.revision, actor: record.actor, path: record.path ?? '-' }
  if (record.kind === 'open' || record.kind === 'save' || record.kind === 'reload') {
    return { ...cells, kind: `${record.kind}${record.mcp ? ' (mcp)' : ''}`, detail: `${record.length} chars` }
  }
  const detail = record.kind === 'edits' ? `${record.detail} until ${new Date(record.until ?? record.at).toISOString()}` : record.detail
  return { ...cells, kind: record.kind, detail: `${detail}${record.outcome ? OUTCOMES[record.outcome] : ''}` }
}
