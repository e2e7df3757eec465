import { DocumentRepository, type DocumentRepositoryOptions } from './documents/documentRepository.js'
import { FoldedStream } from './streams/foldedStream.js'
import { evolveAgents, initialAgents, type AgentsState } from './agents/agentsState.js'
import { evolveApprovals, initialApprovals, type ApprovalsState } from './approvals/approvalsState.js'
import { evolveSettings, initialSettings } from './settings/settingsState.js'
import { WorkspaceState } from './workspace/workspaceState.js'
import { CommentsProjection } from './comments/commentsState.js'
import { CommentCommands } from './comments/commands.js'
import { COMMENTS_STREAM_PREFIX } from './comments/events.js'
import { AGENTS_STREAM } from './agents/events.js'
import { AgentCommands } from './agents/commands.js'
import { APPROVALS_STREAM } from './approvals/events.js'
import { ApprovalCommands } from './approvals/commands.js'
import { BrowserAccess, evolveBrowserLog, initialBrowserLog, type BrowserLogState } from './browser/commands.js'
import { BROWSER_STREAM } from './browser/events.js'
import { WorkflowRunCommands } from './browser/workflow/runs/commands.js'
import { WORKFLOW_RUNS_STREAM } from './browser/workflow/runs/events.js'
import { evolveRuns, initialRuns, type RunsState } from './browser/workflow/runs/state.js'
import { WorkflowRecordingCommands } from './browser/workflow/recordCommands.js'
import { WORKFLOW_RECORDINGS_STREAM } from './browser/workflow/recordEvents.js'
import { evolveRecordings, initialRecordings, type RecordingsState } from './browser/workflow/recordState.js'
import { DocumentCommands } from './documents/commands.js'
import type { CrossNodeTurns } from './documents/turns.js'
import { EditHooks } from './documents/editHooks.js'
import { EditorGuards } from './edits/editorGuards.js'
import { RewriteCommands } from './edits/rewrites.js'
import { createEventRegistry } from './eventRegistry.js'
import { FileCommands } from './files/commands.js'
import { FileTreeCommands } from './files/tree.js'
import type { FileSystemPort } from './files/port.js'
import type { EventLog } from './log/eventLog.js'
import type { EventRegistry } from './events/schema.js'
import { PresenceRegistry } from './presence/presenceRegistry.js'
import { ReviewCommands } from './review/commands.js'
import { SelectionCommands } from './selection/commands.js'
import { SETTINGS_STREAM, type Settings } from './settings/events.js'
import { SettingsCommands } from './settings/commands.js'
import { WORKSPACE_STREAM } from './workspace/events.js'
import { WorkspaceCommands } from './workspace/commands.js'
import { QuireError } from './errors.js'
import { CoherenceCommands, type CoherenceCommandsOptions } from './coherence/commands.js'

export interface EngineOptions {
  /**
   * Opens the log the engine runs on: the data directory's own (adapters/leveldb/embeddedEngine.ts) or one several
   * nodes share (PostgreSQL, with `sharedLog`). The caller holds the data directory for this process.
   */
  readonly openLog: (registry: EventRegistry) => Promise<EventLog>
  /**
   * Other processes may append to the log: the engine follows what they append (see `followOtherNodes`), and a
   * workflow run the log shows going may be another node's, so it is not ended as interrupted at start.
   */
  readonly sharedLog?: boolean
  /** The engine's clock, for expiry decisions (tests pin it; give the log the same). */
  readonly now?: () => number
  readonly documents?: DocumentRepositoryOptions
  /** How long a write waits for the journal before answering JOURNAL_UNAVAILABLE (default 2 s). */
  readonly journalDeadlineMs?: number
  /**
   * The file system the file commands open and save through (path scope, atomic saves, save queues). A process that
   * opens the data directory only to audit it or to put content in from a shell passes none: its file commands then
   * refuse, saying so.
   */
  readonly fileSystem?: FileSystemPort
  readonly coherence?: CoherenceCommandsOptions
  /** With `sharedLog`: each document's write turn held among the nodes sharing the log. */
  readonly crossNodeTurns?: CrossNodeTurns
}

/** The write models of the small streams, kept in memory for the life of the engine and decided from. */
export interface Views {
  readonly workspace: FoldedStream<WorkspaceState>
  readonly approvals: FoldedStream<ApprovalsState>
  readonly settings: FoldedStream<Settings>
  readonly agents: FoldedStream<AgentsState>
  /** The `browser` stream's version (its actions are read from the log, not kept). */
  readonly browser: FoldedStream<BrowserLogState>
  /** The browser's workflow runs (`browser-runs`): their steps, approval waits and outcomes, and the writes ledger. */
  readonly workflowRuns: FoldedStream<RunsState>
  /** The browser's workflow recordings (`browser-recordings`): who recorded which tab, and how much (never what). */
  readonly workflowRecordings: FoldedStream<RecordingsState>
  /** Every document's review threads (the `comments:<docId>` streams). */
  readonly comments: CommentsProjection
}

