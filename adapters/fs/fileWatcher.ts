/**
 * Notices when the bytes of an open document's file change on disk, so the core can reconcile (`disk` actor events,
 * WS.CLOSE.3's DIVERGENT). It watches *directories*, not files: other editors save by writing a temp file and
 * renaming it over the original, which gives the file a new inode, and a watch on the old inode would go silent
 * after the first such save. A directory watch sees the rename (and deletes, and re-creations) by name.
 *
 * Behaviour of node:fs `watch` on Linux (inotify, checked on Node 20): a directory watch reports `rename` for a create,
 * delete or rename of an entry and `change` for writes and attribute changes, one or more per operation, with the
 * entry's name. When the watched directory itself is deleted or moved away, it reports `rename` with the directory's
 * own name and then nothing more — no `error` — and a directory later re-created under the same name is not watched:
 * a moved directory stays watched under its new name. So after every `rename` the watcher checks that the path
 * still leads to the directory it watches (device and inode); if not, it treats every file there as changed, drops
 * the watch and re-establishes it by polling until the directory is back.
 *
 * Events only say "look at this name". Each is debounced per file (`debounceMs`, default 50 ms, but never delayed
 * more than `maxWaitMs`), then the file is read and hashed, and a change is reported only if the bytes differ from
 * the last state seen: `touch`, `chmod` and the several events of one write cost one read and no report.
 *
 * Quire's own saves must not come back as external edits. Before writing, the caller registers `expectWrite(path,
 * sha256)`; a state whose hash matches an expected one becomes the new baseline silently. Expectations expire
 * (`expectationTtlMs`, default 60 s) so a save that failed cannot hide a later external edit of the same bytes
 * forever. Known blind spot: if another program writes back exactly the previous bytes within the debounce window
 * after a Quire save, the two cancel out and nothing is reported.
 *
 * A save that placed its file also says what it placed (`expectedWriteLanded`: the inode its temp file became, with
 * its size and mtime, placedFile.ts). A look then `lstat`s the path first, and if the very inode is there unchanged it
 * is the save's bytes: they become the baseline without the file being read and hashed again. That is trusted only
 * while the events since `expectWrite` are what the save itself causes, one `rename` of the name (the temp file's
 * writes are reported under the temp's name): any `change` (a write or attribute change through this name, even one
 * within the file system's timestamp granularity, which the mtime alone would miss), a second `rename` (the name
 * deleted and re-created, which could reuse the inode) or an event without a name sends the look to read the file,
 * as every look did before. So does a save that never said what it placed (it failed, or its caller does not tell).
 *
 * Paths are registered as real paths (`ScopedPath.real`): a directory watch follows the directory, and files are
 * read with O_NOFOLLOW, so a file replaced by a symlink is reported as `not_a_file`, not as the link's target.
 */
import { constants, statSync, watch } from 'node:fs'
import type { FSWatcher } from 'node:fs'
import { lstat, open, stat } from 'node:fs/promises'
import type { FileHandle } from 'node:fs/promises'
import { createHash } from 'node:crypto'
import { basename, dirname, resolve } from 'node:path'
import { isStillPlaced, type PlacedFile } from './placedFile.js'
import { DEFAULT_MAX_TEXT_BYTES } from './readText.js'

/** What is at a watched path now. `content` is the raw bytes; decode with `decodeText` to get document text. */
export type FileChange =
  | { readonly path: string; readonly state: 'present'; readonly content: Uint8Array; readonly sha256: string }
  /** Larger than `maxBytes`: hashed but not kept in memory. */
  | { readonly path: string; readonly state: 'too_large'; readonly content: null; readonly sha256: string }
  /** Gone; replaced by a directory, symlink, FIFO, ...; or present but unreadable (permissions). */
  | { readonly path: string; readonly state: 'deleted' | 'not_a_file' | 'unreadable'; readonly content: null; readonly sha256: null }

