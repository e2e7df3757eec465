import { DocumentsProjection, type DocumentsProjectionOptions } from '../projections/documents/documentsProjection.js'
import { DocumentCommands } from './documents/commands.js'
import { createEventRegistry } from './events/registry.js'
import { EventStore, type EventStoreOptions } from './log/eventStore.js'

export interface EngineOptions extends Partial<Omit<EventStoreOptions, 'registry'>> {
  readonly documents?: DocumentsProjectionOptions
}

/** The core wired together: the log, the projections folded from it, and the commands that decide. */
export interface Engine {
  readonly home: string
  readonly store: EventStore
  readonly documents: DocumentsProjection
  readonly commands: { readonly documents: DocumentCommands }
  /** Snapshots loaded projections, waits for pending appends and releases the data directory. */
  close(): Promise<void>
}

export async function openEngine(home: string, options: EngineOptions = {}): Promise<Engine> {
  const store = await EventStore.open(home, { ...options, registry: createEventRegistry() })
  const documents = new DocumentsProjection(store, options.documents)
  return {
    home,
    store,
    documents,
    commands: { documents: new DocumentCommands(store, documents) },
    async close() {
      await store.flush()
      await documents.close()
      await store.close()
    },
  }
}
