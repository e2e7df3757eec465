/**
 * Why a coherence call was refused, in the words VMark's bridge uses (TOOLS.md COH.GEN.6: argument problems are plain
 * strings; COHR.RESOLVE.*: refusals name why). Adapters answer the message as a plain-string error, never an envelope;
 * `reason` is for tests, the console and the audit. A refusal appends nothing.
 */
export type CoherenceRefusalReason =
  | 'invalid-workspace-root'
  | 'not-a-workspace'
  | 'invalid-argument'
  | 'anonymous'
  | 'no-delegation'
  | 'delegation-expired'
  | 'delegation-revoked'
  | 'edge-not-live'
  | 'multi-head-upstream'
  | 'upstream-unresolvable'
  | 'future-format'
  | 'write-busy'
  | 'unsafe-link'

export class CoherenceRefusal extends Error {
  override readonly name = 'CoherenceRefusal'

  constructor(
    readonly reason: CoherenceRefusalReason,
    message: string,
  ) {
    super(message)
  }
}

export const isCoherenceRefusal = (error: unknown): error is CoherenceRefusal => error instanceof CoherenceRefusal
