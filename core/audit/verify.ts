import * as Y from 'yjs'
import type { DocumentRepository } from '../documents/documentRepository.js'
import type { EventLog } from '../log/eventLog.js'
import type { IntegrityReport } from '../log/eventLog.js'
import type { ChainPoint } from '../log/hashChain.js'
import type { DocumentState } from '../documents/documentState.js'
import { verifyLedgers, type LedgerVerification } from '../coherence/verifyLedgers.js'

export interface DocumentMismatch {
  readonly docId: string
  readonly differences: readonly string[]
}

export interface VerifyReport {
  readonly integrity: IntegrityReport
  readonly documents: number
  readonly mismatches: readonly DocumentMismatch[]
  /** The coherence ledgers' lines the log holds, found in their workspaces' segments (workspaces gone are listed). */
  readonly coherence: LedgerVerification & { readonly missingWorkspaces: readonly string[] }
  readonly ok: boolean
}

/**
 * Rebuilds every projection from the log alone into fresh state and compares it with the live state (which is
 * restored from snapshots plus the tail of the log), and checks the log's own invariants. Documents are compared
 * one at a time, so verify needs memory for one document, not all.
 */
/** What verification reads: the log and the live documents. */
export interface Verifiable {
  readonly store: EventLog
  readonly documents: DocumentRepository
  /** The data directory: where the coherence ledgers' append intents are (verifyLedgers.ts). */
  readonly home?: string
}

export async function verify(engine: Verifiable, options: { readonly against?: ChainPoint } = {}): Promise<VerifyReport> {
  const integrity = await engine.store.checkIntegrity(options)
  const mismatches: DocumentMismatch[] = []
  const ids = await engine.documents.ids()
  for (const docId of ids) {
    const wasLoaded = engine.documents.peek(docId) !== undefined
    const live = await engine.documents.get(docId)
    const rebuilt = await engine.documents.rebuild(docId)
    const differences = compareDocuments(live, rebuilt)
    if (differences.length > 0) mismatches.push({ docId, differences })
    rebuilt?.destroy()
    if (!wasLoaded) engine.documents.evict(docId)
  }
  const coherence = await verifyLedgers(engine.store, engine.home)
  const chainHolds = integrity.chain?.broken === undefined && integrity.chain?.against?.holds !== false && !(options.against && !integrity.chain)
  const ok = integrity.problems.length === 0 && integrity.quarantined.length === 0 && mismatches.length === 0 && coherence.problems.length === 0 && chainHolds
  return { integrity, documents: ids.length, mismatches, coherence, ok }
}

/** What differs between two states of one document, in words; empty when they are the same. */
export function compareDocuments(live: DocumentState | undefined, rebuilt: DocumentState | undefined): string[] {
  if (!live || !rebuilt) return [`${live ? 'rebuilt' : 'live'} state is missing`]
  const differences: string[] = []
  const liveText = live.content
  const rebuiltText = rebuilt.content
  if (liveText !== rebuiltText) {
    let at = 0
    while (at < liveText.length && liveText[at] === rebuiltText[at]) at++
    differences.push(`content differs from character ${at} (live ${liveText.length} chars, rebuilt ${rebuiltText.length})`)
  }
  if (live.revision !== rebuilt.revision) differences.push(`revision: live ${live.revision}, rebuilt ${rebuilt.revision}`)
  if (live.version !== rebuilt.version) differences.push(`stream version: live ${live.version}, rebuilt ${rebuilt.version}`)
  if (live.dirty !== rebuilt.dirty) differences.push(`dirty: live ${live.dirty}, rebuilt ${rebuilt.dirty}`)
  if (JSON.stringify(live.saved) !== JSON.stringify(rebuilt.saved)) differences.push('last save mark differs')
  if (JSON.stringify(live.divergence) !== JSON.stringify(rebuilt.divergence)) differences.push('divergence from disk differs')
  if (live.personEditPosition !== rebuilt.personEditPosition) differences.push(`the person's last edit: live at ${live.personEditPosition}, rebuilt at ${rebuilt.personEditPosition}`)
  if (JSON.stringify(live.sightingsRecord()) !== JSON.stringify(rebuilt.sightingsRecord())) differences.push('what each assistant last read or wrote (the bases of its writes) differs')
  const { createdAt: liveCreated, ...liveMeta } = live.meta ?? ({} as Record<string, unknown>)
  const { createdAt: rebuiltCreated, ...rebuiltMeta } = rebuilt.meta ?? ({} as Record<string, unknown>)
  if (JSON.stringify(liveMeta) !== JSON.stringify(rebuiltMeta) || liveCreated !== rebuiltCreated) {
    differences.push('metadata (kind, path, title, origin) differs')
  }
  const liveVector = Y.encodeStateVector(live.ydoc)
  const rebuiltVector = Y.encodeStateVector(rebuilt.ydoc)
  if (Buffer.compare(liveVector, rebuiltVector) !== 0) differences.push('Yjs state vectors differ')
  return differences
}
