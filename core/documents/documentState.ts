import { createHash } from 'node:crypto'
import * as Y from 'yjs'
import * as encoding from 'lib0/encoding'
import * as decoding from 'lib0/decoding'
import type { RecordedEvent } from '../log/eventLog.js'
import { DivergenceResolved, DocumentChanged, DocumentCreated, DocumentDiverged, DocumentSaved, DocumentSeen, JournalRecorded, ReviewKept, ReviewMarked, ReviewRedone, ReviewUndone, documentKinds, type DocumentKind } from './events.js'
import { Sightings, recordedWrittenText, sightingKey, writtenTextOf, type RecordedWrittenText, type Sighting } from './sightings.js'
import type { Actor } from '../events/actor.js'
import { positionOfRevision, revisionToken } from './revision.js'
import { dataOf } from '../events/schema.js'
import type { Hunk } from './textDiff.js'
import { textChanged } from './contentChange.js'
import { MIRROR_FRAGMENT } from '../markdown/mirror.js'
import { AiChanges, type AiChange, type AiChangesFields } from './aiChanges.js'
import { textHunksOf, type TextHunk } from './textChanges.js'
import { restoredRevision } from './restoreDetail.js'

export interface SavedMark {
  readonly path: string
  readonly sha256: string
  readonly length: number
  /** Log position of the `document.saved` event. */
  readonly position: number
  /** The revision (as a log position) whose content the file holds. */
  readonly revisionPosition: number
}

/** The tab and window whose write changed the document last (JRNL.9), and the position of that write's last change. */
export interface LastWriter {
  readonly tabId: string
  readonly windowLabel: string
  readonly position: number
}

export interface DocumentMeta {
  readonly docId: string
  readonly kind: DocumentKind
  readonly path: string | null
  readonly title: string
  readonly origin: 'untitled' | 'file' | 'trace'
  readonly createdAt: number
}

export interface LocalChange {
  readonly update: Uint8Array
  readonly textChanged: boolean
}

type DeleteSet = Y.Snapshot['ds']

/** 3: the AI changes with their hunks. Older snapshots are not read (the log rebuilds them). */
const SNAPSHOT_FORMAT = 3

/** The Yjs update that changes nothing (no structs, no deletions). */
const EMPTY_UPDATE = Y.encodeStateAsUpdate(new Y.Doc())

export const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex')

/** How a document's Y.Doc hands each finished transaction to its state; not exported, so no one else can call it. */
const transactionEnded: unique symbol = Symbol('transactionEnded')

/** What Yjs's default gc filter says (every deleted item may be collected), as one function rather than one per Y.Doc. */
const collectEveryDeletion = (): boolean => true

const NEVER_SETTLES = new Promise<never>(() => {})

/** The Yjs transaction origin of an assistant's change, whose text hunks the state captures (see captureOrigin). */
const CAPTURE: unique symbol = Symbol('an AI change')

/**
 * A document's Y.Doc, leaner than a default one so that an idle document costs no more than a plain Y.Doc of its
 * text (issue 16; bytes per document measured in bench/scaling/idle-memory.txt):
 * - the end of every transaction reaches the state through `emit` instead of a listener (a Set and a closure per
 *   document, about 250 B). Yjs ends every transaction, whoever makes it (this state, a peer through the collab
 *   adapter, the WYSIWYG bridge, y-prosemirror), by emitting `afterTransaction`, and the state hears it before any
 *   listener, as it did when its own listener was the first one registered; once the Y.Doc is destroyed it no longer
 *   hears it, as a listener would not.
 * - its guid is the document's id, not a fresh uuid (Yjs reads the guid only to tell subdocuments apart, and
 *   documents have none), and its gc filter is shared.
 * - the `load` and `sync` handlers every Y.Doc registers for providers (they back `whenLoaded`, `whenSynced`,
 *   `isSynced`: about 1,000 B of closures and Sets) are removed. No provider is ever attached to a document's Y.Doc:
 *   it is loaded from the log, and peers reach it through the engine, which applies their updates; nothing here
 *   emits `load` or `sync` on it, so those promises stay pending and `isSynced` false, as they did before (one
 *   shared promise that never settles stands for both).
 */
