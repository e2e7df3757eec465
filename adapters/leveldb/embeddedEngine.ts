import { openEngine, type Engine, type EngineOptions } from '../../core/engine.js'
import { EventStore, type EventStoreOptions } from './eventStore.js'

/** The engine's options without its log, and the LevelDB log's own (its clock, fault injection, retry window). */
export interface EmbeddedEngineOptions extends Omit<EngineOptions, 'openLog' | 'sharedLog'>, Partial<Omit<EventStoreOptions, 'registry'>> {}

/**
 * The engine on the data directory's own LevelDB log (`<home>/log`): Quire's embedded default, this process its only
 * writer (the log's lock holds the directory).
 */
export function openEmbeddedEngine(home: string, options: EmbeddedEngineOptions = {}): Promise<Engine> {
  return openEngine(home, { ...options, openLog: (registry) => EventStore.open(home, { ...options, registry }) })
}
