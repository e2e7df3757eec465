import type { VerifyReport } from '../../../core/audit/verify.js'
import type { ModelVerification } from '../../../projections/readModel/verifyModel.js'
import { parseArgs } from 'node:util'
import type { ChainPoint, ChainReport } from '../../../core/log/hashChain.js'
import { parseChainPoint } from '../../../core/log/hashChain.js'
import { withOwner } from '../owner.js'
import { UsageError } from '../usage.js'

type Report = VerifyReport & { readonly models: readonly ModelVerification[] }

/**
 * `quire verify`: exit 0 when every projection rebuilt from the log equals the live one, each read model equals a
 * fresh rebuild of it, and the log is sound.
 */
export async function verifyCommand(home: string, args: string[], out: (line: string) => void): Promise<number> {
  const { values } = parseArgs({ args, options: { checkpoint: { type: 'boolean', default: false }, against: { type: 'string' } } })
  const against = values.against === undefined ? undefined : parseChainPoint(values.against)
  if (values.against !== undefined && !against) throw new UsageError(`--against takes POSITION:HASH as verify --checkpoint prints it, not ${JSON.stringify(values.against)}`)
  const report = await withOwner(
    home,
    (owner) => owner.request<Report>('GET', `/admin/verify${against ? `?against=${against.position}:${against.hash}` : ''}`),
    async (services) => {
      const { verify } = await import('../../../core/audit/verify.js')
      return { ...(await verify(services.engine, against ? { against } : {})), models: await services.readModels.verify() }
    },
  )
  const { integrity } = report
  out(`log: ${integrity.events} events in ${integrity.streams} streams, head position ${integrity.head}`)
  for (const line of chainLines(integrity.chain, values.checkpoint, against)) out(line)
  out(`documents: ${report.documents} rebuilt and compared`)
  for (const model of report.models) {
    out(`read model ${model.name}: ${model.entries} entries up to position ${model.checkpoint} ${model.differences.length === 0 ? 'equal a fresh rebuild' : 'DIFFER from a fresh rebuild'}`)
  }
  const { coherence } = report
  // Said only where the log holds coherence lines: a data directory that never captured has nothing to report.
  if (coherence.workspaces > 0) out(`coherence: ${coherence.lines} ledger lines of ${coherence.workspaces} workspaces found in their segments`)
  for (const root of coherence.missingWorkspaces) out(`coherence: workspace ${root} is gone; its ledger lines were not checked`)
  for (const line of coherence.pending ?? []) out(`coherence: ${line}`)
  for (const problem of coherence.problems) out(`coherence problem: ${problem}`)
  for (const problem of integrity.problems) out(`log problem: ${problem}`)
  for (const record of integrity.quarantined) {
    out(`quarantined: position ${record.position} (${record.bytes} bytes): ${record.reason}`)
  }
  for (const mismatch of report.mismatches) {
    for (const difference of mismatch.differences) out(`mismatch: ${mismatch.docId}: ${difference}`)
  }
  for (const model of report.models) for (const difference of model.differences) out(`read model ${model.name} differs: ${difference}`)
  const ok = report.ok && report.models.every((model) => model.differences.length === 0)
  out(ok ? 'ok: the live state equals the state rebuilt from the log' : 'FAILED')
  return ok ? 0 : 1
}

/** What verify says of the log's hash chain: whether every link holds, the checkpoint, and a kept one held against it. */
function chainLines(chain: ChainReport | undefined, checkpoint: boolean, against: ChainPoint | undefined): string[] {
  if (!chain) {
    return [`chain: this log's store keeps no hash chain yet (PostgreSQL)${against ? '; the checkpoint cannot be checked: FAILED' : ''}`]
  }
  const lines: string[] = []
  lines.push(chain.broken ? `chain BROKEN at position ${chain.broken.position}: ${chain.broken.problem}` : `chain: every record up to position ${chain.head.position} links to the one before it`)
  for (const late of chain.chainedLate) {
    const range = late.from === late.to ? `position ${late.from} was` : `positions ${late.from}–${late.to} were`
    lines.push(`chain: ${range} chained on ${new Date(late.at).toISOString()}, when Quire found them without links (kept before the chain, or written by an older Quire): proven unchanged since then, not before`)
  }
  if (checkpoint) lines.push(`checkpoint: ${chain.head.position}:${chain.head.hash}  (keep it elsewhere; verify --against it later)`)
  if (chain.against) {
    const { point, holds, problem } = chain.against
    lines.push(holds ? `against ${point.position}:${point.hash}: the log still extends it` : `against ${point.position}:${point.hash}: FAILS: ${problem ?? 'the log does not extend it'}`)
  }
  return lines
}
