import { createHash } from 'node:crypto'
import { parseLedgerLine } from '../../../core/coherence/index.js'
import type { LedgerEntry } from '../../../core/coherence/model/entries.js'

/**
 * Hand-written ledgers in the shape of VMark's coherence format 0 (spec §5.3–§5.4): every entry is written as the
 * JSON line a segment holds, with revision ids and content hashes computed exactly as spec §2.3 and §3.2 say, and read
 * back through the ledger's own line parser — so a test reads like the ledger it stands for, and a hand-written line
 * the reader would quarantine fails the test instead of reaching the projection.
 */

export const WRITER = '0198c0de-0000-7000-8000-000000000001'

/** A content hash of a made-up text (the projection never sees content, only hashes). */
export function contentHash(text: string): string {
  return `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`
}

/** `rev1:` + SHA-256("vmark-rev\n" + content_hash + "\n" + sorted parents, each + "\n") (spec §2.3). */
export function revisionId(hash: string, parents: readonly string[]): string {
  const preimage = `vmark-rev\n${hash}\n${[...parents].sort().map((parent) => `${parent}\n`).join('')}`
  return `rev1:${createHash('sha256').update(preimage, 'utf8').digest('hex')}`
}

/** A UUIDv7-shaped id from an 8-hex-digit prefix and a number, readable in failures. */
export function uuid(prefix: string, n: number): string {
  return `${prefix}-0000-7000-8000-${n.toString(16).padStart(12, '0')}`
}

export const ELENA = '0198c0de-0000-7000-8000-00000000000b'
export const SCENE = '0198c0de-0000-7000-8000-00000000000c'
export const WORLD = '0198c0de-0000-7000-8000-00000000000d'

interface RevisionRef {
  readonly object: string
  readonly revision: string
  readonly content_hash: string
  readonly parents: readonly string[]
}

/** Builds a ledger line by line; ids and times grow with each line so reader order is line order unless a test says otherwise. */
export class HandLedger {
  private readonly parsed: LedgerEntry[] = []
  private counter = 0

  /** The entries, as the reader hands them over. */
  get entries(): LedgerEntry[] {
    return [...this.parsed]
  }

  /** A revision of an object (not an entry: outputs of a transformation are made from these). */
  revision(object: string, text: string, parents: readonly string[] = []): RevisionRef {
    const hash = contentHash(`${object}\n${text}`)
    return { object, revision: revisionId(hash, parents), content_hash: hash, parents: [...parents] }
  }

  private envelope(kind: string, body: unknown, at?: string): LedgerEntry {
    this.counter += 1
    const n = this.counter
    const line = JSON.stringify({
      format: 0,
      id: uuid('0198c0a0', n),
      kind,
      time: at ?? new Date(Date.UTC(2026, 6, 18, 9, 0, n)).toISOString(),
      writer: WRITER,
      idem: uuid('0198c0b0', n),
      body,
    })
    const verdict = parseLedgerLine(line)
    if (verdict.status !== 'entry') throw new Error(`hand-written line is not a format-0 entry (${verdict.status === 'malformed' ? verdict.reason : 'future format'}): ${line}`)
    this.parsed.push(verdict.entry)
    return verdict.entry
  }

  register(object: string, path: string, schema?: string): LedgerEntry {
    return this.envelope('object-registered', schema === undefined ? { object, path } : { object, path, schema })
  }

  /** A transformation (spec §5.4.1); returns its entry id, the `txf` of its edges. */
  transform(
    outputs: readonly RevisionRef[],
    inputs: ReadonlyArray<{ object: string; revision: string; role?: 'direct' | 'contextual'; kind?: string }> = [],
    agent: { type: 'human' | 'model' | 'external' | 'git'; id?: string } = { type: 'model', id: 'claude-fable-5' },
  ): string {
    return this.envelope('transformation', {
      inputs: inputs.map((input) => ({ object: input.object, revision: input.revision, role: input.role ?? 'direct', ...(input.kind === undefined ? {} : { kind: input.kind }) })),
      outputs,
      agent,
      intent: { kind: 'genie', summary: 'hand-written' },
      confidence: agent.type === 'external' ? 'unknown' : 'exact',
    }).id
  }

