import { z } from 'zod'
import { defineEvent } from '../events/schema.js'

/** Streams are per document: every event about document `id` lives in `doc:<id>`. */
export const documentStream = (docId: string): string => `doc:${docId}`
export const DOCUMENT_STREAM_PREFIX = 'doc:'
export const docIdOfStream = (stream: string): string => stream.slice(DOCUMENT_STREAM_PREFIX.length)

export const documentKinds = ['markdown', 'yaml-workflow'] as const
export type DocumentKind = (typeof documentKinds)[number]

const bytes = z.instanceof(Uint8Array)

/**
 * A document came to exist. `update` is the Yjs update that put its initial content into `source` (an empty update
 * for an empty document); `origin` says where the content came from.
 */
export const DocumentCreated = defineEvent({
  type: 'document.created',
  version: 1,
  schema: z.object({
    docId: z.string().min(1),
    kind: z.enum(documentKinds),
    path: z.string().nullable(),
    title: z.string(),
    origin: z.enum(['untitled', 'file', 'trace']),
    update: bytes,
  }),
})

/**
 * The content changed: `update` is the Yjs update that made the change, so replay is `Y.applyUpdate` in log order.
 * `journal` is the position of the journal entry an AI edit recorded first (absent for peer and disk edits).
 */
export const DocumentChanged = defineEvent({
  type: 'document.changed',
  version: 1,
  schema: z.object({
    update: bytes,
    journal: z.number().int().positive().optional(),
  }),
})

/** The AI edits the journal records: a whole-text write, a CJK transform, a workflow patch, a selection replacement. */
export const JOURNAL_OPERATIONS = ['write', 'transform', 'apply_patch', 'selection_set'] as const
export type JournalOperation = (typeof JOURNAL_OPERATIONS)[number]

/**
 * The agent edit journal: an AI edit's intent, recorded (and fsync'd) before the document is touched. It holds the
 * text the edit asks for (journaledText.ts: whole, or for a large text an edit changes little, as that change from
 * the document's text at revision `edit.from`), its `length`, and the revision it was based on; `detail` says what a
 * transform or patch asked for (the transform kind, the patches), so the history shows the request and not only its
 * result. Version 1 always held the whole text.
 */
export const JournalRecorded = defineEvent({
  type: 'journal.recorded',
  version: 2,
  schema: z.object({
    operation: z.enum(JOURNAL_OPERATIONS),
    text: z.string().optional(),
    edit: z.object({
      from: z.string().regex(/^rev-[0-9a-z]+$/),
      hunks: z.array(z.object({ start: z.number().int().nonnegative(), deleteCount: z.number().int().nonnegative(), insert: z.string() }).strict()),
    }).strict().optional(),
    length: z.number().int().nonnegative(),
    baseRevision: z.string(),
    detail: z.string().optional(),
    /** The comment ids this edit responds to (COM.ADDR.*), validated before it was recorded. */
    addresses: z.array(z.string()).optional(),
    /**
     * The tab and window the edit was made from, when it was made from a tab: every node folds the last writer's
     * window from the log, for STALE_PARENT (JRNL.9). Absent from entries recorded before it was kept, which leave
     * the last writer unknown, as a restarted node's was.
     */
    writer: z.object({ tabId: z.string().min(1), windowLabel: z.string().min(1) }).strict().optional(),
  }).refine((data) => (data.text === undefined) !== (data.edit === undefined), 'a journal entry holds either the text or the change to it, exactly one'),
  upcasters: {
    1: (data) => {
      const entry = data as { text?: unknown }
      return typeof entry.text === 'string' ? { ...entry, length: entry.text.length } : entry
    },
  },
})

const savedFields = {
  path: z.string().min(1),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  length: z.number().int().nonnegative(),
  reason: z.enum(['open', 'save', 'reload']),
}

/**
 * The file at `path` holds the document's content as of `revision`: written there by a save (which records the
 * revision it wrote, captured before the file write), or read from there on open or reload (`revision: null`: as of
 * this event, whose append carries that content). `dirty` is `revision !== savedRevision` (DESIGN §3), so an edit
 * that lands while a save writes the file leaves the document dirty. Version 1 did not record the revision; its
 * events are read with `revision: null`, which is what version 1 assumed of every save.
 */
export const DocumentSaved = defineEvent({
  type: 'document.saved',
  version: 2,
  schema: z.object({ ...savedFields, revision: z.string().regex(/^rev-[0-9a-z]+$/).nullable() }),
  upcasters: { 1: (data) => ({ ...(data as object), revision: null }) },
})

