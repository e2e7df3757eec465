import * as Y from 'yjs'
import { SYSTEM, type Actor } from '../events/actor.js'
import type { EventInput, EventLog, RecordedEvent } from '../log/eventLog.js'
import { STREAM_DOES_NOT_EXIST, type ExpectedStreamVersion } from '../log/expectedVersion.js'
import { appendFolded, type Appended, type FoldingAppend } from '../streams/append.js'
import { KeyedSteps } from '../streams/steps.js'
import { CONFLICT_RETRIES, retryingConflicts } from '../streams/conflicts.js'
import { isExpectedVersionConflict } from '../log/errors.js'
import { decideDocument, savedEvent, type SaveMark } from './decider.js'

export type { SaveMark } from './decider.js'
import { durableWithin, settlesWithin, type Durability } from '../deadline.js'
import { newId } from '../ids.js'
import { QuireError } from '../errors.js'
import { DocumentState, sha256 } from './documentState.js'
import type { DocumentRepository } from './documentRepository.js'
import { DOCUMENT_STREAM_PREFIX, docIdOfStream, documentStream, type DocumentKind, type JournalOperation } from './events.js'
import { journaledTextOf } from './journaledText.js'
import { revisionToken } from './revision.js'
import { BaseMismatchError, baseAfterWrite, markBeforeWrite, rebaseWrite, type DocumentBase, type RebasedWrite } from './rebase.js'
import { recordedWrittenText, type Sighting, type WrittenText } from './sightings.js'
import { WriteBases, type ResolvedBase } from './writeBases.js'
import { uniteIds } from './idRanges.js'
import { textHunks, type Hunk } from './textDiff.js'
import { DocumentTurns, type CrossNodeTurns, type JournalStage } from './turns.js'
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

/** Why a write being recorded was given up because the person acted meanwhile (JRNL.12). */
export type AbortReason = 'closed' | 'composing' | 'selection'

export interface WriteInput {
  readonly docId: string
  /**
   * The complete new text, or how to compute it from the current document (a transform, a patch, a selection
   * replacement): computed inside the document's turn, after the revision check, so it rewrites exactly the text the
   * STALE check accepted. A computation may also bring the Yjs updates that make the change (computed on a copy of
   * the document, e.g. a WYSIWYG edit of the mirror and the bridge's follow-up), applied instead of a text diff.
   */
  readonly content: string | ((current: string, state: DocumentState) => string | PlannedChange)
  /**
   * The content is the whole new text of the tab `writer` (document.write, a restore), not a rewrite of the current
   * text: it is an edit from the document as that tab last read it, merged into what others did since (DESIGN §4).
   */
  readonly fromTabBase?: boolean
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
  /** The journal entry's log position when the write changed something: the id of the change it made (DESIGN §11). */
  readonly journal?: number
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

/** Canonical content has LF line endings. (Most texts have no CR at all: one scan for it, not a regex pass.) */
export const normalizeLineEndings = (text: string): string => (text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text)


/**
 * The owner of every `doc:<id>` stream (DESIGN §1): the only code that appends to one. Each command loads the
 * document's state (the repository: snapshot plus tail), decides from it, and appends through `commit`, which checks
 * the stream version the decision was made at and folds the events into the state in the same synchronous step, so
 * the live Y.Doc always sees events in log order and nothing can come between a decision and its append.
 *
 * Write-class commands (write, transform, apply_patch, selection.set, review marks; comments share the queue) also
 * wait their turn in the document's queue (`turns`, CONC.4). Peer keystrokes, saves' records, disk observations and
 * the person's divergence decisions do not queue behind them: a keystroke must land while an assistant's write is
 * being recorded (JRNL.12: the write is then ABORTED), and a file already written must always get its record. They
 * are single synchronous decide-append-fold steps, so they are atomic with respect to every other command.
 */
export class DocumentCommands {
  readonly turns: DocumentTurns
  /** Each document's decide-apply-append-fold step: one at a time per document, never across a journal wait. */
  private readonly steps = new KeyedSteps()
  /** Documents with a journal entry or a change still on its way to disk after its write answered. */
  private readonly pending = new Map<string, { stage: JournalStage }>()
  /** On a log several nodes share: the turns, and the marks of writes still on their way to the log, among them. */
  private readonly crossNode: CrossNodeTurns | undefined
  /** The bases of writes this node rebuilt or saw made (DESIGN §4: the log says which; this only saves rebuilding). */
  private readonly bases: WriteBases