export interface FileWatcherOptions {
  /** Called once per detected change, after debouncing. Exceptions it throws go to `onError`. */
  readonly onChange: (change: FileChange) => void
  /** Watch failures (a directory removed, inotify limits) and read errors; the watcher keeps going. */
  readonly onError?: (error: unknown, path: string) => void
  readonly debounceMs?: number
  readonly maxWaitMs?: number
  /** How often to try to re-watch a directory that disappeared or could not be watched. */
  readonly rewatchMs?: number
  readonly maxBytes?: number
  readonly expectationTtlMs?: number
}

export interface AddOptions {
  /**
   * The hash of the bytes the document was loaded from (`readText`'s `sha256`), or null if the file is not expected
   * to exist. If the file already differs when the watch starts, that is reported. Omitted: whatever is on disk when
   * the watch starts becomes the baseline, unreported.
   */
  readonly sha256?: string | null
}

/** A `FileChange` without its path (distributed over the union, so `state` still discriminates). */
type FileState = FileChange extends infer Change ? (Change extends FileChange ? Omit<Change, 'path'> : never) : never

interface Expectation {
  readonly sha256: string
  readonly until: number
}

/** The last save announced for a file, and the events on its name since (see the module comment). */
interface OwnWrite {
  readonly sha256: string
  placed: PlacedFile | undefined
  changeEvents: number
  renameEvents: number
}

interface WatchedFile {
  readonly path: string
  readonly name: string
  readonly directory: WatchedDirectory
  refs: number
  /** Identity of the last state seen (hash, or the state name when there is no hash); undefined before the first look. */
  known: string | undefined
  expected: Expectation[]
  ownWrite: OwnWrite | undefined
  timer: NodeJS.Timeout | undefined
  pendingSince: number
  running: Promise<void> | undefined
  again: boolean
}

interface WatchedDirectory {
  readonly path: string
  readonly files: Map<string, WatchedFile>
  watcher: FSWatcher | undefined
  /** `dev:ino` of the directory the watcher is attached to. */
  identity: string | undefined
  healthTimer: NodeJS.Timeout | undefined
  retryTimer: NodeJS.Timeout | undefined
}

const MAX_EXPECTATIONS = 16
const READ_CHUNK = 1024 * 1024

const identityOf = (state: FileState): string => state.sha256 ?? `<${state.state}>`

const errorCode = (error: unknown): string | undefined =>
  typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : undefined

export class FileWatcher {
  private readonly files = new Map<string, WatchedFile>()
  private readonly directories = new Map<string, WatchedDirectory>()
  private closed = false
  private reads = 0
  private readonly debounceMs: number
  private readonly maxWaitMs: number
  private readonly rewatchMs: number
  private readonly maxBytes: number
  private readonly expectationTtlMs: number

  constructor(private readonly options: FileWatcherOptions) {
    this.debounceMs = options.debounceMs ?? 50
    this.maxWaitMs = options.maxWaitMs ?? 500
    this.rewatchMs = options.rewatchMs ?? 500
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_TEXT_BYTES
    this.expectationTtlMs = options.expectationTtlMs ?? 60_000
  }

  /**
   * Start watching `path` (absolute, normalised; a real path). Registrations are counted: a file added twice (two
   * documents on one real file) stays watched until removed twice. Resolves once the watch is in place and the
   * baseline is known.
   */
  async add(path: string, options: AddOptions = {}): Promise<void> {
    if (this.closed) throw new Error('FileWatcher is closed')
    if (resolve(path) !== path || basename(path) === '') throw new TypeError(`Not a normalised absolute file path: ${path}`)
    const existing = this.files.get(path)
    if (existing) {
      existing.refs++
      return
    }
    const directory = this.directoryFor(dirname(path))
    const file: WatchedFile = {
      path,
      name: basename(path),
      directory,
      refs: 1,
      // `<deleted>` is what `identityOf` gives the deleted state.
      known: options.sha256 === undefined ? undefined : (options.sha256 ?? '<deleted>'),
      expected: [],
      ownWrite: undefined,
      timer: undefined,
      pendingSince: 0,
      running: undefined,
      again: false,
    }
    this.files.set(path, file)
    directory.files.set(file.name, file)
    if (!directory.watcher && directory.retryTimer === undefined) this.startWatching(directory)
    await this.check(file)
  }

