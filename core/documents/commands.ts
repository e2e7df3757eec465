import * as Y from 'yjs'
import { SYSTEM, type Actor } from '../events/actor.js'
import type { EventStore, EventInput, RecordedEvent } from '../log/eventStore.js'
import { STREAM_DOES_NOT_EXIST } from '../log/expectedVersion.js'
import { settlesWithin } from '../deadline.js'
import { newId } from '../ids.js'
import { QuireError } from '../errors.js'
import { DocumentState, sha256 } from './documentState.js'
import type { DocumentRepository } from './documentRepository.js'
import { documentStream, type DocumentKind, type JournalOperation } from './events.js'
import { positionOfRevision } from './revision.js'
import { textHunks } from './textDiff.js'
import { DocumentTurns } from './turns.js'
import type { AbortReason } from './editorGuards.js'
import { mirrorIsAttached, syncMirrorFromSource, syncSourceFromMirror } from './bridge.js'

export interface CreateDocumentInput {
  readonly kind: DocumentKind
  readonly content: string
  readonly path: string | null
  readonly title: string
  readonly origin: 'untitled' | 'file' | 'trace'
  readonly actor: Actor
  /** For `origin: 'file'`: the content is what the file holds, so the document starts clean. */
  readonly matchesFile?: boolean
}

export interface WriteInput {
  readonly docId: string
  /**
   * The complete new text, or how to compute it from the current document (a transform, a patch, a selection
   * replacement): computed inside the document's turn, after the revision check, so it rewrites exactly the text the
   * STALE check accepted. A computation may also bring the Yjs updates that make the change (computed on a copy of
   * the document, e.g. a WYSIWYG edit of the mirror and the bridge's follow-up), applied instead of a text diff.
   */
  readonly content: string | ((current: string, state: DocumentState) => string | PlannedChange)
  /** What the journal records this edit as (`write` by default), and what was asked for (a transform kind, patches). */
  readonly operation?: JournalOperation
  readonly detail?: string
  /** Comment ids the edit responds to, already validated (COM.ADDR.*): recorded with the journal entry. */
  readonly addresses?: readonly string[]
  readonly expectedRevision?: string
  readonly actor: Actor
  /**
   * Called in the document's turn just before the journal entry is recorded; returns the check asked once it is on
   * disk, just before the change is applied: a reason to abort (`closed`, `composing`, `selection`) if the person
   * acted meanwhile (JRNL.12), else undefined.
   */
  readonly watch?: () => () => AbortReason | undefined
  /** The tab and window writing, for STALE_PARENT (JRNL.9). */
  readonly writer?: { readonly tabId: string; readonly windowLabel: string }
  /** Checked in the document's turn before anything is recorded; throws to refuse (BUSY while the person composes). */
  readonly guard?: () => void
}

/** A change computed ahead: the text it leads to, and the Yjs updates (against the current state) that make it. */
export interface PlannedChange {
  readonly text: string
  readonly updates: readonly Uint8Array[]
}

export interface WriteOutcome {
  readonly revision: string
  /** False when the content already was `content`: nothing was journaled or changed. */
  readonly changed: boolean
  readonly durable: boolean
}

export interface PeerUpdateOutcome {
  readonly revision: string
  /** Number of updates recorded (duplicates are not). */
  readonly recorded: number
  /** Resolves once the recorded updates are fsync'd. */
  readonly durable: Promise<void>
}

/** Lone UTF-16 surrogates cannot be stored faithfully (INVALID_TEXT, JRNL.11). */
export const hasLoneSurrogate = (text: string): boolean => !text.isWellFormed()

/** Canonical content has LF line endings. */
export const normalizeLineEndings = (text: string): string => text.replace(/\r\n?/g, '\n')


/**
 * The document commands: each decides from the current state, appends events, and folds them into the live state
 * in the same synchronous step, so in-memory documents always match the log's order. The MCP adapter, the CLI and
 * the collaboration endpoint all call these.
 */
export class DocumentCommands {
  readonly turns = new DocumentTurns()
  /** Documents with a journal entry or a change still on its way to disk after its write answered. */
  private readonly pending = new Map<string, { stage: 'recording' | 'applying' }>()
  /** Per document, the window whose tab wrote it last and the position of that write (JRNL.9). */
  private readonly lastWriter = new Map<string, { windowLabel: string; position: number }>()
  /** Per tab, the position of the document it last read or wrote: what its next write is based on. */
  private readonly tabBaselines = new Map<string, number>()