  constructor(
    private readonly store: EventLog,
    private readonly documents: DocumentRepository,
    /** How long a write waits for the log before answering JOURNAL_UNAVAILABLE or `durable: false`. */
    private readonly journalDeadlineMs = 2_000,
    /** On a log several nodes share: each document's write turn held among them. */
    crossNodeTurns?: CrossNodeTurns,
  ) {
    this.turns = new DocumentTurns(undefined, crossNodeTurns)
    this.bases = new WriteBases((docId, position) => documents.rebuild(docId, position))
    this.crossNode = crossNodeTurns
    this.amongNodes = crossNodeTurns !== undefined
  }

  /** Whether other nodes append to this log too (their events reach this node's documents a little later). */
  readonly amongNodes: boolean

  /** Folds into the document, if this node holds it, whatever the log holds of it past this node's state. */
  async caughtUp(docId: string): Promise<void> {
    // What other nodes committed and this node has not been told of yet is read in first.
    await this.store.caughtUp()
    return this.catchUp(docId)
  }

  async create(input: CreateDocumentInput): Promise<{ docId: string; revision: string }> {
    const content = normalizeLineEndings(input.content)
    assertWellFormed(content)
    const docId = newId('d')
    await this.store.streamHead(documentStream(docId))
    const state = new DocumentState(docId)
    const { update } = state.transactLocal(content.length > 0 ? [{ start: 0, deleteCount: 0, insert: content }] : [])
    const events: EventInput[] = [
      {
        type: 'document.created',
        actor: input.actor,
        data: { docId, kind: input.kind, path: input.path, title: input.title, origin: input.origin, update },
      },
    ]
    const applied = [true]
    if (input.matchesFile && input.path) {
      // The file holds what the document was created with: its creation is the revision the file matches.
      events.push(savedEvent(input.actor, { path: input.path, sha256: sha256(content), length: content.length, revisionPosition: null, reason: 'open' }))
      applied.push(false)
    }
    const appended = await this.commit(state, events, { applied, expected: STREAM_DOES_NOT_EXIST, created: true })
    this.documents.adopt(state)
    await appended.durable
    return { docId, revision: state.revision }
  }

  /**
   * Replaces a document's content (DESIGN §6, JRNL.*): the intent is recorded in the journal and fsync'd before the
   * document is touched (JRNL.1), then applied as a minimal edit. A whole-text write from a tab is an edit from the
   * document as that tab last read it (its base), merged into what others typed since; a write with
   * `expectedRevision` is refused unless it is current (STALE), so its base is the current text. A write that changes
   * nothing is not journaled (JRNL.2). A journal that does not answer in time refuses the write (JOURNAL_UNAVAILABLE)
   * and leaves its entry "being recorded" (JOURNAL_BUSY for the next write until it lands); a change applied whose
   * event is not yet on disk answers `durable: false` and blocks the next write with JOURNAL_DEGRADED until it lands
   * (the log retries it in the background, JRNL.5–6).
   */
  async write(input: WriteInput): Promise<WriteOutcome> {
    if (typeof input.content === 'string') assertWellFormed(input.content)
    await this.require(input.docId)
    // Another node's append between this node's decision and its own is met by deciding again on the state with it
    // (an `expected_revision` then answers STALE, as it would have on one node).
    return this.turns.run(input.docId, () => retryingConflicts(async () => this.writeInTurn(await this.require(input.docId), input), () => this.catchUp(input.docId)))
  }

