import { parseArgs } from 'node:util'
import type { FoundDocument } from '../../../core/audit/resolve.js'
import { positionOfRevision } from '../../../core/documents/revision.js'
import type { Blame } from '../../../projections/history/blame.js'
import { withOwner } from '../owner.js'
import { UsageError } from '../usage.js'

/**
 * `quire blame PATH_OR_ID [--at REV] [--json]`: each line of the document with who last changed it (an assistant
 * by name, `person`, `disk`, `system`) and when; `--json` adds the spans (character ranges) each change wrote.
 */
export async function blameCommand(home: string, args: string[], out: (line: string) => void): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { at: { type: 'string' }, json: { type: 'boolean', default: false } } })
  if (positionals.length !== 1) throw new UsageError('blame needs one document (PATH or ID)')
  if (values.at !== undefined && positionOfRevision(values.at) === undefined) throw new UsageError(`${JSON.stringify(values.at)} is not a revision token (rev-...)`)
  const target = positionals[0]!
  const cwd = process.cwd()
  const blame = await withOwner(
    home,
    (owner) => owner.request<FoundDocument & Blame>('GET', `/admin/blame?${new URLSearchParams({ doc: target, cwd, ...(values.at === undefined ? {} : { at: values.at }) })}`),
    async (services) => (await import('../../host/auditAnswers.js')).blameAnswer(services.readModels, services.engine.store, target, cwd, values.at),
  )
  if (values.json) {
    out(JSON.stringify(blame))
    return 0
  }
  const width = Math.max(6, ...blame.lines.map((line) => line.by.length))
  for (const line of blame.lines) out(`${line.by.padEnd(width)}  ${new Date(line.at).toISOString()}  ${String(line.position).padStart(8)}  ${String(line.line).padStart(5)}  ${line.text}`)
  return 0
}