class DocumentYDoc extends Y.Doc {
  constructor(
    guid: string,
    private readonly state: DocumentState,
  ) {
    super({ guid, gcFilter: collectEveryDeletion })
    this._observers.delete('load')
    this._observers.delete('sync')
    // Without those handlers nothing can settle them any more; one promise that never settles says the same.
    this.whenLoaded = NEVER_SETTLES
    this.whenSynced = NEVER_SETTLES
  }

  override emit(name: Parameters<Y.Doc['emit']>[0], args: Parameters<Y.Doc['emit']>[1]): void {
    if (name === 'afterTransaction' && !this.isDestroyed) this.state[transactionEnded](args[0] as Y.Transaction)
    super.emit(name, args)
  }
}

/**
 * One document's state, folded from its `doc:<id>` stream: a Y.Doc whose `source` text is the canonical content,
 * the revision (position of the last event that changed the content), and the mark of the last save or open.
 *
 * `apply` is the fold used by replay and loading. Live edits mutate the Y.Doc first (`transactLocal`,
 * `applyRemote`) and then record the event with `recordApplied`, in the same synchronous step as the append, so the
 * Y.Doc always sees events in log order.
 */
export class DocumentState {
  readonly ydoc: Y.Doc
  readonly text: Y.Text
  // The WYSIWYG mirror that ProseMirror editors bind (y-prosemirror, the fragment MIRROR_FRAGMENT) is not created
  // here: most documents never have a WYSIWYG editor, and an idle document should cost what a plain Y.Doc of its
  // text costs. The bridge creates it when the first editor attaches; its changes never change the revision.
  meta: DocumentMeta | undefined
  /** Last stream version and log position folded in. */
  version = 0
  position = 0
  revisionPosition = 0
  saved: SavedMark | null = null
  /** Set when the file changed on disk under unsaved changes; `kept` once the person chose the tab's version. */
  divergence: { readonly sha256: string; readonly kept: boolean } | null = null
  /** Folded from the log, so every node sharing it knows who wrote last; null when no tab's write is known. */
  lastWriter: LastWriter | null = null
  /** Log position of the last change the person made (a peer's or the person's own), 0 when none. */
  personEditPosition = 0
  /** The tab of the latest journal entry (at `position`), until its change lands: the change names the entry. */
  private journalWriter: { readonly tabId: string; readonly windowLabel: string; readonly position: number } | null = null
  /** Stream version of the snapshot this state was restored from or last written to. */
  snapshotVersion = 0
  private lastTextChanged = false
  private lastStateChanged = false
  private lastMirrorChanged = false
  /**
   * Set while a local change runs: whether it changes the text when that is known ahead (hunks always do when there
   * are any), else undefined and the transaction is looked at.
   */
  private localChange: { readonly changesText: boolean | undefined } | undefined
  /**
   * Counts the transactions that changed the text. The caches below are keyed by it rather than by the revision:
   * a local change knows its text before its event moves the revision, and the text is the same before and after
   * the commit that records it.
   */
  private textVersion = 0
  /** Counts every transaction: the cached snapshot is of the state after transaction number `stamp`. */
  private transactions = 0
  /**
   * The content and its hash, each as of the text version beside it (-1: not read yet). Plain fields rather than a
   * small object each: a document that was read keeps them while idle.
   */
  private cachedContent = ''
  private cachedContentVersion = -1
  private cachedHash = ''
  private cachedHashVersion = -1
  private cachedSnapshot: { stamp: number; snapshot: Y.Snapshot } | undefined
  /** What each principal last saw through each tab (undefined while none did): the base of its next write. */
  private sightings: Sightings | undefined
  /** The AI changes and where the person's review left each (undefined while there was none). */
  private changes: AiChanges | undefined
  /** Log position up to which the person marked every AI change reviewed (0: never). */
  reviewedUpTo = 0
  /**
   * Log position of the last event that made an AI change or moved the person's review of one (0: none): what the
   * console compares to know its list of pending changes is out of date, where every keystroke moves the revision.
   */
  changesPosition = 0
  /** The text hunks of the transactions an AI change's content made, since the change's event was last folded. */
  private captured: TextHunk[] = []

  constructor(readonly docId: string) {
    this.ydoc = new DocumentYDoc(docId, this)
    this.text = this.ydoc.getText('source')
  }

