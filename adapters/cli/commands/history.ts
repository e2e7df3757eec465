import { parseArgs } from 'node:util'
import type { HistoryEntry } from '../../../projections/history/history.js'
import type { FoundDocument } from '../../../core/audit/resolve.js'
import { withOwner } from '../owner.js'
import { UsageError } from '../usage.js'

/**
 * `quire history PATH_OR_ID`: every save and open of a document; assistants' saves are marked `(mcp)`. A path the
 * document left (saved elsewhere, its file renamed) finds it too, and the first line says where it is now.
 */
export async function historyCommand(home: string, args: string[], out: (line: string) => void): Promise<number> {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} })
  if (positionals.length !== 1) throw new UsageError('history needs one document (PATH or ID)')
  const target = positionals[0]!
  const cwd = process.cwd()
  const { docId, moved, entries } = await withOwner(
    home,
    (owner) => owner.request<FoundDocument & { entries: HistoryEntry[] }>('GET', `/admin/history?doc=${encodeURIComponent(target)}&cwd=${encodeURIComponent(cwd)}`),
    async (services) => {
      const [{ findDocument }, { documentHistory }] = await Promise.all([import('../../../core/audit/resolve.js'), import('../../../projections/history/history.js')])
      const found = await findDocument(services.engine, target, cwd)
      return { ...found, entries: await documentHistory(services.engine, found.docId) }
    },
  )
  out(`history of ${docId}${moved ? ` (moved: its file was ${moved.from}, it is now ${moved.to})` : ''}`)
  for (const entry of entries) {
    const label = entry.mcp ? '(mcp)' : ''
    out(`${String(entry.position).padStart(8)}  ${new Date(entry.at).toISOString()}  ${entry.reason.padEnd(6)} ${label.padEnd(5)}  ${entry.revision.padEnd(10)}  ${String(entry.length).padStart(8)} chars  ${entry.actor}  ${entry.path}`)
  }
  return 0
}