/**
 * The file changed on disk while the document had unsaved changes: the person must decide between the tab's version
 * and the disk's (until then, and after "keep", closing needs `force`: WS.CLOSE.3).
 */
export const DocumentDiverged = defineEvent({
  type: 'document.diverged',
  version: 1,
  schema: z.object({ path: z.string().min(1), sha256: z.string().regex(/^[0-9a-f]{64}$/), length: z.number().int().nonnegative() }),
})

/** The person's decision on a divergence: keep the tab's version, or reload the disk's (then a change follows). */
export const DivergenceResolved = defineEvent({
  type: 'document.divergence-resolved',
  version: 1,
  schema: z.object({ choice: z.enum(['keep', 'reload']) }),
})

/**
 * The person reviewed a document's AI changes up to a log position (a revision of the document): every AI write whose
 * change landed at or before `upToPosition` is reviewed; later ones are not. Recorded in the document's own stream
 * (`doc:<id>`), so the review backlog folds from that stream alone, and a later mark never rewrites an earlier one.
 * Defined here, with the document's other events, because the document's fold counts the backlog (its snapshot
 * keeps it); registered with the review events (core/review/events.ts).
 */
export const ReviewMarked = defineEvent({
  type: 'review.marked',
  version: 1,
  schema: z.object({ upToPosition: z.number().int().nonnegative() }),
})

const textRuns = z.array(z.object({ client: z.number().int().nonnegative(), clock: z.number().int().nonnegative(), text: z.string().min(1) }).strict())
const hunkIndexes = z.array(z.number().int().nonnegative()).min(1)

/**
 * The person keeps an AI change (DESIGN §11), or some of its hunks (by index): reviewed, as it is. The change is the
 * position of its journal entry. In the document's stream, so its fold (and snapshot) knows every change's state.
 */
export const ReviewKept = defineEvent({
  type: 'review.kept',
  version: 1,
  schema: z.object({ change: z.number().int().positive(), hunks: hunkIndexes.optional() }).strict(),
})

/**
 * The person undoes hunks of an AI change: the content event that follows in the same append deletes the characters
 * the change inserted that still stand (never anyone else's) and puts back what it deleted, as `restored` (the new
 * characters, with their text); `skipped` names hunks that could not be undone cleanly, and why.
 */
export const ReviewUndone = defineEvent({
  type: 'review.undone',
  version: 1,
  schema: z.object({
    change: z.number().int().positive(),
    hunks: z.array(z.object({ index: z.number().int().nonnegative(), restored: textRuns }).strict()),
    skipped: z.array(z.object({ index: z.number().int().nonnegative(), reason: z.string() }).strict()).optional(),
  }).strict(),
})

/** The person redoes hunks they undid: the content event that follows deletes what the undo put back and inserts the change's text again (`inserted`). */
export const ReviewRedone = defineEvent({
  type: 'review.redone',
  version: 1,
  schema: z.object({
    change: z.number().int().positive(),
    hunks: z.array(z.object({ index: z.number().int().nonnegative(), inserted: textRuns }).strict()),
  }).strict(),
})

/** Yjs ids as `[client, clock, length]` triples (a set of id ranges, in the log's JSON-like encoding). */
const idTriples = z.array(z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative(), z.number().int().positive()]))

/**
 * The write's base, as a fact of the log (DESIGN §4): the principal of this event's actor, through tab `tabId`, has
 * seen the document as it is at this event (a read, or a write of its that the document now holds exactly). With
 * `written`, it knows instead its own text after a write that was merged into edits of others it has not seen: the
 * text of revision `origin` with `hunks` applied, made of the document's characters that origin's snapshot holds,
 * less `dropped`, plus `added`, with `phantoms` (characters of that text the document no longer places). A later
 * write from the same principal and tab without `expected_revision` is an edit from what this event says it saw, on
 * whichever node it runs.
 */
export const DocumentSeen = defineEvent({
  type: 'document.seen',
  version: 1,
  schema: z.object({
    tabId: z.string().min(1),
    written: z.object({
      origin: z.string().regex(/^rev-[0-9a-z]+$/),
      hunks: z.array(z.object({ start: z.number().int().nonnegative(), deleteCount: z.number().int().nonnegative(), insert: z.string() }).strict()),
      length: z.number().int().nonnegative(),
      dropped: idTriples,
      added: idTriples,
      phantoms: z.array(z.object({ position: z.number().int().nonnegative(), length: z.number().int().positive() }).strict()),
    }).strict().optional(),
  }).strict(),
})

export const documentEvents = [
  DocumentCreated,
  DocumentChanged,
  JournalRecorded,
  DocumentSaved,
  DocumentDiverged,
  DivergenceResolved,
  DocumentSeen,
] as const