  /**
   * Called by the Y.Doc at the end of every transaction on it. Accumulated, not assigned: one change can run several
   * transactions (Yjs cleans up formatting in a follow-up transaction of its own), and callers reset both flags before
   * each change they make.
   */
  [transactionEnded](transaction: Y.Transaction): void {
    // A local change of known hunks knows the answer already (see transactLocal).
    const known = this.localChange?.changesText
    const changedText = known ?? textChanged(transaction, this.text)
    if (known === undefined) this.lastTextChanged ||= changedText
    if (changedText) this.textVersion++
    this.lastStateChanged ||=
      transaction.deleteSet.clients.size > 0 || !sameState(transaction.beforeState, transaction.afterState)
    const mirror = this.ydoc.share.get(MIRROR_FRAGMENT)
    if (mirror) this.lastMirrorChanged ||= transaction.changedParentTypes.has(mirror) || transaction.changed.has(mirror)
    if (transaction.origin === CAPTURE && changedText) this.captured.push(...textHunksOf(transaction, this.text))
    this.carrySnapshot(transaction)
  }

  get revision(): string {
    return revisionToken(this.revisionPosition)
  }

  get content(): string {
    if (this.cachedContentVersion !== this.textVersion) {
      // O(items), tombstones included: on a long-edited document this walk costs milliseconds, so it is done once
      // per change of the text at most.
      this.cachedContent = this.text.toString()
      this.cachedContentVersion = this.textVersion
    }
    return this.cachedContent
  }

  get contentHash(): string {
    if (this.cachedHashVersion !== this.textVersion) {
      this.cachedHash = sha256(this.content)
      this.cachedHashVersion = this.textVersion
    }
    return this.cachedHash
  }

  /**
   * The Yjs snapshot of the document as it is now (what a tab's base records). A fresh Y.snapshot walks every
   * struct, tombstones included; after a local change the previous snapshot is carried forward by the change's own
   * deletions instead (see carrySnapshot), so a run of writes pays the walk once. Treat it as immutable.
   */
  snapshot(): Y.Snapshot {
    if (this.cachedSnapshot?.stamp !== this.transactions) {
      this.cachedSnapshot = { stamp: this.transactions, snapshot: Y.snapshot(this.ydoc) }
    }
    return this.cachedSnapshot.snapshot
  }

  /**
   * Keeps the cached snapshot current across a local change: the state after it is the state before plus what
   * the transaction created (its after-state) and deleted (its delete set). Only a local change is carried: an
   * applied update can bring garbage-collected structs, deleted without passing through the transaction's delete
   * set, so any other transaction drops the cache and the next snapshot is taken afresh.
   */
  private carrySnapshot(transaction: Y.Transaction): void {
    const previous = this.cachedSnapshot
    this.transactions++
    if (!previous || previous.stamp !== this.transactions - 1 || !this.localChange) {
      this.cachedSnapshot = undefined
      return
    }
    const deleted = transaction.deleteSet.clients.size === 0 ? previous.snapshot.ds : unitedDeleteSet(previous.snapshot.ds, transaction.deleteSet)
    this.cachedSnapshot = { stamp: this.transactions, snapshot: Y.createSnapshot(deleted, new Map(transaction.afterState)) }
  }

  /**
   * Unsaved: the revision is not the one the file was last saved at (or read at), unless the content came back to
   * exactly what the file holds; an untitled document with text.
   */
  /**
   * Whether the Y.Doc holds updates it could not integrate yet (structs or deletions whose dependencies no one sent: a
   * damaged or hostile peer's). Yjs's state encoding merges them into the snapshot, and a document restored from that
   * merge does not always read as the events folded in order do.
   */
  get holdsPendingUpdates(): boolean {
    return this.ydoc.store.pendingStructs !== null || this.ydoc.store.pendingDs !== null
  }

  get dirty(): boolean {
    if (!this.saved) return this.text.length > 0
    if (this.saved.revisionPosition === this.revisionPosition) return false
    return this.text.length !== this.saved.length || this.contentHash !== this.saved.sha256
  }

