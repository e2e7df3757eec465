import { QuireError } from '../errors.js'
import type { DocumentState } from './documentState.js'
import { NO_IDS, uniteIds, type IdRanges } from './idRanges.js'
import { BaseMismatchError, captureBase, type DocumentBase } from './rebase.js'
import type { Sighting } from './sightings.js'
import { applyHunks } from './textDiff.js'

/**
 * A write's base with what the next merged write records of it: the revision its written text started from (its
 * origin), that revision's text, and the characters of the origin dropped from it since.
 */
export interface ResolvedBase {
  readonly base: DocumentBase
  readonly origin: number
  readonly originText: string
  readonly dropped: IdRanges
}

/** How many documents' bases a node keeps at most, and how many characters of base text in all. */
const KEPT_BASES = 64
const KEPT_CHARACTERS = 32 * 1024 * 1024

/**
 * The bases of writes (DESIGN §4), rebuilt from the log when this node does not hold them: a sighting names a revision
 * (or a revision and a written text), and any node rebuilds the same base from the log. The bases a node made itself
 * (at a read, after a write) are kept here so that the usual write needs no rebuild; what is kept is a pure function
 * of the log, so a node that lost it (a restart, an eviction) only pays a rebuild.
 */
export class WriteBases {
  private readonly kept = new Map<string, DocumentBase>()
  private characters = 0

  constructor(
    /** The document as it was at a log position, rebuilt from its events (the caller destroys it). */
    private readonly rebuildAt: (docId: string, position: number) => Promise<DocumentState | undefined>,
  ) {}

  /** Keeps the base of `state` as it is now: a read of it, or a write that left exactly its writer's text. */
  remember(state: DocumentState): void {
    const key = revisionKey(state.docId, state.revisionPosition)
    if (this.kept.has(key)) return
    this.keep(key, captureBase(state.ydoc, state.content, state.snapshot()))
  }

  /** Keeps the written base of the sighting at log position `position` (a merged write's `document.seen`). */
  rememberWritten(docId: string, position: number, base: DocumentBase): void {
    this.keep(writtenKey(docId, position), base)
  }

  /** The base `sighting` names, if this node holds it (no rebuild needed). */
  cached(docId: string, sighting: Sighting): ResolvedBase | undefined {
    const originKey = revisionKey(docId, sighting.written?.origin ?? sighting.revisionPosition)
    const origin = this.kept.get(originKey)
    if (!origin) return undefined
    this.keep(originKey, origin)
    if (!sighting.written) return { base: origin, origin: sighting.revisionPosition, originText: origin.text, dropped: NO_IDS }
    const written = this.kept.get(writtenKey(docId, sighting.position)) ?? this.writtenFrom(origin, sighting)
    this.rememberWritten(docId, sighting.position, written)
    return { base: written, origin: sighting.written.origin, originText: origin.text, dropped: sighting.written.dropped }
  }

  /**
   * The base `sighting` names, rebuilt from the log when this node does not hold it. STALE when it cannot be (the
   * document did not exist at its origin): a write is never merged from a guess.
   */
  async resolve(docId: string, sighting: Sighting): Promise<ResolvedBase> {
    const cached = this.cached(docId, sighting)
    if (cached) return cached
    const origin = sighting.written?.origin ?? sighting.revisionPosition
    const state = await this.rebuildAt(docId, origin)
    if (!state || state.revisionPosition !== origin) {
      state?.destroy()
      throw new QuireError('STALE', 'the text this tab last read or wrote is not in the log; read the document again before writing', { reason: 'base' })
    }
    try {
      this.keep(revisionKey(docId, origin), captureBase(state.ydoc, state.content))
    } finally {
      state.destroy()
    }
    return this.cached(docId, sighting)!
  }

  /** The written text's base: the origin's characters, less those dropped since, plus those the writes added. */
  private writtenFrom(origin: DocumentBase, sighting: Sighting): DocumentBase {
    const written = sighting.written!
    const text = applyHunks(origin.text, written.hunks)
    if (text.length !== written.length) throw new BaseMismatchError(`a written base rebuilds to ${text.length} characters, not the ${written.length} it recorded`)
    return { text, snapshot: null, stateVector: origin.stateVector, deleted: uniteIds(origin.deleted, written.dropped), added: written.added, phantoms: written.phantoms }
  }

  private keep(key: string, base: DocumentBase): void {
    const previous = this.kept.get(key)
    if (previous) this.characters -= previous.text.length
    this.kept.delete(key)
    this.kept.set(key, base)
    this.characters += base.text.length
    while (this.kept.size > KEPT_BASES || (this.characters > KEPT_CHARACTERS && this.kept.size > 1)) {
      const [oldest, dropped] = this.kept.entries().next().value!
      this.kept.delete(oldest)
      this.characters -= dropped.text.length
    }
  }
}

const revisionKey = (docId: string, revisionPosition: number): string => `${docId}@${revisionPosition}`
const writtenKey = (docId: string, position: number): string => `${docId}#${position}`
