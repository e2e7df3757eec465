import type { Engine } from '../../core/engine.js'
import { DiskSync } from './diskSync.js'
import { openEngineHome, type EngineHomeOptions } from './engineHome.js'
import { createFileSystem } from './fileSystem.js'
import { ReadModels } from './readModels.js'
import { createServices, type Services } from './services.js'
import { QUIRE_VERSION } from './version.js'

/** A running Quire core in this process: the engine, its services, and what must be released on close. */
export interface Quire {
  readonly services: Services
  close(): Promise<void>
}

export interface QuireOptions extends EngineHomeOptions {
  /** Watch the files of open tabs for changes by other programs (default true). */
  readonly watchDisk?: boolean
  /** Where problems that concern no caller are reported (a watch that failed, say). */
  readonly log?: (message: string) => void
}

/**
 * Opens the data directory (taking its lock) and wires the core with the real file system (unless `fileSystem`
 * replaces it: tests inject faults through it) and the disk watcher.
 */
export async function openQuire(home: string, options: QuireOptions = {}): Promise<Quire> {
  let diskSync: DiskSync | undefined
  let opened: Engine | undefined
  const fileSystem =
    options.fileSystem ??
    createFileSystem(
      home,
      (path, sha256) => diskSync?.watcher.expectWrite(path, sha256),
      () => opened?.crossNodeTurns,
      (path, placed) => diskSync?.watcher.expectedWriteLanded(path, placed),
    )
  const engine = await openEngineHome(home, { ...options, fileSystem })
  opened = engine
  let readModels: ReadModels
  try {
    readModels = await ReadModels.start(home, engine.store)
  } catch (error) {
    await engine.close()
    throw error
  }
  const services = createServices(engine, QUIRE_VERSION, readModels)
  if (options.watchDisk !== false) diskSync = new DiskSync(services, options.log)
  return {
    services,
    async close() {
      diskSync?.close()
      await services.validator.close()
      services.workflowRunner.stop()
      await services.workflowRecorder.close()
      await services.browser.stop()
      await readModels.close()
      await engine.close()
    },
  }
}