  /** The fold: applies one event of this document's stream, in log order. */
  apply(event: RecordedEvent): void {
    switch (event.type) {
      case DocumentCreated.type: {
        this.meta = metaOf(this.docId, event)
        this.applyUpdate(dataOf(event, DocumentCreated).update)
        // Creation brings the content into existence, even empty content.
        this.revisionPosition = event.position
        break
      }
      case DocumentChanged.type: {
        const data = dataOf(event, DocumentChanged)
        const capturing = this.capturesChange(event)
        if (this.applyUpdate(data.update, capturing ? CAPTURE : null)) this.revisionPosition = event.position
        this.foldWriter(data.journal, event.position)
        this.foldPersonEdit(event)
        if (capturing) this.foldChange(data.journal!, event.position)
        break
      }
      case JournalRecorded.type: {
        const data = dataOf(event, JournalRecorded)
        const writer = data.writer
        this.journalWriter = writer ? { tabId: writer.tabId, windowLabel: writer.windowLabel, position: event.position } : null
        const restore = restoredRevision(data.detail) !== undefined
        if (event.actor.kind === 'mcp' || restore || this.changes) {
          ;(this.changes ??= new AiChanges()).noteJournal(event.position, event.at, event.actor, data.operation, data.addresses ?? [], restore)
        }
        break
      }
      case ReviewKept.type: {
        const data = dataOf(event, ReviewKept)
        this.changes?.keep(data.change, data.hunks)
        this.changesPosition = event.position
        break
      }
      case ReviewUndone.type: {
        const data = dataOf(event, ReviewUndone)
        this.changes?.undone(data.change, data.hunks.map(({ index, restored }) => ({ index, created: restored })))
        this.changesPosition = event.position
        break
      }
      case ReviewRedone.type: {
        const data = dataOf(event, ReviewRedone)
        this.changes?.redone(data.change, data.hunks.map(({ index, inserted }) => ({ index, created: inserted })))
        this.changesPosition = event.position
        break
      }
      case ReviewMarked.type: {
        const upTo = dataOf(event, ReviewMarked).upToPosition
        if (upTo > this.reviewedUpTo) {
          this.reviewedUpTo = upTo
          this.changes?.keepUpTo(upTo)
          this.changesPosition = event.position
        }
        break
      }
      case DocumentSaved.type: {
        const data = dataOf(event, DocumentSaved)
        const revisionPosition = data.revision === null ? this.revisionPosition : (positionOfRevision(data.revision) ?? this.revisionPosition)
        this.saved = { path: data.path, sha256: data.sha256, length: data.length, position: event.position, revisionPosition }
        if (this.meta) this.meta = { ...this.meta, path: data.path }
        // The file and the document agree again.
        this.divergence = null
        break
      }
      case DocumentDiverged.type:
        this.divergence = { sha256: dataOf(event, DocumentDiverged).sha256, kept: false }
        break
      case DivergenceResolved.type:
        if (this.divergence && dataOf(event, DivergenceResolved).choice === 'keep') this.divergence = { ...this.divergence, kept: true }
        break
      case DocumentSeen.type: {
        const data = dataOf(event, DocumentSeen)
        const sighting: Sighting = { position: event.position, revisionPosition: this.revisionPosition, ...(data.written ? { written: writtenTextOf(data.written) } : {}) }
        ;(this.sightings ??= new Sightings()).note(sightingKey(data.tabId, event.actor), sighting)
        break
      }
      default:
        break
    }
    this.version = event.streamVersion
    this.position = event.position
  }

  /** A change by a peer (the person's editor) or by the person is the person's edit. */
  private foldPersonEdit(event: RecordedEvent): void {
    if (event.actor.kind === 'peer' || event.actor.kind === 'user') this.personEditPosition = event.position
  }

  /**
   * Whether the person has edits of their own that no save has written (the last save captured a revision older than
   * their last change). An assistant's write does not save them behind their back (docs/tools.md, document.write).
   */
  get personEditsUnsaved(): boolean {
    return this.personEditPosition > (this.saved?.revisionPosition ?? 0)
  }

  /** Whether an assistant's write changed the document after what the last save wrote (the file lacks it). */
  get assistantChangeUnsaved(): boolean {
    return this.dirty && (this.lastWriter?.position ?? 0) > (this.saved?.revisionPosition ?? 0)
  }

  /** What `actor` last saw of the document through tab `tabId` (DESIGN §4: the base of its next write), if anything. */
  sightingOf(tabId: string, actor: Actor): Sighting | undefined {
    return this.sightings?.get(tabId, actor)
  }

