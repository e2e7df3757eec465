/**
 * A FileSystemPort on the real file system (adapters/fs, as adapters/host/fileSystem.ts wires it) with seams for
 * conformance tests: pause a save before it joins its file's queue lane or at its queue turn, run the atomic-write
 * fault hooks (adapters/fs/atomicWrite.ts) at a given step of the next write, make the next disk write fail like a
 * failing disk, pause between a path's scope check and the read that opens it, and watch what was written where.
 *
 * Everything not paused or failed behaves exactly like the production port: the same PathScope, readText,
 * writeFileAtomic, createFileExclusive and SaveQueue. Tickets are taken when `enqueueSave` is called, before any
 * waiting, as the port's contract says; a save held "before its lane" keeps its early ticket while a later save of
 * the same file gets ahead of it — the race SAVE.3 / DOC.WRITE.10 are about.
 */
import type { FileSystemPort, ResolvedPath, SaveOutcome } from '../../core/files/port.js'
import { createFileExclusive, writeFileAtomic, type WriteFaults, type WriteStep } from '../../adapters/fs/atomicWrite.js'
import { createFolder, listFolder, renameEntry } from '../../adapters/fs/folderEntries.js'
import { PathScope } from '../../adapters/fs/pathScope.js'
import { readText } from '../../adapters/fs/readText.js'
import { removeStaleTemps } from '../../adapters/fs/staleTemps.js'
import { SaveQueue } from '../../adapters/fs/saveQueue.js'

/** A pause a test opens: `reached` settles when the paused code arrives, `release()` lets it go on. */
export interface Gate {
  readonly reached: Promise<void>
  release(): void
  readonly isReached: boolean
}

export function gate(): Gate & { arrive(): Promise<void> } {
  let markReached!: () => void
  let release!: () => void
  const reached = new Promise<void>((resolve) => (markReached = resolve))
  const released = new Promise<void>((resolve) => (release = resolve))
  const state = { reached: false }
  return {
    reached,
    release,
    get isReached() {
      return state.reached
    },
    async arrive() {
      state.reached = true
      markReached()
      await released
    },
  }
}

export interface WriteRecord {
  readonly kind: 'atomic' | 'exclusive'
  readonly path: string
  readonly bytes: number
  readonly outcome: 'placed' | 'failed'
  readonly error?: string
}

type Hook = keyof WriteFaults

export class FaultyFileSystem {
  private readonly queue = new SaveQueue()
  private readonly laneHolds: Array<ReturnType<typeof gate>> = []
  private readonly turnHolds: Array<ReturnType<typeof gate>> = []
  private readonly jobHooks: Array<() => Promise<void> | void> = []
  private readonly readHolds: Array<ReturnType<typeof gate>> = []
  private readonly writeFaults: Array<Partial<Record<Hook, (step: WriteStep) => Promise<void> | void>>> = []
  private readonly failures: Array<Error> = []
  /** Every write the port was asked for, in order, and how it ended. */
  readonly writes: WriteRecord[] = []
  /** Every path handed to `resolveInScope`. */
  readonly checked: string[] = []
  /** Every path handed to `readText`. */
  readonly reads: string[] = []
  /** How many saves were enqueued, and how many ended superseded. */
  enqueued = 0
  superseded = 0

  /** The next save takes its ticket now but joins its file's queue lane only once released. */
  holdNextBeforeLane(): Gate {
    const held = gate()
    this.laneHolds.push(held)
    return held
  }

  /** The next save pauses at its queue turn, before the scope re-check (SCOPE.5), holding the lane. */
  holdNextAtTurn(): Gate {
    const held = gate()
    this.turnHolds.push(held)
    return held
  }

  /** Runs `hook` when the next save's job starts (after the re-check, before the write). */
  onNextJob(hook: () => Promise<void> | void): void {
    this.jobHooks.push(hook)
  }

  /** The next `readText` pauses after its path's scope check, before opening the file. */
  holdNextRead(): Gate {
    const held = gate()
    this.readHolds.push(held)
    return held
  }

  /** Fault hooks (adapters/fs/atomicWrite.ts) for the next write, whichever function performs it. */
  faultNextWrite(hooks: Partial<Record<Hook, (step: WriteStep) => Promise<void> | void>>): void {
    this.writeFaults.push(hooks)
  }

  /** The next write fails like a failing disk: the temp file is written, then its fsync'd bytes cannot be placed. */
  failNextWrite(error: Error = Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO', errno: -5, syscall: 'fsync' })): void {
    this.failures.push(error)
  }

  readonly port: FileSystemPort = {
    resolveInScope: async (path, roots): Promise<ResolvedPath> => {
      this.checked.push(path)
      // As the real port does: Quire's roots are canonical, matched only as they are.
      return (await PathScope.canonical(roots)).resolveInScope(path)
    },
    removeStaleTemps: async (directory) => {
      await removeStaleTemps(directory)
    },
    readText: async (path) => {
      this.reads.push(path)
      const held = this.readHolds.shift()
      if (held) await held.arrive()
      return (await readText(path)).text
    },
    enqueueSave: async <T>(path: string, job: () => Promise<T>, atTurn: () => Promise<void>): Promise<SaveOutcome<T>> => {
      // The ticket is taken now, before any waiting (the port's contract).
      const ticket = this.queue.issue()
      this.enqueued++
      const laneHold = this.laneHolds.shift()
      const turnHold = this.turnHolds.shift()
      const jobHook = this.jobHooks.shift()
      if (laneHold) await laneHold.arrive()
      const outcome = await this.queue.enqueue(
        path,
        async () => {
          await jobHook?.()
          return job()
        },
        {
          ticket,
          atTurn: async () => {
            if (turnHold) await turnHold.arrive()
            await atTurn()
          },
        },
      )
      if (outcome.status === 'superseded') {
        this.superseded++
        return { status: 'superseded' }
      }
      return { status: 'written', value: outcome.value }
    },
    writeAtomic: (path, content) => this.write('atomic', path, content),
    createExclusive: (path, content) => this.write('exclusive', path, content),
    expectWrite: () => {},
    listFolder: async (path, roots) => {
      const scope = await PathScope.canonical(roots)
      const folder = await scope.resolveInScope(path)
      return { path: folder.real, ...(await listFolder(folder.real, (entry) => scope.resolveInScope(entry))) }
    },
    createFolder: (path) => createFolder(path),
    rename: (from, to) => renameEntry(from, to),
  }

  private async write(kind: 'atomic' | 'exclusive', path: string, content: string): Promise<void> {
    const hooks = this.writeFaults.shift() ?? {}
    const failure = this.failures.shift()
    const faults: WriteFaults = {
      ...hooks,
      afterTempWritten: async (step) => {
        await hooks.afterTempWritten?.(step)
        if (failure) throw failure
      },
    }
    try {
      if (kind === 'atomic') await writeFileAtomic(path, content, { faults })
      else await createFileExclusive(path, content, { faults })
      this.writes.push({ kind, path, bytes: Buffer.byteLength(content), outcome: 'placed' })
    } catch (error) {
      this.writes.push({ kind, path, bytes: Buffer.byteLength(content), outcome: 'failed', error: String(error) })
      throw error
    }
  }
}
