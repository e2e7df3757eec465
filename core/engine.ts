import { DocumentRepository, type DocumentRepositoryOptions } from './documents/documentRepository.js'
import { FoldedStream } from './streams/foldedStream.js'
import { evolveAgents, initialAgents, type AgentsState } from './agents/agentsState.js'
import { evolveApprovals, initialApprovals, type ApprovalsState } from './approvals/approvalsState.js'
import { evolveSettings, initialSettings } from './settings/settingsState.js'
import { WorkspaceState } from './workspace/workspaceState.js'
import { CommentsProjection } from './comments/commentsState.js'
import { CommentCommands } from './comments/commands.js'
import { AGENTS_STREAM } from './agents/events.js'
import { APPROVALS_STREAM } from './approvals/events.js'
import { DocumentCommands } from './documents/commands.js'
import { createEventRegistry } from './events/registry.js'
import { EventStore, type EventStoreOptions } from './log/eventStore.js'
import { SETTINGS_STREAM, type Settings } from './settings/events.js'
import { WORKSPACE_STREAM } from './workspace/events.js'

export interface EngineOptions extends Partial<Omit<EventStoreOptions, 'registry'>> {
  readonly documents?: DocumentRepositoryOptions
  /** How long a write waits for the journal before answering JOURNAL_UNAVAILABLE (default 2 s). */
  readonly journalDeadlineMs?: number
}

/** The read models folded from the small streams, kept in memory for the life of the engine. */
export interface Views {
  readonly workspace: FoldedStream<WorkspaceState>
  readonly approvals: FoldedStream<ApprovalsState>
  readonly settings: FoldedStream<Settings>
  readonly agents: FoldedStream<AgentsState>
  /** Every document's review threads (the `comments:<docId>` streams). */
  readonly comments: CommentsProjection
}

/** The core wired together: the log, the projections folded from it, and the commands that decide. */
export interface Engine {
  readonly home: string
  readonly store: EventStore
  readonly documents: DocumentRepository
  readonly views: Views
  readonly commands: { readonly documents: DocumentCommands; readonly comments: CommentCommands }
  /** The engine's clock (the store's), for expiry decisions. */
  now(): number
  /** Snapshots loaded projections, waits for pending appends and releases the data directory. */
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
      comments: new CommentsProjection(),
    }
    for (const view of Object.values(views)) await view.load(store)
    return {
      home,
      store,
      documents,
      views,
      commands: commands(store, documents, views, options.journalDeadlineMs),
      now: options.now ?? Date.now,
      async close() {
        await store.flush()
        await documents.close()
        await store.close()
      },
    }
  } catch (error) {
    await store.close()
    throw error
  }
}

/** The commands: comments share the documents' write turns, so every write-class call on a document waits in one line (CONC.4). */
function commands(store: EventStore, documents: DocumentRepository, views: Views, journalDeadlineMs: number | undefined): Engine['commands'] {
  const documentCommands = new DocumentCommands(store, documents, journalDeadlineMs)
  return {
    documents: documentCommands,
    comments: new CommentCommands(store, views.comments, documents, documentCommands.turns, journalDeadlineMs),
  }
}