  /** The sightings as the snapshot keeps them (and `verify` compares them), oldest first. */
  sightingsRecord(): { key: string; position: number; revisionPosition: number; written: RecordedWrittenText | null }[] {
    if (!this.sightings) return []
    return [...this.sightings.entries()].map(([key, { position, revisionPosition, written }]) => ({ key, position, revisionPosition, written: written ? recordedWrittenText(written) : null }))
  }

  /** A change made by the latest journal entry's write (its follow-ups too) makes that entry's tab the last writer. */
  private foldWriter(journal: number | undefined, position: number): void {
    if (journal !== undefined && this.journalWriter?.position === journal) {
      this.lastWriter = { tabId: this.journalWriter.tabId, windowLabel: this.journalWriter.windowLabel, position }
    }
  }

  /**
   * Whether `event` is content of an AI change (an assistant's own change event carrying its journal entry): its text
   * hunks are captured as it is applied. The bridge's follow-ups (by `system`) change the mirror, not the text.
   */
  private capturesChange(event: RecordedEvent): boolean {
    return (event.actor.kind === 'mcp' || event.actor.kind === 'user') && this.changes?.captures(dataOf(event, DocumentChanged).journal) === true
  }

  /** Gives the text hunks captured since to AI change `journal` (its content event is at `position`). */
  private foldChange(journal: number, position: number): void {
    const hunks = this.captured
    this.captured = []
    this.changes!.noteApplied(journal, hunks, this.revisionPosition)
    this.changesPosition = position
  }

  /**
   * An assistant's change is about to be applied to this state ahead of its append (DocumentCommands' write): the
   * Yjs origin that makes its transactions' text hunks captured, as `apply` captures them when it folds the event.
   */
  captureOrigin(actor: Actor, journal: number): typeof CAPTURE | null {
    return (actor.kind === 'mcp' || actor.kind === 'user') && this.changes?.captures(journal) === true ? CAPTURE : null
  }

  /** The document's AI changes, oldest first (DESIGN §11). */
  aiChanges(): readonly AiChange[] {
    return this.changes?.all() ?? []
  }

  aiChange(id: number): AiChange | undefined {
    return this.changes?.get(id)
  }

  /**
   * The review backlog's counts (DOC.WRITE.18): the AI changes the person has neither kept nor undone, and how far
   * their last "mark all reviewed" reached.
   */
  reviewCounts(): { readonly unreviewed: number; readonly reviewedUpTo: number } {
    return { unreviewed: this.changes?.pendingCount ?? 0, reviewedUpTo: this.reviewedUpTo }
  }

  /** Applies a Yjs update; true when it changed the text. Never throws: a malformed update changes nothing. */
  private applyUpdate(update: Uint8Array, origin: typeof CAPTURE | null = null): boolean {
    this.lastTextChanged = false
    try {
      Y.applyUpdate(this.ydoc, update, origin)
    } catch {
      return false
    }
    return this.lastTextChanged
  }

  /**
   * Applies a peer's update ahead of recording it. `stateChanged` is false when the update brought nothing new
   * (a duplicate), in which case nothing should be recorded.
   */
  applyRemote(update: Uint8Array, origin: typeof CAPTURE | null = null): { stateChanged: boolean; textChanged: boolean; mirrorChanged: boolean } {
    const store = this.ydoc.store
    const pendingStructs = store.pendingStructs
    const pendingDs = store.pendingDs
    this.lastTextChanged = false
    this.lastStateChanged = false
    this.lastMirrorChanged = false
    Y.applyUpdate(this.ydoc, update, origin)
    const stateChanged = this.lastStateChanged || store.pendingStructs !== pendingStructs || store.pendingDs !== pendingDs
    return { stateChanged, textChanged: this.lastTextChanged, mirrorChanged: this.lastMirrorChanged }
  }

