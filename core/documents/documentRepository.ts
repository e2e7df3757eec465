import type { EventLog } from '../log/eventLog.js'
import { DOCUMENT_STREAM_PREFIX, docIdOfStream, documentStream } from './events.js'
import { DocumentState } from './documentState.js'

export const DOCUMENTS_PROJECTION = 'documents'

export interface DocumentRepositoryOptions {
  /** Write a snapshot once a document has this many events past its last one. */
  readonly snapshotEvery?: number
}

/**
 * The live documents: each loaded on first use from its snapshot plus the tail of its stream, so opening one huge
 * document never slows the others, and start-up does not read the log at all. Snapshots are an optimisation only:
 * `rebuild` ignores them, and `quire verify` checks that both paths agree.
 */
export class DocumentRepository {
  private readonly states = new Map<string, DocumentState>()
  private readonly loading = new Map<string, Promise<DocumentState | undefined>>()
  private readonly snapshotting = new Set<string>()
  private readonly snapshotEvery: number

  constructor(
    private readonly store: EventLog,
    options: DocumentRepositoryOptions = {},
  ) {
    this.snapshotEvery = options.snapshotEvery ?? 5_000
  }

  /** The document's live state, loading it if needed; undefined when no such document exists. */
  get(docId: string): Promise<DocumentState | undefined> {
    const state = this.states.get(docId)
    if (state) return Promise.resolve(state)
    let pending = this.loading.get(docId)
    if (!pending) {
      pending = this.load(docId).finally(() => this.loading.delete(docId))
      this.loading.set(docId, pending)
    }
    return pending
  }

  /** The state if it is already in memory. */
  peek(docId: string): DocumentState | undefined {
    return this.states.get(docId)
  }

  /**
   * The state if it is in memory, or once it is if it is being loaded; undefined (without loading it) otherwise. For
   * folding another node's event into what this node holds: a document nobody loaded reads the event from the log
   * when it is loaded.
   */
  resident(docId: string): Promise<DocumentState | undefined> | undefined {
    const state = this.states.get(docId)
    return state ? Promise.resolve(state) : this.loading.get(docId)
  }

  /** Registers the state of a document just created by a command. */
  adopt(state: DocumentState): void {
    this.states.set(state.docId, state)
  }

  /**
   * Drops a document from memory so the next `get` rebuilds it from the log. Used when in-memory state can no
   * longer be trusted to match the log (an append failed after the Y.Doc was changed).
   */
  evict(docId: string): void {
    this.states.get(docId)?.destroy()
    this.states.delete(docId)
  }

  /** Ids of every document in the log. */
  async ids(): Promise<string[]> {
    const ids: string[] = []
    for await (const { stream } of this.store.streams(DOCUMENT_STREAM_PREFIX)) ids.push(docIdOfStream(stream))
    return ids
  }

  private async load(docId: string): Promise<DocumentState | undefined> {
    const stream = documentStream(docId)
    const head = await this.store.streamHead(stream)
    if (head.version === 0) return undefined
    let state: DocumentState | undefined
    const snapshot = await this.store.loadSnapshot(DOCUMENTS_PROJECTION, docId)
    if (snapshot) {
      try {
        const restored = DocumentState.fromSnapshot(docId, snapshot.payload)
        if (restored.version <= head.version) state = restored
        else restored.destroy()
      } catch {
        // An unreadable snapshot is only a lost optimisation.
      }
    }
    state ??= new DocumentState(docId)
    for await (const event of this.store.readStream(stream, { fromVersion: state.version + 1 })) state.apply(event)
    // A concurrent `adopt` cannot happen for an existing stream, so this is the only state for the document.
    this.states.set(docId, state)
    this.noteApplied(state)
    return state
  }

  /**
   * Rebuilds a document from its events alone (no snapshot), up to and including `toPosition` when given.
   * This is what `replay` and `verify` use; the caller owns (and destroys) the result.
   */
  async rebuild(docId: string, toPosition = Number.MAX_SAFE_INTEGER): Promise<DocumentState | undefined> {
    const state = new DocumentState(docId)
    for await (const event of this.store.readStream(documentStream(docId))) {
      if (event.position > toPosition) break
      state.apply(event)
    }
    if (state.version === 0) {
      state.destroy()
      return undefined
    }
    return state
  }

  /**
   * The latest revision (a log position after `after`) at which the document's content hashed to `sha256`, found by
   * folding its stream once; undefined when none did. At most `maxEvents` events past `after` are looked at, so a
   * question about a long-unsaved document stays bounded.
   */
  async revisionWithHash(docId: string, sha256Hex: string, after: number, maxEvents = 20_000): Promise<number | undefined> {
    const state = new DocumentState(docId)
    let found: number | undefined
    let looked = 0
    let lastRevision = -1
    try {
      for await (const event of this.store.readStream(documentStream(docId))) {
        state.apply(event)
        if (event.position <= after || state.revisionPosition === lastRevision) continue
        lastRevision = state.revisionPosition
        if (state.contentHash === sha256Hex) found = state.revisionPosition
        if (++looked >= maxEvents) break
      }
      return found
    } finally {
      state.destroy()
    }
  }

  /** Call after folding events into a live state: snapshots it once enough events have gathered. */
  noteApplied(state: DocumentState): void {
    // A snapshot the disk refuses is only a lost optimisation (a full disk must not crash the process).
    if (state.version - state.snapshotVersion >= this.snapshotEvery) this.snapshot(state).catch(() => {})
  }

  /**
   * Writes a snapshot of `state` as it is now, once everything folded into it is durable: a snapshot never holds an
   * event the log could still lose. Steady writes do not starve it, because it waits for this position only.
   */
  async snapshot(state: DocumentState): Promise<void> {
    // Such a document is rebuilt from its events instead (a snapshot is only ever an optimisation).
    if (this.snapshotting.has(state.docId) || state.holdsPendingUpdates) return
    this.snapshotting.add(state.docId)
    try {
      const payload = state.encodeSnapshot()
      const { version, position } = state
      await this.store.flush()
      // Everything folded into it must be on disk: a flush also settles appends that failed and were rolled back.
      if (this.store.isClosed || this.states.get(state.docId) !== state || position > this.store.durableHeadPosition) return
      await this.store.saveSnapshot(DOCUMENTS_PROJECTION, state.docId, { position, payload })
      state.snapshotVersion = Math.max(state.snapshotVersion, version)
    } finally {
      this.snapshotting.delete(state.docId)
    }
  }

  /** Snapshots every loaded document that has events past its last snapshot. */
  async snapshotAll(): Promise<void> {
    for (const state of [...this.states.values()]) {
      if (state.version > state.snapshotVersion) await this.snapshot(state)
    }
  }

  /** Snapshots what is loaded and releases it. */
  async close(): Promise<void> {
    try {
      await this.snapshotAll()
    } finally {
      for (const state of this.states.values()) state.destroy()
      this.states.clear()
    }
  }
}
