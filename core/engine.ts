import { DocumentRepository, type DocumentRepositoryOptions } from './documents/documentRepository.js'
import { FoldedStream } from './streams/foldedStream.js'
import { evolveAgents, initialAgents, type AgentsState } from './agents/agentsState.js'
import { evolveApprovals, initialApprovals, type ApprovalsState } from './approvals/approvalsState.js'
import { evolveSettings, initialSettings } from './settings/settingsState.js'
import { WorkspaceState } from './workspace/workspaceState.js'
import { CommentsProjection } from './comments/commentsState.js'
import { CommentCommands } from './comments/commands.js'
import { AGENTS_STREAM } from './agents/events.js'
import { AgentCommands } from './agents/commands.js'
import { APPROVALS_STREAM } from './approvals/events.js'
import { ApprovalCommands } from './approvals/commands.js'
import { BrowserAccess, evolveBrowserLog, initialBrowserLog, type BrowserLogState } from './browser/commands.js'
import { BROWSER_STREAM } from './browser/events.js'
import { WorkflowRunCommands } from './browser/workflow/runs/commands.js'
import { WORKFLOW_RUNS_STREAM } from './browser/workflow/runs/events.js'
import { evolveRuns, initialRuns, type RunsState } from './browser/workflow/runs/state.js'
import { DocumentCommands } from './documents/commands.js'
import { EditHooks } from './documents/editHooks.js'
import { EditorGuards } from './edits/editorGuards.js'
import { RewriteCommands } from './edits/rewrites.js'
import { createEventRegistry } from './eventRegistry.js'
import { FileCommands } from './files/commands.js'
import { FileTreeCommands } from './files/tree.js'
import type { FileSystemPort } from './files/port.js'
import { EventStore, type EventStoreOptions } from './log/eventStore.js'
import { PresenceRegistry } from './presence/presenceRegistry.js'
import { ReviewCommands } from './review/commands.js'
import { SelectionCommands } from './selection/commands.js'
import { SETTINGS_STREAM, type Settings } from './settings/events.js'
import { SettingsCommands } from './settings/commands.js'
import { WORKSPACE_STREAM } from './workspace/events.js'
import { WorkspaceCommands } from './workspace/commands.js'
import { QuireError } from './errors.js'
import { CoherenceCommands, type CoherenceCommandsOptions } from './coherence/commands.js'

export interface EngineOptions extends Partial<Omit<EventStoreOptions, 'registry'>> {
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
  /** The workspaces' coherence ledgers: status, edges, claims, contexts, resolutions, grants, and saves' captures. */
  readonly coherence: CoherenceCommands
}

/** The core wired together: the log, the write models folded from it, presence, and the commands that decide. */
export interface Engine {
  readonly home: string
  readonly store: EventStore
  readonly documents: DocumentRepository
  readonly views: Views
  /** What the person's attached editors report (ephemeral, never logged): fed by the collaboration endpoint. */
  readonly presence: PresenceRegistry
  readonly commands: Commands
  /** The checks every assistant edit passes, by name (`reviewBacklog`, `commentAddresses`, `personComposing`). */
  readonly hooks: EditHooks
  /** The engine's clock (the store's), for expiry decisions. */
  now(): number
  /** Snapshots loaded documents, waits for pending appends and releases the data directory. */
  close(): Promise<void>
}

export async function openEngine(home: string, options: EngineOptions = {}): Promise<Engine> {
  const store = await EventStore.open(home, { ...options, registry: createEventRegistry() })
  try {
    const documents = new DocumentRepository(store, options.documents)
    const views: Views = {
      workspace: new FoldedStream(WORKSPACE_STREAM, WorkspaceState.initial, (state, event) => state.evolve(event)),
      approvals: new FoldedStream(APPROVALS_STREAM, initialApprovals, evolveApprovals),
      settings: new FoldedStream(SETTINGS_STREAM, initialSettings, evolveSettings),
      agents: new FoldedStream(AGENTS_STREAM, initialAgents, evolveAgents),
      browser: new FoldedStream(BROWSER_STREAM, initialBrowserLog, evolveBrowserLog),
      workflowRuns: new FoldedStream(WORKFLOW_RUNS_STREAM, initialRuns, evolveRuns),
      comments: new CommentsProjection(),
    }
    for (const view of Object.values(views)) await view.load(store)
    const now = options.now ?? Date.now
    const presence = new PresenceRegistry()
    const hooks = new EditHooks()
    const commands = wire(home, store, documents, views, presence, hooks, now, options)
    // The data directory is this process's alone: a run the log still shows running or paused lost its tab with the
    // process that ran it, so it is ended as failed now, as the stream loads, rather than left to look alive.
    await commands.workflowRuns.endInterrupted()
    return {
      home,
      store,
      documents,
      views,
      presence,
      commands,
      hooks,
      now,
      async close() {
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
 * Builds every command and registers the edit hooks each concept owns. Comments share the documents' write turns, so
 * every write-class call on a document waits in one line (CONC.4).
 */
function wire(
  home: string,
  store: EventStore,
  documents: DocumentRepository,
  views: Views,
  presence: PresenceRegistry,
  hooks: EditHooks,
  now: () => number,
  options: EngineOptions,
): Commands {
  const documentCommands = new DocumentCommands(store, documents, options.journalDeadlineMs)
  const comments = new CommentCommands(store, views.comments, documents, documentCommands.turns, options.journalDeadlineMs)
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
    selection: new SelectionCommands(views.workspace, documents, documentCommands, presence, editors, hooks),
    agents: new AgentCommands(store, views.agents),
    browserAccess: new BrowserAccess(store, views.browser, approvals, now),
    workflowRuns: new WorkflowRunCommands(store, views.workflowRuns),
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