  /** Stop watching `path` once every `add` of it has been matched by a `remove`. */
  remove(path: string): void {
    const file = this.files.get(path)
    if (!file || --file.refs > 0) return
    clearTimeout(file.timer)
    this.files.delete(path)
    const directory = file.directory
    directory.files.delete(file.name)
    if (directory.files.size === 0) this.dropDirectory(directory)
  }

  /**
   * Quire is about to write bytes hashing to `sha256` to `path`: when the watcher sees them, it takes them as the new
   * baseline instead of reporting them. Call before the write starts, with the hash of the exact bytes written. A
   * no-op for a path not being watched (after `save_as` creates a file, `add` it with the hash it was written with).
   */
  expectWrite(path: string, sha256: string): void {
    const file = this.files.get(path)
    if (!file) return
    file.expected.push({ sha256, until: Date.now() + this.expectationTtlMs })
    if (file.expected.length > MAX_EXPECTATIONS) file.expected.shift()
    file.ownWrite = { sha256, placed: undefined, changeEvents: 0, renameEvents: 0 }
  }

  /**
   * The write the last `expectWrite` of `path` announced has placed its file (`writeFileAtomic`'s answer): a look
   * that finds that inode unchanged takes it as those bytes without reading it. Call it only after that write
   * succeeded and before the next `expectWrite` of the path (saves of one file are queued one at a time).
   */
  expectedWriteLanded(path: string, placed: PlacedFile): void {
    const ownWrite = this.files.get(path)?.ownWrite
    if (ownWrite && ownWrite.placed === undefined) ownWrite.placed = placed
  }

  /** How many times a look opened a file to read and hash it (a save recognised by its placement costs none). */
  get filesRead(): number {
    return this.reads
  }

  /** The paths being watched. */
  get paths(): readonly string[] {
    return [...this.files.keys()]
  }

  /** Stop everything. No `onChange` is called after this returns, even for reads already in flight. */
  close(): void {
    this.closed = true
    for (const file of this.files.values()) clearTimeout(file.timer)
    for (const directory of this.directories.values()) this.dropDirectory(directory)
    this.files.clear()
  }

  private directoryFor(path: string): WatchedDirectory {
    let directory = this.directories.get(path)
    if (!directory) {
      directory = { path, files: new Map(), watcher: undefined, identity: undefined, healthTimer: undefined, retryTimer: undefined }
      this.directories.set(path, directory)
    }
    return directory
  }

  private dropDirectory(directory: WatchedDirectory): void {
    this.unwatch(directory)
    clearTimeout(directory.retryTimer)
    directory.retryTimer = undefined
    if (this.directories.get(directory.path) === directory) this.directories.delete(directory.path)
  }

  private unwatch(directory: WatchedDirectory): void {
    directory.watcher?.close()
    directory.watcher = undefined
    directory.identity = undefined
    clearTimeout(directory.healthTimer)
    directory.healthTimer = undefined
  }

  /** Attach a watch to the directory; on failure (it does not exist, inotify limit) poll until it can be attached. */
  private startWatching(directory: WatchedDirectory): boolean {
    directory.retryTimer = undefined
    try {
      const watcher = watch(directory.path, { persistent: false }, (eventType, filename) => this.onEvent(directory, eventType, filename))
      watcher.on('error', (error) => {
        this.reportError(error, directory.path)
        if (directory.watcher === watcher) this.lost(directory)
      })
      directory.watcher = watcher
      // Synchronously after attaching, so the identity is that of the directory the watch is on (barring a swap
      // within these microseconds, which the next `rename` health check would not see; a documented limit).
      const stats = statSync(directory.path)
      if (!stats.isDirectory()) throw Object.assign(new Error(`${directory.path} is not a directory`), { code: 'ENOTDIR' })
      directory.identity = `${stats.dev}:${stats.ino}`
      return true
    } catch (error) {
      // A missing directory is an expected state (deleted, not created yet); anything else is worth telling.
      if (errorCode(error) !== 'ENOENT' && errorCode(error) !== 'ENOTDIR') this.reportError(error, directory.path)
      this.unwatch(directory)
      this.retry(directory)
      return false
    }
  }