/** Every command of core, wired once per engine; adapters call these and nothing else to change state. */
export interface Commands {
  readonly documents: DocumentCommands
  readonly comments: CommentCommands
  readonly workspace: WorkspaceCommands
  readonly files: FileCommands
  /** The person's file tree: list folders, create files and folders, rename (the console's). */
  readonly tree: FileTreeCommands
  readonly approvals: ApprovalCommands
  readonly agents: AgentCommands
  readonly settings: SettingsCommands
  readonly rewrites: RewriteCommands
  readonly selection: SelectionCommands
  /** The review backlog of AI changes (DOC.WRITE.18): counts, the person's review marks, the limit check. */
  readonly review: ReviewCommands
  /** Whether an assistant may do a browser action now (grants, approvals, attachments), and the record of each one. */
  readonly browserAccess: BrowserAccess
  /** The browser's workflow runs: each change decided and recorded; `workflow_status` reads it. */
  readonly workflowRuns: WorkflowRunCommands
  /** The browser's workflow recordings: each start and stop decided and recorded (the capture is the adapter's). */
  readonly workflowRecordings: WorkflowRecordingCommands
  /** The workspaces' coherence ledgers: status, edges, claims, contexts, resolutions, grants, and saves' captures. */
  readonly coherence: CoherenceCommands
}

/** The core wired together: the log, the write models folded from it, presence, and the commands that decide. */
export interface Engine {
  readonly home: string
  readonly store: EventLog
  readonly documents: DocumentRepository
  readonly views: Views
  /** What the person's attached editors report (ephemeral, never logged): fed by the collaboration endpoint. */
  readonly presence: PresenceRegistry
  readonly commands: Commands
  /** The checks every assistant edit passes, by name (`reviewBacklog`, `commentAddresses`, `personComposing`). */
  readonly hooks: EditHooks
  /** On a log several nodes share: turns held among them (documents' and, through the file system, files'). */
  readonly crossNodeTurns?: CrossNodeTurns
  /** The engine's clock (the store's), for expiry decisions. */
  now(): number
  /** Snapshots loaded documents, waits for pending appends and releases the data directory. */
  close(): Promise<void>
}

export async function openEngine(home: string, options: EngineOptions): Promise<Engine> {
  const registry = createEventRegistry()
  const shared = options.sharedLog === true
  const store: EventLog = await options.openLog(registry)
  try {
    const loadedFrom = store.durableHeadPosition
    const documents = new DocumentRepository(store, options.documents)
    const views: Views = {
      workspace: new FoldedStream(WORKSPACE_STREAM, WorkspaceState.initial, (state, event) => state.evolve(event)),
      approvals: new FoldedStream(APPROVALS_STREAM, initialApprovals, evolveApprovals),
      settings: new FoldedStream(SETTINGS_STREAM, initialSettings, evolveSettings),
      agents: new FoldedStream(AGENTS_STREAM, initialAgents, evolveAgents),
      browser: new FoldedStream(BROWSER_STREAM, initialBrowserLog, evolveBrowserLog),
      workflowRuns: new FoldedStream(WORKFLOW_RUNS_STREAM, initialRuns, evolveRuns),
      workflowRecordings: new FoldedStream(WORKFLOW_RECORDINGS_STREAM, initialRecordings, evolveRecordings),
      comments: new CommentsProjection(),
    }
    for (const view of Object.values(views)) await view.load(store)
    const now = options.now ?? Date.now
    const presence = new PresenceRegistry()
    const hooks = new EditHooks()
    const commands = wire(home, store, documents, views, presence, hooks, now, options)
    // On the embedded log this process is its only writer: a run (or recording) the log still shows going lost its
    // tab with the process that ran it, so it is ended as failed now, as the stream loads, rather than left to look
    // alive. On a shared log it may be another node's, alive.
    if (!shared) {
      await commands.workflowRuns.endInterrupted()
      await commands.workflowRecordings.endInterrupted()
    }
    const stopFollowing = shared ? followOtherNodes(store, loadedFrom, views, commands.documents) : () => {}
    return {
      home,
      store,
      documents,
      views,
      presence,
      commands,
      hooks,
      ...(options.crossNodeTurns ? { crossNodeTurns: options.crossNodeTurns } : {}),
      now,
      async close() {
        stopFollowing()
        try {
          await store.flush()
          await documents.close()
        } finally {
          // The data directory's lock is released whatever the disk did to the last snapshots.
          await store.close()
        }
      },
    }
  } catch (error) {
    await store.close()
    throw error
  }
}