  constructor(
    private readonly store: EventStore,
    private readonly documents: DocumentRepository,
    /** How long a write waits for the log before answering JOURNAL_UNAVAILABLE or `durable: false`. */
    private readonly journalDeadlineMs = 2_000,
  ) {}

  async create(input: CreateDocumentInput): Promise<{ docId: string; revision: string }> {
    const content = normalizeLineEndings(input.content)
    assertWellFormed(content)
    const docId = newId('d')
    const stream = documentStream(docId)
    await this.store.streamHead(stream)
    const state = new DocumentState(docId)
    const { update } = state.transactLocal(content.length > 0 ? [{ start: 0, deleteCount: 0, insert: content }] : [])
    const events: EventInput[] = [
      {
        type: 'document.created',
        actor: input.actor,
        data: { docId, kind: input.kind, path: input.path, title: input.title, origin: input.origin, update },
      },
    ]
    if (input.matchesFile && input.path) {
      events.push({
        type: 'document.saved',
        actor: input.actor,
        data: { path: input.path, sha256: sha256(content), length: content.length, reason: 'open' },
      })
    }
    const enqueued = this.store.enqueue(stream, events, { expectedStreamVersion: STREAM_DOES_NOT_EXIST })
    state.recordApplied(enqueued.events[0]!, true)
    for (const event of enqueued.events.slice(1)) state.apply(event)
    this.documents.adopt(state)
    await enqueued.durable
    return { docId, revision: state.revision }
  }

  /**
   * Replaces a document's content (DESIGN §6, JRNL.*): the intent is recorded in the journal and fsync'd before the
   * document is touched (JRNL.1), then applied as a minimal diff so concurrent peer edits elsewhere survive. A write
   * that changes nothing is not journaled (JRNL.2). A journal that does not answer in time refuses the write
   * (JOURNAL_UNAVAILABLE) and leaves its entry "being recorded" (JOURNAL_BUSY for the next write until it lands);
   * a change applied whose event is not yet on disk answers `durable: false` and blocks the next write with
   * JOURNAL_DEGRADED until it lands (the log retries it in the background, JRNL.5–6).
   */
  async write(input: WriteInput): Promise<WriteOutcome> {
    if (typeof input.content === 'string') assertWellFormed(input.content)
    const state = await this.require(input.docId)
    return this.turns.run(input.docId, async () => {
      const pending = this.pending.get(input.docId)
      if (pending?.stage === 'recording') {
        throw new QuireError('JOURNAL_BUSY', 'another write to this document is still being recorded; retry later')
      }
      if (pending?.stage === 'applying') {
        throw new QuireError('JOURNAL_DEGRADED', 'an earlier write to this document is not yet persisted; retry in a few seconds')
      }
      this.checkExpectedRevision(state, input.expectedRevision)
      this.checkParent(input.docId, input.writer)
      input.guard?.()
      const planned = typeof input.content === 'string' ? input.content : input.content(state.content, state)
      const updates = typeof planned === 'string' ? undefined : planned.updates
      const content = normalizeLineEndings(typeof planned === 'string' ? planned : planned.text)
      if (typeof input.content !== 'string') assertWellFormed(content)
      const baseRevision = state.revisionPosition
      const hunks = textHunks(state.content, content)
      if (hunks.length === 0) return { revision: state.revision, changed: false, durable: true }

      const stillWanted = input.watch?.()
      const stream = documentStream(input.docId)
      const journal = this.store.enqueue(stream, [
        {
          type: 'journal.recorded',
          actor: input.actor,
          data: {
            operation: input.operation ?? 'write',
            text: content,
            baseRevision: state.revision,
            ...(input.detail === undefined ? {} : { detail: input.detail }),
            ...(input.addresses === undefined || input.addresses.length === 0 ? {} : { addresses: [...input.addresses] }),
          },
        },
      ])
      state.apply(journal.events[0]!)
      if (!(await this.within(journal.durable, input.docId, 'recording'))) {
        throw new QuireError('JOURNAL_UNAVAILABLE', 'the journal did not record the write in time; nothing was changed')
      }
      if (state.revisionPosition !== baseRevision) {
        throw new QuireError('ABORTED', 'the document was edited while the write was being recorded', { reason: 'edited' })
      }
      const aborted = stillWanted?.()
      if (aborted) throw new QuireError('ABORTED', `the write was aborted while it was being recorded (${aborted})`, { reason: aborted })
      const journalPosition = journal.events[0]!.position
      const events: EventInput[] = []
      const changedText: boolean[] = []
      const sides = { text: false, mirror: false }
      if (updates) {
        for (const update of updates) {
          const { stateChanged, textChanged, mirrorChanged } = state.applyRemote(update)
          if (!stateChanged) continue
          events.push({ type: 'document.changed', actor: input.actor, data: { update, journal: journalPosition } })
          changedText.push(textChanged)
          sides.text ||= textChanged
          sides.mirror ||= mirrorChanged
        }
      } else {
        const change = state.transactLocal(hunks)
        events.push({ type: 'document.changed', actor: input.actor, data: { update: change.update, journal: journalPosition } })
        changedText.push(change.textChanged)
        state.primeContent(content)
        sides.text = true
      }
      this.bridge(state, sides, events, changedText, journalPosition)
      const applied = this.enqueueApplied(state, events, changedText)
      if (input.writer) {
        this.lastWriter.set(input.docId, { windowLabel: input.writer.windowLabel, position: state.position })
        this.tabBaselines.set(input.writer.tabId, state.position)
      }
      const durable = await this.within(applied, input.docId, 'applying')
      return { revision: state.revision, changed: true, durable }
    })
  }