  private retry(directory: WatchedDirectory): void {
    if (this.closed || directory.retryTimer !== undefined || this.directories.get(directory.path) !== directory) return
    directory.retryTimer = setTimeout(() => {
      if (this.closed || this.directories.get(directory.path) !== directory) return
      // Back: whatever happened to its files while nobody watched is found by looking at each of them now.
      if (this.startWatching(directory)) this.scheduleAll(directory)
    }, this.rewatchMs)
    directory.retryTimer.unref()
  }

  /** The watch no longer sees the directory at this path: report what is (not) there now, and start polling. */
  private lost(directory: WatchedDirectory): void {
    this.unwatch(directory)
    this.scheduleAll(directory)
    this.retry(directory)
  }

  private onEvent(directory: WatchedDirectory, eventType: string, filename: string | null): void {
    if (this.closed || directory.watcher === undefined) return
    if (filename === null) {
      // Which file the event is about is unknown: none of them can be taken for its own save without a read.
      for (const file of directory.files.values()) if (file.ownWrite) file.ownWrite.changeEvents++
      this.scheduleAll(directory)
    } else {
      const file = directory.files.get(filename)
      if (file) {
        if (file.ownWrite && eventType === 'rename') file.ownWrite.renameEvents++
        else if (file.ownWrite) file.ownWrite.changeEvents++
        this.schedule(file)
      }
    }
    if (eventType === 'rename') this.scheduleHealthCheck(directory)
  }

  private scheduleHealthCheck(directory: WatchedDirectory): void {
    if (directory.healthTimer !== undefined) return
    directory.healthTimer = setTimeout(() => {
      directory.healthTimer = undefined
      void this.checkHealth(directory)
    }, this.debounceMs)
    directory.healthTimer.unref()
  }

  private async checkHealth(directory: WatchedDirectory): Promise<void> {
    const watchedIdentity = directory.identity
    if (watchedIdentity === undefined) return
    let identity: string | undefined
    try {
      const stats = await stat(directory.path)
      identity = stats.isDirectory() ? `${stats.dev}:${stats.ino}` : undefined
    } catch {
      identity = undefined
    }
    if (this.closed || this.directories.get(directory.path) !== directory || directory.identity !== watchedIdentity) return
    if (identity !== watchedIdentity) this.lost(directory)
  }

  private scheduleAll(directory: WatchedDirectory): void {
    for (const file of directory.files.values()) this.schedule(file)
  }

  /** Trailing debounce, bounded by `maxWaitMs` from the first event of a burst. */
  private schedule(file: WatchedFile): void {
    const now = Date.now()
    if (file.timer === undefined) file.pendingSince = now
    else clearTimeout(file.timer)
    const delay = Math.max(0, Math.min(this.debounceMs, file.pendingSince + this.maxWaitMs - now))
    file.timer = setTimeout(() => {
      file.timer = undefined
      void this.check(file)
    }, delay)
    file.timer.unref()
  }

  /** Look at the file and report if it changed; one look at a time per file, a request during a look adds one more. */
  private check(file: WatchedFile): Promise<void> {
    if (file.running) {
      file.again = true
      return file.running
    }
    const run = async (): Promise<void> => {
      try {
        do {
          file.again = false
          await this.look(file)
        } while (file.again && this.isCurrent(file))
      } catch (error) {
        this.reportError(error, file.path)
      } finally {
        file.running = undefined
      }
    }
    file.running = run()
    return file.running
  }

  private isCurrent(file: WatchedFile): boolean {
    return !this.closed && this.files.get(file.path) === file
  }