  private async writeInTurn(found: DocumentState, input: WriteInput): Promise<WriteOutcome> {
    const { state, sighting, resolved } = await this.baseOfWrite(found, input)
    this.assertNothingPending(input.docId)
    if (this.crossNode) await this.assertNothingPendingElsewhere(this.crossNode, input.docId)
    this.checkExpectedRevision(state, input.expectedRevision)
    this.checkParent(state, input.writer, sighting)
    input.guard?.()
    const planned = typeof input.content === 'string' ? input.content : input.content(state.content, state)
    const updates = typeof planned === 'string' ? undefined : planned.updates
    const content = normalizeLineEndings(typeof planned === 'string' ? planned : planned.text)
    if (typeof input.content !== 'string') assertWellFormed(content)
    const basePosition = resolved ? sighting!.revisionPosition : state.revisionPosition
    const rebased = resolved ? rebaseFrom(state, resolved, content) : undefined
    const hunks = rebased ? rebased.hunks : textHunks(state.content, content)
    if (hunks.length === 0) return { revision: state.revision, changed: false, durable: true }

    const revisionBefore = state.revisionPosition
    const textBefore = state.content
    const stillWanted = input.watch?.()
    const journal = await this.steps.run(input.docId, () => this.commit(state, [
      {
        type: 'journal.recorded',
        actor: input.actor,
        data: {
          operation: input.operation ?? 'write',
          // The text asked for: a rebased write's hunks make the merged text, so its change is diffed from the text.
          ...journaledTextOf(content, revisionBefore, () => (rebased ? textHunks(textBefore, content) : hunks)),
          baseRevision: revisionToken(basePosition),
          ...(input.detail === undefined ? {} : { detail: input.detail }),
          ...(input.addresses === undefined || input.addresses.length === 0 ? {} : { addresses: [...input.addresses] }),
          ...(input.writer === undefined ? {} : { writer: { tabId: input.writer.tabId, windowLabel: input.writer.windowLabel } }),
        },
      },
    ]))
    if ((await this.settle(journal.durable, input.docId, 'recording')) !== 'durable') {
      throw new QuireError('JOURNAL_UNAVAILABLE', 'the journal did not record the write in time; nothing was changed')
    }
    const journalPosition = journal.recorded[0]![0]!.position
    const applied = await this.steps.run(input.docId, () => {
      if (state.revisionPosition !== revisionBefore) {
        throw new QuireError('ABORTED', 'the document was edited while the write was being recorded', { reason: 'edited' })
      }
      const aborted = stillWanted?.()
      if (aborted) throw new QuireError('ABORTED', `the write was aborted while it was being recorded (${aborted})`, { reason: aborted })
      return this.applyWrite(state, input, updates, hunks, content, resolved && rebased ? { resolved, rebased } : undefined, journalPosition)
    })
    const landed = await this.settle(applied.durable, input.docId, 'applying')
    if (landed === 'failed') throw new QuireError('JOURNAL_UNAVAILABLE', 'the log could not write the change; nothing was changed')
    return { revision: state.revision, changed: true, durable: landed === 'durable', journal: journalPosition }
  }

  /**
   * The document to write and, for a whole-text write from a tab, the base it is an edit from (DESIGN §4): what the
   * writer's principal last saw through that tab, as the log records it. None when it saw nothing yet (the write
   * replaces the text as it is) or saw the text as it is now. A base this node does not hold is rebuilt from the log
   * (the document is looked up again after that wait); one that cannot be rebuilt refuses the write (STALE).
   */
  private async baseOfWrite(found: DocumentState, input: WriteInput): Promise<{ state: DocumentState; sighting: Sighting | undefined; resolved: ResolvedBase | undefined }> {
    let state = found
    for (;;) {
      const sighting = input.writer ? state.sightingOf(input.writer.tabId, input.actor) : undefined
      const merged = input.fromTabBase === true && input.expectedRevision === undefined && sighting !== undefined && (sighting.written !== undefined || sighting.revisionPosition !== state.revisionPosition)
      if (!merged) return { state, sighting, resolved: undefined }
      const cached = this.bases.cached(state.docId, sighting)
      if (cached) return { state, sighting, resolved: cached }
      await this.bases.resolve(state.docId, sighting)
      state = await this.require(state.docId)
    }
  }
  /**
   * The write's change, made on the document now that its journal entry is on disk: the planned Yjs updates, or the
   * hunks as one local transaction, then the bridge's follow-up, appended in the document's step.
   */
  private async applyWrite(
    state: DocumentState,
    input: WriteInput,
    updates: readonly Uint8Array[] | undefined,
    hunks: readonly Hunk[],
    content: string,
    merge: { readonly resolved: ResolvedBase; readonly rebased: RebasedWrite } | undefined,
    journalPosition: number,
  ): Promise<Appended> {
    const events: EventInput[] = []
    const changedText: boolean[] = []
    const sides = { text: false, mirror: false }
    let written: { readonly text: WrittenText; readonly base: DocumentBase } | undefined
    // An assistant's change: its text hunks are captured as it is applied (the AI change the person reviews).
    const origin = state.captureOrigin(input.actor, journalPosition)
    if (updates) {
      for (const update of updates) {
        const { stateChanged, textChanged, mirrorChanged } = state.applyRemote(update, origin)
        if (!stateChanged) continue
        events.push({ type: 'document.changed', actor: input.actor, data: { update, journal: journalPosition } })
        changedText.push(textChanged)
        sides.text ||= textChanged
        sides.mirror ||= mirrorChanged
      }
    } else {
      const mark = merge && markBeforeWrite(state.ydoc)
      const change = state.transactLocal(hunks, origin)
      events.push({ type: 'document.changed', actor: input.actor, data: { update: change.update, journal: journalPosition } })
      changedText.push(change.textChanged)
      sides.text = true
      // Merged into others' edits, the text is not `content`: it is read back from the Y.Text when needed. The writer's
      // next write is an edit from what it wrote, not from the merged text it has not read.
      if (merge && mark && merge.rebased.concurrent) {
        const base = baseAfterWrite(state.ydoc, merge.resolved.base, merge.rebased, mark, content, () => state.snapshot())
        written = {
          base,
          text: {
            origin: merge.resolved.origin,
            hunks: textHunks(merge.resolved.originText, content),
            length: content.length,
            dropped: uniteIds(merge.resolved.dropped, merge.rebased.dropped),
            added: base.added,
            phantoms: base.phantoms,
          },
        }
      } else {
        state.primeContent(content)
      }
    }
    this.bridge(state, sides, events, changedText, journalPosition)
    if (input.writer) {
      // What the writer has now seen: the document as its write leaves it, or, merged, its own text (DESIGN §4).
      events.push({ type: 'document.seen', actor: input.actor, data: { tabId: input.writer.tabId, ...(written ? { written: recordedWrittenText(written.text) } : {}) } })
      changedText.push(false)
    }
    const appended = await this.commit(state, events, { applied: changedText })
    if (written) this.bases.rememberWritten(state.docId, appended.recorded[0]!.at(-1)!.position, written.base)
    else if (input.writer) this.bases.remember(state)
    return appended
  }

