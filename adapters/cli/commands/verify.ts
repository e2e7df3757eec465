import type { VerifyReport } from '../../../core/audit/verify.js'
import type { ModelVerification } from '../../../projections/readModel/verifyModel.js'
import { withOwner } from '../owner.js'

type Report = VerifyReport & { readonly models: readonly ModelVerification[] }

/**
 * `quire verify`: exit 0 when every projection rebuilt from the log equals the live one, each read model equals a
 * fresh rebuild of it, and the log is sound.
 */
export async function verifyCommand(home: string, _args: string[], out: (line: string) => void): Promise<number> {
  const report = await withOwner(
    home,
    (owner) => owner.request<Report>('GET', '/admin/verify'),
    async (services) => {
      const { verify } = await import('../../../core/audit/verify.js')
      return { ...(await verify(services.engine)), models: await services.readModels.verify() }
    },
  )
  const { integrity } = report
  out(`log: ${integrity.events} events in ${integrity.streams} streams, head position ${integrity.head}`)
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