  /**
   * Applies hunks as one local Yjs transaction and returns the update it produced, ahead of recording it. `origin`
   * marks an assistant's change whose text hunks are captured (captureOrigin).
   */
  transactLocal(hunks: readonly Hunk[], origin: typeof CAPTURE | null = null): LocalChange {
    // Hunks from a diff of two different texts always change the text, and an empty list never does; replaying the
    // update decides the same way, by looking at what it did.
    return this.transactLocalWith(() => {
      // Back to front, so each hunk's offsets are still those of the old text.
      for (let i = hunks.length - 1; i >= 0; i--) {
        const hunk = hunks[i]!
        if (hunk.deleteCount > 0) this.text.delete(hunk.start, hunk.deleteCount)
        if (hunk.insert.length > 0) this.text.insert(hunk.start, hunk.insert)
      }
    }, origin, hunks.length > 0)
  }

  /**
   * Runs `change` as one local Yjs transaction on the document and returns the update it produced (ahead of recording
   * it), whether it changed the text (`changesText` when known ahead, else from the transaction) and what `change`
   * returned.
   */
  transactLocalWith<T>(change: (transaction: Y.Transaction) => T, origin: typeof CAPTURE | null = null, changesText?: boolean): LocalChange & { readonly result: T } {
    let update: Uint8Array = EMPTY_UPDATE
    const capture = (produced: Uint8Array) => {
      update = produced
    }
    this.ydoc.on('update', capture)
    this.localChange = { changesText }
    this.lastTextChanged = false
    let result!: T
    try {
      this.ydoc.transact((transaction) => {
        result = change(transaction)
      }, origin)
    } finally {
      this.ydoc.off('update', capture)
      this.localChange = undefined
    }
    return { update, textChanged: changesText ?? this.lastTextChanged, result }
  }

  /**
   * Sets the cached content to `text`, known to be what the text now holds (a local change just made it so), so the
   * next read need not walk the whole Y.Text.
   */
  primeContent(text: string): void {
    this.cachedContent = text
    this.cachedContentVersion = this.textVersion
  }

  /**
   * Folds an event recorded after its effect was applied: a content event whose Yjs update `transactLocal` or
   * `applyRemote` already applied (so it is not applied twice). Any other event is folded as usual.
   */
  recordApplied(event: RecordedEvent, changedText: boolean): void {
    if (event.type !== 'document.created' && event.type !== 'document.changed') {
      this.apply(event)
      return
    }
    if (event.type === 'document.created' || changedText) this.revisionPosition = event.position
    if (event.type === 'document.created') this.meta = metaOf(this.docId, event)
    else {
      const { journal } = dataOf(event, DocumentChanged)
      this.foldWriter(journal, event.position)
      this.foldPersonEdit(event)
      // Its transactions ran with captureOrigin, so its hunks were captured as they would be by `apply`.
      if (this.capturesChange(event)) this.foldChange(journal!, event.position)
    }
    this.version = event.streamVersion
    this.position = event.position
  }

  encodeSnapshot(): Uint8Array {
    const encoder = encoding.createEncoder()
    encoding.writeVarUint(encoder, SNAPSHOT_FORMAT)
    encoding.writeAny(encoder, {
      meta: this.meta ? { ...this.meta } : null,
      version: this.version,
      position: this.position,
      revisionPosition: this.revisionPosition,
      saved: this.saved ? { ...this.saved } : null,
      divergence: this.divergence ? { ...this.divergence } : null,
      lastWriter: this.lastWriter ? { ...this.lastWriter } : null,
      personEditPosition: this.personEditPosition,
      journalWriter: this.journalWriter ? { ...this.journalWriter } : null,
      sightings: this.sightingsRecord(),
      reviewedUpTo: this.reviewedUpTo,
      changesPosition: this.changesPosition,
      changes: this.changes ? this.changes.fields() : null,
    })
    encoding.writeVarUint8Array(encoder, Y.encodeStateAsUpdate(this.ydoc))
    return encoding.toUint8Array(encoder)
  }