  /**
   * Runs `look` on the document as the log has it: in the document's step, so never between a change applied to the
   * state ahead of its append (a write, a reload, a peer's update) and that append's fold, when the text has already
   * moved and the revision has not. A read that pairs the text with its revision, or notes a tab's baseline, looks
   * through here; `look` gets undefined for a document that does not exist.
   */
  read<T>(docId: string, look: (state: DocumentState | undefined) => T): Promise<T> {
    return this.steps.run(docId, async () => look(await this.documents.get(docId)))
  }

  /**
   * Runs `look` on the document as the log has it (see `read`) for `viewer`, and records that the viewer's principal
   * has seen it through the tab (`document.seen`: the base of its next whole-text write, DESIGN §4) unless the log
   * says so already. The answer waits for that record to be durable: a read the log could still lose would leave a
   * later write merged from an older base. JOURNAL_UNAVAILABLE when the log does not take it in time.
   */
  async readAs<T>(docId: string, viewer: { readonly tabId: string; readonly actor: Actor }, look: (state: DocumentState | undefined) => T): Promise<T> {
    const { answer, recorded } = await retryingConflicts(
      () =>
        this.steps.run(docId, async () => {
          const state = await this.documents.get(docId)
          const answer = look(state)
          if (!state) return { answer, recorded: undefined }
          this.bases.remember(state)
          const seen = state.sightingOf(viewer.tabId, viewer.actor)
          if (seen && !seen.written && seen.revisionPosition === state.revisionPosition) return { answer, recorded: undefined }
          const appended = await this.commit(state, [{ type: 'document.seen', actor: viewer.actor, data: { tabId: viewer.tabId } }])
          return { answer, recorded: appended.durable }
        }),
      () => this.catchUp(docId),
    )
    if (recorded && (await durableWithin(recorded, this.journalDeadlineMs)) !== 'durable') {
      throw new QuireError('JOURNAL_UNAVAILABLE', 'the log could not record this read in time, so a later write could not be based on it; read again shortly')
    }
    return answer
  }

  /**
   * JRNL.9: a tab whose document another window's tab wrote after this tab last read or wrote it would overwrite
   * that write unseen: STALE_PARENT. A tab that never read or wrote has no basis to compare and is not refused. The
   * last writer is the document's, folded from the log, so a write another node made counts as one made here.
   */
  private checkParent(state: DocumentState, writer: WriteInput['writer'], known: Sighting | undefined): void {
    if (!writer) return
    const last = state.lastWriter
    if (last && known && last.windowLabel !== writer.windowLabel && last.position > known.position) {
      throw new QuireError('STALE_PARENT', `window ${last.windowLabel} wrote this document after this tab last read it; re-read, then write again`)
    }
  }