/**
 * On a log several nodes share, folds what the other nodes append into this node's write models as it becomes
 * durable: the small streams, the comments, and the documents this node holds (on the embedded log this process is
 * the only writer, and folded every event as it appended it). This node's own events come by too and are skipped by
 * stream version. The small streams and documents fold in their streams' steps, queued in log order; a fold that
 * fails leaves the state behind the log, which the next append there finds (a version conflict) and catches up on.
 */
function followOtherNodes(store: EventLog, after: number, views: Views, documents: DocumentCommands): () => void {
  const { comments, ...small } = views
  const folded = new Map<string, FoldedStream<unknown>>(Object.values(small).map((view) => [view.stream, view as FoldedStream<unknown>]))
  return store.subscribe(after, async (event) => {
    const view = folded.get(event.stream)
    if (view) void view.follow(store, event).catch(() => {})
    else if (event.stream.startsWith(COMMENTS_STREAM_PREFIX)) await comments.follow(store, event).catch(() => {})
    else void documents.follow(event).catch(() => {})
  })
}

/**
 * Builds every command and registers the edit hooks each concept owns. Comments share the documents' write turns, so
 * every write-class call on a document waits in one line (CONC.4).
 */
function wire(
  home: string,
  store: EventLog,
  documents: DocumentRepository,
  views: Views,
  presence: PresenceRegistry,
  hooks: EditHooks,
  now: () => number,
  options: EngineOptions,
): Commands {
  const documentCommands = new DocumentCommands(store, documents, options.journalDeadlineMs, options.crossNodeTurns)
  const comments = new CommentCommands(store, views.comments, documentCommands, documentCommands.turns, options.journalDeadlineMs)
  const approvals = new ApprovalCommands(store, views.approvals, now)
  const editors = new EditorGuards(presence, views.workspace)
  const review = new ReviewCommands(store, documents, documentCommands, views.settings)
  hooks.register({ name: 'reviewBacklog', beforeTurn: ({ docId, operation }) => (operation === 'write' ? review.assertBacklogNotFull(docId) : Promise.resolve()) })
  hooks.register({ name: 'personComposing', inTurn: ({ docId }) => editors.assertNotComposing(docId) })
  hooks.register({
    name: 'commentAddresses',
    inTurn: ({ docId, addresses }) => {
      if (addresses !== undefined) comments.validateAddresses(docId, addresses)
    },
  })
  const fileSystem = options.fileSystem ?? noFileSystem
  const coherence = new CoherenceCommands(store, views.workspace, views.settings, home, now, options.coherence)
  const files = new FileCommands(store, views.workspace, views.settings, documents, documentCommands, approvals, fileSystem, editors, hooks, coherence)
  return {
    documents: documentCommands,
    comments,
    approvals,
    review,
    files,
    tree: new FileTreeCommands(store, views.workspace, documents, documentCommands, files, fileSystem),
    rewrites: new RewriteCommands(views.workspace, views.settings, documents, documentCommands, editors, hooks),
    selection: new SelectionCommands(views.workspace, documentCommands, presence, editors, hooks),
    agents: new AgentCommands(store, views.agents),
    browserAccess: new BrowserAccess(store, views.browser, approvals, now),
    workflowRuns: new WorkflowRunCommands(store, views.workflowRuns),
    workflowRecordings: new WorkflowRecordingCommands(store, views.workflowRecordings),
    coherence,
    settings: new SettingsCommands(store, views.settings),
    workspace: new WorkspaceCommands(store, views.workspace, views.settings, documents, documentCommands, approvals),
  }
}

/** The file system of an engine opened without one (auditing, `quire doc`): every file command says so. */
const refuse = (): never => {
  throw new QuireError('INTERNAL', 'this process opened the data directory without file access (it audits or imports only); run the daemon for files')
}
const noFileSystem: FileSystemPort = {
  resolveInScope: async () => refuse(),
  readText: async () => refuse(),
  enqueueSave: async () => refuse(),
  writeAtomic: async () => refuse(),
  createExclusive: async () => refuse(),
  removeStaleTemps: async () => refuse(),
  expectWrite: () => refuse(),
  listFolder: async () => refuse(),
  createFolder: async () => refuse(),
  rename: async () => refuse(),
}