  /** A tab read (or otherwise took in) the document as of `position`: its next write is based on that. */
  noteTabBaseline(tabId: string, position: number): void {
    this.tabBaselines.set(tabId, position)
  }

  /**
   * JRNL.9: a tab whose document another window's tab wrote after this tab last read or wrote it would overwrite
   * that write unseen: STALE_PARENT. A tab that never read or wrote has no basis to compare and is not refused.
   */
  private checkParent(docId: string, writer: WriteInput['writer']): void {
    if (!writer) return
    const last = this.lastWriter.get(docId)
    const baseline = this.tabBaselines.get(writer.tabId)
    if (last && baseline !== undefined && last.windowLabel !== writer.windowLabel && last.position > baseline) {
      throw new QuireError('STALE_PARENT', `window ${last.windowLabel} wrote this document after this tab last read it; re-read, then write again`)
    }
  }

  /**
   * Waits for `durable` at most the journal deadline. If it is late, the document is marked as waiting for it
   * (`stage`) until it lands, and false is returned.
   */
  private async within(durable: Promise<void>, docId: string, stage: 'recording' | 'applying'): Promise<boolean> {
    const landed = await settlesWithin(durable, this.journalDeadlineMs)
    if (!landed) {
      const marker = { stage }
      this.pending.set(docId, marker)
      void durable.then(() => {
        if (this.pending.get(docId) === marker) this.pending.delete(docId)
      })
    }
    return landed
  }

  /**
   * Records and applies updates from a Yjs peer, one event per update, in order. Updates that bring nothing new
   * are not recorded. Rejects malformed updates before anything is recorded.
   */
  async applyPeerUpdates(docId: string, updates: readonly Uint8Array[], actor: Actor): Promise<PeerUpdateOutcome> {
    for (const update of updates) assertDecodableUpdate(update)
    const state = await this.require(docId)
    try {
      return this.recordPeerUpdates(state, updates, actor)
    } catch (error) {
      // Some updates may be in the live Y.Doc without being in the log: rebuild it from the log on next use.
      this.documents.evict(docId)
      throw error
    }
  }

  private recordPeerUpdates(state: DocumentState, updates: readonly Uint8Array[], actor: Actor): PeerUpdateOutcome {
    // Apply each update, then record all that brought something new as one append (one event each), all in one
    // synchronous step so no other event of this document can come between.
    const events: EventInput[] = []
    const changedText: boolean[] = []
    const sides = { text: false, mirror: false }
    const mirrorWasAttached = mirrorIsAttached(state.ydoc)
    for (const update of updates) {
      const { stateChanged, textChanged, mirrorChanged } = state.applyRemote(update)
      if (!stateChanged) continue
      events.push({ type: 'document.changed', actor, data: { update } })
      changedText.push(textChanged)
      sides.text ||= textChanged
      sides.mirror ||= mirrorChanged
    }
    if (events.length === 0) return { revision: state.revision, recorded: 0, durable: Promise.resolve() }
    // A peer that wrote into a mirror nobody attached (a WYSIWYG editor that bound an empty fragment) must not
    // become the text: `source` is the truth, and the mirror is rebuilt from it.
    this.bridge(state, mirrorWasAttached ? sides : { text: sides.text || sides.mirror, mirror: false }, events, changedText)
    const durable = this.enqueueApplied(state, events, changedText)
    return { revision: state.revision, recorded: events.length, durable }
  }