  private assertNothingPending(docId: string): void {
    refuseWhilePending(this.pending.get(docId)?.stage, '')
  }

  /**
   * JRNL.6 and JRNL.8 across nodes: an earlier write another node answered may still be on its way to the shared log
   * (it holds the document's mark meanwhile). Asked in the document's turn, which that node gave up after marking.
   */
  private async assertNothingPendingElsewhere(crossNode: CrossNodeTurns, docId: string): Promise<void> {
    let stage: JournalStage | undefined
    try {
      stage = await crossNode.markedElsewhere(docId)
    } catch (error) {
      throw new QuireError('JOURNAL_UNAVAILABLE', `the nodes' shared log cannot be reached, so nothing was changed: ${(error as Error).message}`)
    }
    refuseWhilePending(stage, ' on another node')
  }

  /**
   * Waits for `durable` at most the journal deadline. If it is late, the document is marked as waiting for it
   * (`stage`) until it settles; on a shared log, the other nodes are shown the mark before the write answers (and so
   * before its turn passes on).
   */
  private async settle(durable: Promise<void>, docId: string, stage: JournalStage): Promise<Durability> {
    const outcome = await durableWithin(durable, this.journalDeadlineMs)
    if (outcome === 'late') {
      const marker = { stage }
      this.pending.set(docId, marker)
      const shared = this.crossNode?.mark(docId, stage)
      const clear = () => {
        if (this.pending.get(docId) === marker) this.pending.delete(docId)
        void shared?.withdraw().catch(() => {})
      }
      durable.then(clear, clear)
      // The write's answer stands either way, and waits no longer for a database that does not answer than for the
      // log: a mark it cannot take now is shown once it can.
      if (shared) await settlesWithin(shared.shown, this.journalDeadlineMs)
    }
    return outcome
  }

  /**
   * Records and applies updates from a Yjs peer, one event per update, in order. Updates that bring nothing new
   * are not recorded. Rejects malformed updates (INVALID_UPDATE) before anything is recorded.
   */
  async applyPeerUpdates(docId: string, updates: readonly Uint8Array[], actor: Actor): Promise<PeerUpdateOutcome> {
    // Apply each update, then record all that brought something new as one append (one event each), all in the
    // document's step so no other event of this document can come between. Each is decoded first: Y.applyUpdate
    // does not read every byte Y.decodeUpdate reads (a damaged update can apply, or apply in part, where decoding
    // it fails), and an update that is not a Yjs update is refused whole, with nothing applied or recorded.
    for (const update of updates) {
      const refused = undecodableUpdateError(update)
      if (refused) throw refused
    }
    return this.inStep(docId, (state) => this.recordPeerUpdates(state, updates, actor))
  }

  private async recordPeerUpdates(state: DocumentState, updates: readonly Uint8Array[], actor: Actor): Promise<PeerUpdateOutcome> {
    const docId = state.docId
    const events: EventInput[] = []
    const changedText: boolean[] = []
    const sides = { text: false, mirror: false }
    const mirrorWasAttached = mirrorIsAttached(state.ydoc)
    try {
      for (const update of updates) {
        const { stateChanged, textChanged, mirrorChanged } = state.applyRemote(update)
        if (!stateChanged) continue
        events.push({ type: 'document.changed', actor, data: { update } })
        changedText.push(textChanged)
        sides.text ||= textChanged
        sides.mirror ||= mirrorChanged
      }
    } catch (error) {
      // Some updates may be in the live Y.Doc without being in the log: rebuild it from the log on next use.
      this.documents.evict(docId)
      throw error
    }
    if (events.length === 0) return { revision: state.revision, recorded: 0, durable: Promise.resolve() }
    // A peer that wrote into a mirror nobody attached (a WYSIWYG editor that bound an empty fragment) must not
    // become the text: `source` is the truth, and the mirror is rebuilt from it.
    this.bridge(state, mirrorWasAttached ? sides : { text: sides.text || sides.mirror, mirror: false }, events, changedText)
    const { durable } = await this.commitPeerUpdates(state, events, changedText)
    return { revision: state.revision, recorded: events.length, durable }
  }