  /** Restores a state from a snapshot; throws on a snapshot it cannot read (callers then rebuild from the log). */
  static fromSnapshot(docId: string, bytes: Uint8Array): DocumentState {
    const decoder = decoding.createDecoder(bytes)
    const format = decoding.readVarUint(decoder)
    if (format !== SNAPSHOT_FORMAT) throw new Error(`unknown document snapshot format ${format}`)
    const fields = decoding.readAny(decoder) as {
      meta: DocumentMeta | null
      version: number
      position: number
      revisionPosition: number
      saved: SavedMark | null
      divergence?: { sha256: string; kept: boolean } | null
      reviewedUpTo: number
      /** Absent from snapshots written before it was folded: the next change or review sets it. */
      changesPosition?: number
      changes: AiChangesFields | null
      /** Absent from snapshots written before the last writer was folded: unknown until the next tab's write. */
      lastWriter?: LastWriter | null
      /** Absent from snapshots written before it was folded: no edit of the person's known. */
      personEditPosition?: number
      journalWriter?: { tabId: string; windowLabel: string; position: number } | null
      /** Absent from snapshots written before sightings were folded: none known, as after a restart then. */
      sightings?: { key: string; position: number; revisionPosition: number; written: RecordedWrittenText | null }[]
    }
    const state = new DocumentState(docId)
    Y.applyUpdate(state.ydoc, decoding.readVarUint8Array(decoder))
    state.meta = fields.meta ? sharedMeta(docId, fields.meta) : undefined
    state.version = fields.version
    state.position = fields.position
    state.revisionPosition = fields.revisionPosition
    state.saved = fields.saved
    state.divergence = fields.divergence ?? null
    state.lastWriter = fields.lastWriter ?? null
    state.personEditPosition = fields.personEditPosition ?? 0
    state.journalWriter = fields.journalWriter ?? null
    for (const { key, position, revisionPosition, written } of fields.sightings ?? []) {
      ;(state.sightings ??= new Sightings()).note(key, { position, revisionPosition, ...(written ? { written: writtenTextOf(written) } : {}) })
    }
    state.reviewedUpTo = fields.reviewedUpTo
    state.changesPosition = fields.changesPosition ?? 0
    state.changes = fields.changes ? AiChanges.fromFields(fields.changes) : undefined
    state.snapshotVersion = fields.version
    return state
  }

  destroy(): void {
    this.ydoc.destroy()
  }
}

/** A document's metadata from its `document.created` event. */
function metaOf(docId: string, event: RecordedEvent): DocumentMeta {
  const data = dataOf(event, DocumentCreated)
  return sharedMeta(docId, { docId: data.docId, kind: data.kind, path: data.path, title: data.title, origin: data.origin, createdAt: event.at })
}

const ORIGINS: readonly DocumentMeta['origin'][] = ['untitled', 'file', 'trace']

/**
 * The same metadata, with the strings every document has in common (its id, which the state holds already, its kind
 * and origin) the shared ones rather than the copies decoding made: the copies were about 100 B of every idle
 * document.
 */
function sharedMeta(docId: string, meta: DocumentMeta): DocumentMeta {
  return {
    docId: meta.docId === docId ? docId : meta.docId,
    kind: documentKinds.find((kind) => kind === meta.kind) ?? meta.kind,
    path: meta.path,
    title: meta.title,
    origin: ORIGINS.find((origin) => origin === meta.origin) ?? meta.origin,
    createdAt: meta.createdAt,
  }
}

/**
 * The union of two delete sets, in the form Y.snapshot gives (per client, sorted, adjacent ranges merged), so
 * Y.equalSnapshots compares it with a fresh snapshot correctly. `base` is not changed: clients `added` does not touch
 * keep their range arrays, shared.
 */
function unitedDeleteSet(base: DeleteSet, added: DeleteSet): DeleteSet {
  const united = Y.createDeleteSet()
  for (const [client, ranges] of base.clients) united.clients.set(client, ranges)
  for (const [client, more] of added.clients) {
    const merged: { clock: number; len: number }[] = []
    const push = (clock: number, len: number) => {
      const last = merged[merged.length - 1]
      if (last && last.clock + last.len >= clock) last.len = Math.max(last.len, clock + len - last.clock)
      else merged.push({ clock, len })
    }
    const old = base.clients.get(client) ?? []
    let i = 0
    let j = 0
    while (i < old.length || j < more.length) {
      const next = j >= more.length || (i < old.length && old[i]!.clock <= more[j]!.clock) ? old[i++]! : more[j++]!
      push(next.clock, next.len)
    }
    united.clients.set(client, merged as unknown as typeof old)
  }
  return united
}

function sameState(a: Map<number, number>, b: Map<number, number>): boolean {
  if (a.size !== b.size) return false
  for (const [client, clock] of a) if (b.get(client) !== clock) return false
  return true
}
