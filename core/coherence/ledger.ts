/**
 * One workspace's coherence ledger on disk (VMark coherence format 0, spec §1, §5.1, §5.2, §5.6): reads merge every
 * writer's segments under `.vmark/ledger/`; appends go to our own writer's segment only, one `O_APPEND` write and one
 * fsync each, a torn tail terminated first, rotating at 8 MiB. `.vmark/` is created on the first append, never by
 * opening or reading. File access is node:fs directly, behind this class; what the lines mean is decided by the pure
 * reader (reader.ts).
 */
import { constants, type Dirent } from 'node:fs'
import { mkdir, open, readdir, readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { QuireError } from '../errors.js'
import { FORMAT_VERSION, parseLedgerLine, type LedgerEntry } from './entries.js'
import {
  GITATTRIBUTES_CONTENT,
  GITIGNORE_CONTENT,
  MAX_LINE_BYTES,
  SEGMENT_ROTATION_BYTES,
  isSegmentFileName,
  quarantineFileName,
  segmentFileName,
  segmentNumberOf,
  workspaceLayout,
  type WorkspaceLayout,
} from './layout.js'
import { BoundedLineSplitter } from './lines.js'
import { LedgerReadBuilder, quarantineRecordText, type LedgerRead, type QuarantinedLine } from './reader.js'

export interface CoherenceLedgerOptions {
  /** Rotation threshold (spec §5.1: 8 MiB); smaller only in tests. */
  readonly maxSegmentBytes?: number
  /** Longest line read or written (VMark's 16 MiB); smaller only in tests. */
  readonly maxLineBytes?: number
  /** Whether reads copy malformed lines to `quarantine/` (spec §5.6). Default true. */
  readonly writeQuarantine?: boolean
}

/** What one append wrote. */
export interface AppendReceipt {
  /** The segment's file name. */
  readonly segment: string
  /** The lines written, without their newlines, in order: exactly the bytes now in the segment. */
  readonly lines: readonly string[]
  /** Whether a torn tail had to be terminated with a newline first (spec §5.2). */
  readonly terminatedTornTail: boolean
}

const READ_CHUNK_BYTES = 1024 * 1024

/** Appends of one process to one ledger folder, one at a time (spec §5.1: the in-process mutex). */
const appendQueues = new Map<string, Promise<unknown>>()

function serialized<T>(key: string, job: () => Promise<T>): Promise<T> {
  const previous = appendQueues.get(key) ?? Promise.resolve()
  const run = previous.then(job, job)
  const settled = run.then(
    () => undefined,
    () => undefined,
  )
  appendQueues.set(key, settled)
  void settled.then(() => {
    if (appendQueues.get(key) === settled) appendQueues.delete(key)
  })
  return run
}

const isMissing = (error: unknown): boolean => (error as NodeJS.ErrnoException).code === 'ENOENT'

export class CoherenceLedger {
  readonly layout: WorkspaceLayout
  private readonly maxSegmentBytes: number
  private readonly maxLineBytes: number
  private readonly writeQuarantine: boolean
  /** Lines of a newer format seen by the last read (undefined: no read yet). While any exist we refuse to write. */
  private futureFormatSeen: number | undefined
  private initFilesEnsured = false

  constructor(
    workspaceRoot: string,
    /** Our writer id (writerId.ts). */
    readonly writer: string,
    options: CoherenceLedgerOptions = {},
  ) {
    this.layout = workspaceLayout(workspaceRoot)
    this.maxSegmentBytes = options.maxSegmentBytes ?? SEGMENT_ROTATION_BYTES
    this.maxLineBytes = options.maxLineBytes ?? MAX_LINE_BYTES
    this.writeQuarantine = options.writeQuarantine ?? true
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(writer)) {
      throw new QuireError('COHERENCE_INVALID_WRITER', `the writer id must be a lower-case UUID, got ${JSON.stringify(writer)}`)
    }
  }

  /** Whether the workspace has coherence state at all (a `.vmark/` folder, spec §1). */
  async isInitialized(): Promise<boolean> {
    try {
      return (await stat(this.layout.vmark)).isDirectory()
    } catch (error) {
      if (isMissing(error)) return false
      throw error
    }
  }

  /**
   * Reads every segment of every writer. A missing ledger folder is an empty ledger; any other failure to list or
   * read a segment throws (an incomplete read must never pass for the whole history). Quarantine writes that fail
   * are ignored: the read succeeds without them (spec §5.6).
   */
  async read(): Promise<LedgerRead> {
    let names: string[]
    try {
      const dirents: Dirent[] = await readdir(this.layout.ledger, { withFileTypes: true })
      names = dirents.filter((dirent) => dirent.isFile() && isSegmentFileName(dirent.name)).map((dirent) => dirent.name)
    } catch (error) {
      if (!isMissing(error)) throw error
      names = []
    }
    names.sort()
    const builder = new LedgerReadBuilder()
    for (const name of names) {
      const present = await this.readSegmentInto(builder, name)
      if (present) builder.noteSegment(name)
    }
    const result = builder.finish()
    this.futureFormatSeen = result.futureFormat
    if (this.writeQuarantine && result.quarantined.length > 0) await this.quarantine(result.quarantined)
    return result
  }

  /** The segment our next append goes to: our highest-numbered one, or the next number once that one is full. */
  async activeSegment(): Promise<string> {
    let names: string[]
    try {
      names = await readdir(this.layout.ledger)
    } catch (error) {
      if (!isMissing(error)) throw error
      names = []
    }
    let highest = 0
    for (const name of names) {
      const number = segmentNumberOf(name, this.writer)
      if (number !== undefined && number > highest) highest = number
    }
    const current = segmentFileName(this.writer, highest)
    try {
      const size = (await stat(join(this.layout.ledger, current))).size
      return size >= this.maxSegmentBytes ? segmentFileName(this.writer, highest + 1) : current
    } catch (error) {
      if (isMissing(error)) return current
      throw error
    }
  }

  /** Appends one entry (one write, one fsync). */
  append(entry: LedgerEntry): Promise<AppendReceipt> {
    return this.appendMany([entry])
  }

  /**
   * Appends entries as one batch: a single write of all their lines, then one fsync, so the batch is durable as a
   * whole when this resolves. Every entry must be ours (`writer`), of format 0 and valid as the reader judges lines;
   * a bad one refuses the whole batch before anything is written.
   */
  appendMany(entries: readonly LedgerEntry[]): Promise<AppendReceipt> {
    if (entries.length === 0) return Promise.reject(new QuireError('COHERENCE_INVALID_ENTRY', 'nothing to append'))
    let lines: string[]
    try {
      lines = entries.map((entry) => this.lineOf(entry))
    } catch (error) {
      return Promise.reject(error)
    }
    return serialized(this.layout.ledger, async () => {
      if (this.futureFormatSeen === undefined) await this.read()
      if ((this.futureFormatSeen ?? 0) > 0) {
        throw new QuireError(
          'COHERENCE_FUTURE_FORMAT',
          `the ledger holds ${this.futureFormatSeen} entries of a format newer than ${FORMAT_VERSION}; this build reads but does not write it`,
        )
      }
      await this.ensureLayout()
      const segment = await this.activeSegment()
      const terminatedTornTail = await this.writeLines(join(this.layout.ledger, segment), lines)
      return { segment, lines, terminatedTornTail }
    })
  }

  private lineOf(entry: LedgerEntry): string {
    if (entry.writer !== this.writer) {
      throw new QuireError('COHERENCE_INVALID_ENTRY', `entry ${entry.id} names writer ${entry.writer}; this ledger writes only as ${this.writer}`)
    }
    if (entry.format !== FORMAT_VERSION) {
      throw new QuireError('COHERENCE_INVALID_ENTRY', `entry ${entry.id} has format ${String(entry.format)}; this build writes format ${FORMAT_VERSION} only`)
    }
    const line = JSON.stringify(entry)
    const verdict = parseLedgerLine(line)
    if (verdict.status !== 'entry') {
      throw new QuireError('COHERENCE_INVALID_ENTRY', `entry ${entry.id} (${entry.kind}) would not read back: ${verdict.status === 'malformed' ? verdict.reason : 'future format'}`)
    }
    if (Buffer.byteLength(line, 'utf8') + 1 > this.maxLineBytes) {
      throw new QuireError('COHERENCE_INVALID_ENTRY', `entry ${entry.id} is longer than the ${this.maxLineBytes}-byte line bound readers keep`)
    }
    return line
  }

  /** mkdir -p before every append (git prunes empty folders); the two git files once per process, never replaced. */
  private async ensureLayout(): Promise<void> {
    await mkdir(this.layout.ledger, { recursive: true })
    if (this.initFilesEnsured) return
    for (const [path, content] of [
      [this.layout.gitignore, GITIGNORE_CONTENT],
      [this.layout.gitattributes, GITATTRIBUTES_CONTENT],
    ] as const) {
      try {
        await writeFile(path, content, { flag: 'wx' })
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      }
    }
    this.initFilesEnsured = true
  }

  /** One O_APPEND write (the torn-tail newline, if needed, leads it), then fsync. */
  private async writeLines(path: string, lines: readonly string[]): Promise<boolean> {
    const file = await open(path, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT, 0o644)
    try {
      const { size } = await file.stat()
      let torn = false
      if (size > 0) {
        const last = Buffer.alloc(1)
        await file.read(last, 0, 1, size - 1)
        torn = last[0] !== 0x0a
      }
      const data = Buffer.from(`${torn ? '\n' : ''}${lines.join('\n')}\n`, 'utf8')
      let offset = 0
      while (offset < data.length) {
        const { bytesWritten } = await file.write(data, offset, data.length - offset)
        offset += bytesWritten
      }
      await file.sync()
      return torn
    } finally {
      await file.close()
    }
  }

  /** Streams one segment through the bounded splitter. False when it vanished between listing and opening. */
  private async readSegmentInto(builder: LedgerReadBuilder, name: string): Promise<boolean> {
    let file
    try {
      file = await open(join(this.layout.ledger, name), 'r')
    } catch (error) {
      if (isMissing(error)) return false
      throw error
    }
    try {
      // Each read gets memory of its own, so the splitter hands lines out as views instead of copying each one.
      const splitter = new BoundedLineSplitter(this.maxLineBytes, { reusesChunks: false })
      for (;;) {
        const buffer = Buffer.allocUnsafe(READ_CHUNK_BYTES)
        const { bytesRead } = await file.read(buffer, 0, buffer.length, null)
        if (bytesRead === 0) break
        for (const line of splitter.push(buffer.subarray(0, bytesRead))) builder.addLine(name, line)
      }
      for (const line of splitter.end()) builder.addLine(name, line)
      return true
    } finally {
      await file.close()
    }
  }

  /** Spec §5.6: append each line to `quarantine/<segment>.bad` once (a line already there is not copied again). */
  private async quarantine(lines: readonly QuarantinedLine[]): Promise<void> {
    try {
      await mkdir(this.layout.quarantine, { recursive: true })
    } catch {
      return
    }
    const bySegment = new Map<string, QuarantinedLine[]>()
    for (const line of lines) bySegment.set(line.segment, [...(bySegment.get(line.segment) ?? []), line])
    for (const [segment, segmentLines] of bySegment) {
      const path = join(this.layout.quarantine, quarantineFileName(segment))
      try {
        let existing = new Set<string>()
        try {
          existing = new Set((await readFile(path, 'utf8')).split('\n'))
        } catch (error) {
          if (!isMissing(error)) throw error
        }
        const fresh = segmentLines.filter((line) => {
          if (existing.has(line.raw)) return false
          existing.add(line.raw)
          return true
        })
        if (fresh.length === 0) continue
        await writeFile(path, fresh.map(quarantineRecordText).join(''), { flag: 'a' })
      } catch {
        // A reader never fails because quarantine is unavailable (spec §5.6); the lines are reported all the same.
      }
    }
  }
}