  /**
   * Appends a peer's updates, already applied to `state`. When another node appended to the document first, its
   * events are folded in, still in this step, and the same updates appended after them: Yjs updates commute, so the
   * state (the log's events plus these) is what the log will hold once they land. Evicting and rebuilding the
   * document instead, the way other changes made ahead are undone, cost a whole reload per conflict, and two people
   * typing on two nodes conflict at every few keystrokes.
   */
  private async commitPeerUpdates(state: DocumentState, events: readonly EventInput[], changedText: readonly boolean[]): Promise<Appended> {
    for (let tries = 0; ; tries += 1) {
      try {
        return await this.commit(state, events, { applied: changedText, keepOnConflict: true })
      } catch (error) {
        if (!isExpectedVersionConflict(error) || tries >= CONFLICT_RETRIES) {
          this.documents.evict(state.docId)
          throw error
        }
      }
      try {
        await this.readAhead(state)
      } catch (error) {
        // The updates are in the live document and not in the log: it is rebuilt from the log on next use.
        this.documents.evict(state.docId)
        throw error
      }
    }
  }

  /**
   * Makes the document hold what its file now holds (a reload, or reopening a file closed earlier): the change as a
   * minimal diff by the `disk` actor, and the file marked as matching, in one append.
   */
  async replaceFromDisk(docId: string, text: string, path: string, actor: Actor): Promise<void> {
    const durable = await this.inStep(docId, (state) => this.reload(state, normalizeLineEndings(text), path, actor))
    await durable
  }

  private async reload(state: DocumentState, content: string, path: string, actor: Actor): Promise<Promise<void>> {
    const events: EventInput[] = []
    const changed: boolean[] = []
    const hunks = textHunks(state.content, content)
    if (hunks.length > 0) {
      const change = state.transactLocal(hunks)
      events.push({ type: 'document.changed', actor, data: { update: change.update } })
      changed.push(change.textChanged)
      this.bridge(state, { text: true, mirror: false }, events, changed)
    }
    events.push(savedEvent(actor, { path, sha256: sha256(content), length: content.length, revisionPosition: null, reason: 'reload' }))
    changed.push(false)
    const { durable } = await this.commit(state, events, { applied: changed })
    state.primeContent(content)
    return durable
  }

  /**
   * Records that the file at `mark.path` holds the document as of `mark.revisionPosition` (a save that wrote it, or
   * the disk found holding the current text), together with what the save changes in other streams (the tab's new
   * file, the approval it used), as one atomic append. Never queued behind a write: the file is already written.
   * Returns how the record's durability settled within the journal deadline.
   */
  async recordSave(docId: string, mark: SaveMark, actor: Actor, alongside: readonly FoldingAppend[] = []): Promise<Durability> {
    const { durable } = await this.inStep(docId, (state) => this.commit(state, decideDocument({ type: 'record-save', mark, actor }, state), { alongside }))
    return durableWithin(durable, this.journalDeadlineMs)
  }

  /** Marks the current content as what `path` holds (the disk caught up with the document). */
  async markSaved(docId: string, path: string, reason: 'open' | 'save', actor: Actor): Promise<void> {
    const { durable } = await this.inStep(docId, (state) => {
      const content = state.content
      return this.commit(state, [savedEvent(actor, { path, sha256: sha256(content), length: content.length, revisionPosition: null, reason })])
    })
    await durable
  }

  /** The file changed on disk under unsaved changes (`document.diverged`); nothing when that change is already known. */
  async markDiverged(docId: string, path: string, digest: string, length: number, actor: Actor): Promise<void> {
    const durable = await this.inStep(docId, async (state) => {
      const events = decideDocument({ type: 'diverge', path, sha256: digest, length, actor }, state)
      return events.length === 0 ? undefined : (await this.commit(state, events)).durable
    })
    await durable
  }

  /** The person keeps the tab's version of a diverged document (closing still needs force until it is saved). */
  async keepDivergence(docId: string, actor: Actor): Promise<void> {
    const { durable } = await this.inStep(docId, (state) => this.commit(state, decideDocument({ type: 'keep-divergence', actor }, state)))
    await durable
  }

