import { openAuditSource } from '../auditSource.js'

/** `quire verify`: exit 0 when every projection rebuilt from the log equals the live one and the log is sound. */
export async function verifyCommand(home: string, _args: string[], out: (line: string) => void): Promise<number> {
  const source = await openAuditSource(home)
  let report
  try {
    report = await source.verify()
  } finally {
    await source.close()
  }
  const { integrity } = report
  out(`log: ${integrity.events} events in ${integrity.streams} streams, head position ${integrity.head}`)
  out(`documents: ${report.documents} rebuilt and compared`)
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
  out(report.ok ? 'ok: the live state equals the state rebuilt from the log' : 'FAILED')
  return report.ok ? 0 : 1
}