  /**
   * Makes the document hold what its file now holds (a reload, or reopening a file closed earlier): the change as a
   * minimal diff by the `disk` actor, and the file marked as matching, in one append.
   */
  async replaceFromDisk(docId: string, text: string, path: string, actor: Actor): Promise<void> {
    const state = await this.require(docId)
    const content = normalizeLineEndings(text)
    const events: EventInput[] = []
    const changed: boolean[] = []
    const hunks = textHunks(state.content, content)
    if (hunks.length > 0) {
      const change = state.transactLocal(hunks)
      events.push({ type: 'document.changed', actor, data: { update: change.update } })
      changed.push(change.textChanged)
      this.bridge(state, { text: true, mirror: false }, events, changed)
    }
    events.push({ type: 'document.saved', actor, data: { path, sha256: sha256(content), length: content.length, reason: 'reload' } })
    changed.push(false)
    const durable = this.enqueueApplied(state, events, changed)
    state.primeContent(content)
    await durable
  }

  /**
   * Builds the WYSIWYG mirror when the first WYSIWYG editor attaches (the collaboration endpoint calls it before a
   * peer syncs, so no editor ever binds an empty mirror and overwrites the text with an empty paragraph). Recorded
   * as a `system` event; does nothing when the mirror exists.
   */
  async attachMirror(docId: string): Promise<void> {
    const state = await this.require(docId)
    await this.turns.run(docId, async () => {
      if (mirrorIsAttached(state.ydoc)) return
      const update = syncMirrorFromSource(state.ydoc)
      if (update) await this.enqueueApplied(state, [{ type: 'document.changed', actor: SYSTEM, data: { update } }], [false])
    })
  }

  /**
   * The bridge's follow-up (DESIGN §4): while the mirror is attached, a change of one side is carried to the other
   * in the same append, by the `system` actor, so replay only applies updates. A change that already touched both
   * sides (a planned WYSIWYG edit with its own follow-up) needs none.
   */
  private bridge(state: DocumentState, sides: { text: boolean; mirror: boolean }, events: EventInput[], changedText: boolean[], journal?: number): void {
    if (sides.text === sides.mirror || !mirrorIsAttached(state.ydoc)) return
    const update = sides.text ? syncMirrorFromSource(state.ydoc) : syncSourceFromMirror(state.ydoc)
    if (!update) return
    // A follow-up of an assistant's write names its journal entry, like the write's own change: the console gives the
    // person that mirror change as one undoable step (DOC.WRITE.12).
    events.push({ type: 'document.changed', actor: SYSTEM, data: journal === undefined ? { update } : { update, journal } })
    changedText.push(!sides.text)
  }

  /** Marks the current content as what `path` holds (after a save, or on open). */
  async markSaved(docId: string, path: string, reason: 'open' | 'save', actor: Actor): Promise<RecordedEvent> {
    const state = await this.require(docId)
    const content = state.content
    const enqueued = this.store.enqueue(documentStream(docId), [
      { type: 'document.saved', actor, data: { path, sha256: sha256(content), length: content.length, reason } },
    ])
    state.apply(enqueued.events[0]!)
    await enqueued.durable
    return enqueued.events[0]!
  }

  private async require(docId: string): Promise<DocumentState> {
    const state = await this.documents.get(docId)
    if (!state) throw new QuireError('NOT_FOUND', `no document ${docId}`)
    // Loading (or creating) a document loaded its stream's head, so appends need no await after this.
    return state
  }

  private checkExpectedRevision(state: DocumentState, expected: string | undefined): void {
    if (expected === undefined) return
    if (positionOfRevision(expected) !== state.revisionPosition) {
      throw new QuireError('STALE', 'Document has changed since the last read', { current_revision: state.revision })
    }
  }

  /**
   * Appends an event whose effect the state already holds. If the append is refused, the in-memory state no longer
   * matches the log, so the document is evicted and will be rebuilt from the log on next use.
   */
  private enqueueApplied(state: DocumentState, events: EventInput[], changedText: readonly boolean[]): Promise<void> {
    try {
      const enqueued = this.store.enqueue(documentStream(state.docId), events)
      enqueued.events.forEach((event, index) => state.recordApplied(event, changedText[index]!))
      this.documents.noteApplied(state)
      return enqueued.durable
    } catch (error) {
      this.documents.evict(state.docId)
      throw error
    }
  }
}

function assertWellFormed(text: string): void {
  if (hasLoneSurrogate(text)) throw new QuireError('INVALID_TEXT', 'content contains an unpaired UTF-16 surrogate')
}

function assertDecodableUpdate(update: Uint8Array): void {
  try {
    Y.decodeUpdate(update)
  } catch (error) {
    throw new QuireError('INVALID_UPDATE', `not a Yjs update: ${(error as Error).message}`)
  }
}