  private async look(file: WatchedFile): Promise<void> {
    if (await this.isOwnWriteUnchanged(file)) return
    this.reads++
    const state = await inspect(file.path, this.maxBytes)
    if (!this.isCurrent(file)) return
    const identity = identityOf(state)
    if (file.known === undefined) {
      file.known = identity
      return
    }
    if (state.sha256 !== null && this.consumeExpectation(file, state.sha256)) {
      file.known = identity
      return
    }
    if (identity === file.known) return
    file.known = identity
    try {
      this.options.onChange({ path: file.path, ...state })
    } catch (error) {
      this.reportError(error, file.path)
    }
  }

  /**
   * Whether the file is, by a `lstat` alone, still the inode the last announced save placed, with nothing but that
   * save's own event on its name since: its bytes are then the save's, and they become the baseline (used up as an
   * expectation if still pending). False sends the look to read the file.
   */
  private async isOwnWriteUnchanged(file: WatchedFile): Promise<boolean> {
    const ownWrite = file.ownWrite
    const trusted = () => file.ownWrite === ownWrite && ownWrite !== undefined && ownWrite.changeEvents === 0 && ownWrite.renameEvents <= 1
    if (file.known === undefined || !trusted() || ownWrite?.placed === undefined) return false
    let stillPlaced: boolean
    try {
      stillPlaced = isStillPlaced(ownWrite.placed, await lstat(file.path, { bigint: true }))
    } catch {
      return false
    }
    // Events that came in while the lstat ran count too.
    if (!stillPlaced || !this.isCurrent(file) || !trusted()) return false
    // Used up even when the bytes equal the baseline already (a save of unchanged text), as a read would have.
    if (!this.consumeExpectation(file, ownWrite.sha256) && file.known !== ownWrite.sha256) return false
    file.known = ownWrite.sha256
    return true
  }

  /** Whether `sha256` is one of Quire's own pending writes; it and every older expectation are used up. */
  private consumeExpectation(file: WatchedFile, sha256: string): boolean {
    const now = Date.now()
    file.expected = file.expected.filter((expectation) => expectation.until > now)
    const index = file.expected.findIndex((expectation) => expectation.sha256 === sha256)
    if (index < 0) return false
    file.expected.splice(0, index + 1)
    return true
  }

  private reportError(error: unknown, path: string): void {
    try {
      this.options.onError?.(error, path)
    } catch {
      // An error handler that throws must not take the watcher down.
    }
  }
}

/** The state of `path` now, without following a final symlink and without blocking on a FIFO. */
async function inspect(path: string, maxBytes: number): Promise<FileState> {
  let handle: FileHandle
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch (error) {
    const code = errorCode(error)
    if (code === 'ENOENT' || code === 'ENOTDIR') return { state: 'deleted', content: null, sha256: null }
    if (code === 'ELOOP') return { state: 'not_a_file', content: null, sha256: null }
    return { state: 'unreadable', content: null, sha256: null }
  }
  try {
    const stats = await handle.stat()
    if (!stats.isFile()) return { state: 'not_a_file', content: null, sha256: null }
    return await readAndHash(handle, maxBytes)
  } catch {
    return { state: 'unreadable', content: null, sha256: null }
  } finally {
    await handle.close().catch(() => undefined)
  }
}

/** Read to EOF, hashing as it goes; keep the bytes only while they stay within `maxBytes`. */
async function readAndHash(handle: FileHandle, maxBytes: number): Promise<FileState> {
  const hash = createHash('sha256')
  let kept: Buffer[] | undefined = []
  let total = 0
  const buffer = Buffer.allocUnsafe(READ_CHUNK)
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, buffer.byteLength, null)
    if (bytesRead === 0) break
    const chunk = buffer.subarray(0, bytesRead)
    hash.update(chunk)
    total += bytesRead
    if (kept && total <= maxBytes) kept.push(Buffer.from(chunk))
    else kept = undefined
  }
  const sha256 = hash.digest('hex')
  if (!kept) return { state: 'too_large', content: null, sha256 }
  return { state: 'present', content: Buffer.concat(kept, total), sha256 }
}