  /**
   * The person reviewed the document's AI changes up to log position `upTo` (`review.marked`), in the document's
   * write queue. `reviewedUpTo` is how far earlier marks reached: a mark that reviews nothing new records nothing.
   */
  async markReviewed(docId: string, upToRevision: string, reviewedUpTo: () => Promise<number>, actor: Actor): Promise<void> {
    await this.require(docId)
    await this.turns.run(docId, async () => {
      const reviewed = await reviewedUpTo()
      const durable = await this.inStep(docId, async (state) => {
        const events = decideDocument({ type: 'mark-reviewed', upToRevision, reviewedUpTo: reviewed, actor }, state)
        return events.length === 0 ? undefined : (await this.commit(state, events)).durable
      })
      await durable
    })
  }

  /**
   * A change the person makes through core (a review's undo or redo, DESIGN §11), in the document's write turn so it
   * never lands inside an assistant's write being recorded. `plan` decides from the document in its step (a
   * QuireError refuses, nothing changed); the change it returns runs as one local Yjs transaction and returns the
   * events that describe it, appended before the content event it produced (and the bridge's follow-up) in one
   * append. Answers once the append is durable (JOURNAL_UNAVAILABLE when the log does not take it in time).
   */
  async changeAsPerson<T>(
    docId: string,
    actor: Actor,
    plan: (state: DocumentState) => (transaction: Y.Transaction) => { readonly events: readonly EventInput[]; readonly outcome: T },
  ): Promise<{ readonly revision: string; readonly outcome: T }> {
    await this.require(docId)
    return this.turns.run(docId, async () => {
      const { durable, state, outcome } = await this.inStep(docId, async (state) => {
        const apply = plan(state)
        let change: ReturnType<typeof state.transactLocalWith<{ readonly events: readonly EventInput[]; readonly outcome: T }>>
        try {
          change = state.transactLocalWith(apply)
        } catch (error) {
          // Part of the change may be in the live Y.Doc and not in the log: rebuilt from the log on next use.
          this.documents.evict(docId)
          throw error
        }
        const events: EventInput[] = [...change.result.events]
        const changed = events.map(() => false)
        if (change.textChanged) {
          events.push({ type: 'document.changed', actor, data: { update: change.update } })
          changed.push(true)
          this.bridge(state, { text: true, mirror: false }, events, changed)
        }
        if (events.length === 0) return { durable: undefined, state, outcome: change.result.outcome }
        const appended = await this.commit(state, events, { applied: changed })
        return { durable: appended.durable, state, outcome: change.result.outcome }
      })
      if (durable && (await durableWithin(durable, this.journalDeadlineMs)) !== 'durable') {
        throw new QuireError('JOURNAL_UNAVAILABLE', 'the log could not record this change in time; nothing was changed')
      }
      return { revision: state.revision, outcome }
    })
  }