  /** A ratification (spec §5.4.3). */
  ratify(txf: string, input: number, upstream: string, pinned: string, against: string, at?: string): string {
    return this.envelope('ratification', { edge: { txf, input }, upstream_object: upstream, pinned, resolved_against: against, actor: { type: 'human', id: 'xiaolai' } }, at).id
  }

  /** A waiver (spec §5.4.3); `expires` optional. */
  waive(txf: string, input: number, upstream: string, pinned: string, against: string, options: { expires?: string; at?: string } = {}): string {
    return this.envelope(
      'waiver',
      {
        edge: { txf, input },
        upstream_object: upstream,
        pinned,
        resolved_against: against,
        actor: { type: 'human', id: 'xiaolai' },
        reason: 'Divergence intentional — unreliable narrator in ch. 3',
        ...(options.expires === undefined ? {} : { expires: options.expires }),
      },
      options.at,
    ).id
  }

  /** A check result (spec §5.4.4); `context` and `claims_fingerprint` omitted when null (pre-revision-1 history). */
  check(
    txf: string,
    input: number,
    pinned: string,
    against: string,
    verdict: 'no-contradiction' | 'contradiction' | 'unknown',
    live: { context: string; fingerprint: string } | null,
  ): string {
    return this.envelope('check-result', {
      edge: { txf, input },
      pinned,
      checked_against: against,
      verdict,
      model: 'claude-fable-5',
      prompt_version: 'check-v1',
      evidence: [],
      confidence: 0.95,
      ...(live === null ? {} : { context: live.context, claims_fingerprint: live.fingerprint }),
    }).id
  }

  /** A claim entry (spec §5.4.5); returns the entry id. */
  claim(claim: string, statement: string, maturity: 'draft' | 'established', options: { supersedes?: string; invalidAt?: string } = {}): string {
    return this.envelope('claim', {
      claim,
      statement,
      valid_at: '2026-07-01T00:00:00Z',
      invalid_at: options.invalidAt ?? null,
      established_by: [],
      supersedes: options.supersedes ?? null,
      maturity,
    }).id
  }

  /** A delegation entry (spec §5.4.7); returns the entry id. An empty scope on a superseding entry is a revocation. */
  delegate(grant: string, delegate: string, scope: readonly string[], expires: string, supersedes: string | null = null): string {
    return this.envelope('delegation', {
      delegation: grant,
      actor: { type: 'human', id: 'xiaolai' },
      delegate: { type: 'external', id: delegate },
      scope: [...scope],
      expires,
      supersedes,
    }).id
  }

  /** A resolution an agent made under a grant (spec §5.4.3 revision 2). */
  agentResolution(kind: 'ratification' | 'waiver', txf: string, input: number, upstream: string, pinned: string, against: string, agent: string, grant: string): string {
    return this.envelope(kind, {
      edge: { txf, input },
      upstream_object: upstream,
      pinned,
      resolved_against: against,
      actor: { type: 'agent', id: agent },
      ...(kind === 'waiver' ? { reason: 'agent waived' } : {}),
      delegation: grant,
    }).id
  }

  diagnostic(code: string, path: string): string {
    return this.envelope('diagnostic', { code, message: 'recorded earlier', path }).id
  }

  /** Any other line, e.g. a kind from a future revision of the format (must be preserved and ignored). */
  other(kind: string, body: unknown): string {
    return this.envelope(kind, body).id
  }
}

/** SHA-256 of the empty string: the fingerprint of an empty claim feed (spec §5.4.4). */
export const EMPTY_FEED = 'sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'
