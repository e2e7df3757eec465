import { openEngine, type Engine, type EngineOptions } from '../../core/engine.js'
import type { FileSystemPort } from '../../core/files/port.js'
import { createFileSystem } from './fileSystem.js'
import { createServices, type Services } from './services.js'
import { QUIRE_VERSION } from './version.js'

/** A running Quire core in this process: the engine, its services, and what must be released on close. */
export interface Quire {
  readonly services: Services
  close(): Promise<void>
}

export interface QuireOptions extends EngineOptions {
  /** Replaces the real file system (tests inject faults through it). */
  readonly fileSystem?: FileSystemPort
}

/** Opens the data directory (taking its lock) and wires the core with the real file system. */
export async function openQuire(home: string, options: QuireOptions = {}): Promise<Quire> {
  const engine: Engine = await openEngine(home, options)
  const fileSystem = options.fileSystem ?? createFileSystem()
  const services = createServices(engine, fileSystem, QUIRE_VERSION)
  return {
    services,
    async close() {
      await engine.close()
    },
  }
}