  /**
   * Builds the WYSIWYG mirror when the first WYSIWYG editor attaches (the collaboration endpoint calls it before a
   * peer syncs, so no editor ever binds an empty mirror and overwrites the text with an empty paragraph). Recorded
   * as a `system` event; does nothing when the mirror exists.
   */
  async attachMirror(docId: string): Promise<void> {
    await this.require(docId)
    await this.turns.run(docId, async () => {
      const durable = await this.inStep(docId, async (state) => {
        if (mirrorIsAttached(state.ydoc)) return undefined
        const update = syncMirrorFromSource(state.ydoc)
        if (!update) return undefined
        return (await this.commit(state, [{ type: 'document.changed', actor: SYSTEM, data: { update } }], { applied: [false] })).durable
      })
      await durable
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

  /**
   * Runs `step` in the document's step (see `commit`), with the document's state as it is when the step starts (a
   * state evicted meanwhile is loaded again from the log).
   */
  private inStep<T>(docId: string, step: (state: DocumentState) => Promise<T> | T): Promise<T> {
    return retryingConflicts(() => this.steps.run(docId, async () => step(await this.require(docId))), () => this.catchUp(docId))
  }

  /**
   * Folds a `doc:` event another node appended to the shared log into the document, if this node holds it (one it
   * does not hold reads the event from the log when it is loaded). In the document's step, so it never lands between
   * a decision and its fold; this node's own events were folded as they were appended and are skipped, and a gap
   * (events this state never saw) reads the rest from the log.
   */
  follow(event: RecordedEvent): Promise<void> {
    if (!event.stream.startsWith(DOCUMENT_STREAM_PREFIX)) return Promise.resolve()
    const docId = docIdOfStream(event.stream)
    if (this.documents.resident(docId) === undefined) return Promise.resolve()
    return this.steps.run(docId, async () => {
      const state = await this.documents.resident(docId)
      if (!state || event.streamVersion <= state.version) return
      if (event.streamVersion === state.version + 1) state.apply(event)
      else await this.readAhead(state)
      this.documents.noteApplied(state)
    })
  }

  /** After an append another node won: folds, in the document's step, what the log holds past this node's state. */
  private catchUp(docId: string): Promise<void> {
    return this.steps.run(docId, async () => {
      const state = await this.documents.resident(docId)
      if (state) await this.readAhead(state)
    })
  }

  private async readAhead(state: DocumentState): Promise<void> {
    for await (const event of this.store.readStream(documentStream(state.docId), { fromVersion: state.version + 1 })) state.apply(event)
  }

  private async require(docId: string): Promise<DocumentState> {
    const state = await this.documents.get(docId)
    if (!state) throw new QuireError('NOT_FOUND', `no document ${docId}`)
    // Loading (or creating) a document loaded its stream's head, so appends need no await after this.
    return state
  }

  private checkExpectedRevision(state: DocumentState, expected: string | undefined): void {
    decideDocument({ type: 'check-revision', expectedRevision: expected }, state)
  }

  /**
   * The one append path of `doc:` streams: appends `events` at the stream version `state` has folded (with the
   * appends of other streams that must land with them), and folds them into `state` in the same synchronous step.
   * `applied` marks content events whose Yjs update the state already holds (a local change made ahead, or a peer's
   * update applied to see whether it brought anything new) and whether each changed the text. If the append is
   * refused, or the log later fails to write it and rolls it back, the in-memory state no longer matches the log:
   * the document is evicted and rebuilt from the log on next use.
   */
  private async commit(
    state: DocumentState,
    events: readonly EventInput[],
    options: {
      applied?: readonly boolean[]
      alongside?: readonly FoldingAppend[]
      expected?: ExpectedStreamVersion
      created?: boolean
      /** An expected-version conflict leaves the state to the caller, who folds the winner's events and appends again. */
      keepOnConflict?: boolean
    } = {},
  ): Promise<Appended> {
    const { applied } = options
    const own: FoldingAppend = {
      stream: documentStream(state.docId),
      events,
      expectedVersion: options.expected ?? state.version,
      fold: (recorded) => recorded.forEach((event, index) => (applied?.[index] === undefined ? state.apply(event) : state.recordApplied(event, applied[index]!))),
    }
    let appended: Appended
    try {
      appended = await appendFolded(this.store, [own, ...(options.alongside ?? [])])
    } catch (error) {
      const kept = options.keepOnConflict === true && isExpectedVersionConflict(error)
      if (applied !== undefined && !options.created && !kept) this.documents.evict(state.docId)
      throw error
    }
    this.documents.noteApplied(state)
    appended.durable.catch(() => {
      if (this.documents.peek(state.docId) === state) this.documents.evict(state.docId)
    })
    return appended
  }
}


function refuseWhilePending(stage: JournalStage | undefined, where: string): void {
  if (stage === 'recording') {
    throw new QuireError('JOURNAL_BUSY', `another write to this document is still being recorded${where}; retry later`)
  }
  if (stage === 'applying') {
    throw new QuireError('JOURNAL_DEGRADED', `an earlier write to this document is not yet persisted${where}; retry in a few seconds`)
  }
}

/**
 * The hunks of a whole-text write from its base, mapped onto the document as it is now (rebase.ts). A base that does
 * not describe the document's text refuses the write (STALE), never merges it from a guess.
 */
function rebaseFrom(state: DocumentState, resolved: ResolvedBase, content: string): RebasedWrite {
  try {
    return rebaseWrite(state.text, resolved.base, textHunks(resolved.base.text, content))
  } catch (error) {
    if (!(error instanceof BaseMismatchError)) throw error
    throw new QuireError('STALE', `the text this tab last read or wrote cannot be matched with the document (${error.message}); read it again before writing`, { current_revision: state.revision, reason: 'base' })
  }
}

function assertWellFormed(text: string): void {
  if (hasLoneSurrogate(text)) throw new QuireError('INVALID_TEXT', 'content contains an unpaired UTF-16 surrogate')
}

/** INVALID_UPDATE when `update` is not a Yjs update; undefined when it decodes. */
function undecodableUpdateError(update: Uint8Array): QuireError | undefined {
  try {
    Y.decodeUpdate(update)
    return undefined
  } catch (error) {
    return new QuireError('INVALID_UPDATE', `not a Yjs update: ${(error as Error).message}`)
  }
}
