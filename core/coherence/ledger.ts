/**
 * One workspace's coherence ledger on disk (VMark coherence format 0, spec §1, §5.1, §5.2, §5.6): reads merge every
 * writer's segments under `.vmark/ledger/`; appends go to our own writer's segment only, one `O_APPEND` write and one
 * fsync each, a torn tail terminated first, rotating at 8 MiB. `.vmark/` is created on the first append, never by
 * opening or reading. File access is node:fs directly, behind this class, and never through a link (confined.ts: every
 * folder from the workspace root down and every file opened without following one); what the lines mean is decided
 * by the pure reader (reader.ts).
 */
import { constants, type Dirent } from 'node:fs'
import { lstat, readdir } from 'node:fs/promises'
import { QuireError } from '../errors.js'
import { ConfinedDirectory, isUnsafeLedgerPath, UnsafeLedgerPath, withDirectory } from './confined.js'
import { FORMAT_VERSION, parseLedgerLine, type LedgerEntry } from './entries.js'
import {
  GITATTRIBUTES_CONTENT,
  GITIGNORE_CONTENT,
  LAYOUT_PARTS,
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
  /**
   * Told of a link (or hard link) the quarantine copy refused to write through: the read goes on without the copy
   * (spec §5.6), so this is the only word of it.
   */
  readonly onUnsafe?: (refusal: UnsafeLedgerPath) => void
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
  private readonly onUnsafe: (refusal: UnsafeLedgerPath) => void
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
    this.onUnsafe = options.onUnsafe ?? (() => {})
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(writer)) {
      throw new QuireError('COHERENCE_INVALID_WRITER', `the writer id must be a lower-case UUID, got ${JSON.stringify(writer)}`)
    }
  }

  /** Whether the workspace has coherence state at all (a `.vmark/` folder, spec §1); a `.vmark` link is refused. */
  async isInitialized(): Promise<boolean> {
    try {
      const info = await lstat(this.layout.vmark)
      if (info.isSymbolicLink()) throw new UnsafeLedgerPath(this.layout.root, LAYOUT_PARTS.vmark.join('/'), 'link')
      return info.isDirectory()
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
    const builder = new LedgerReadBuilder()
    await withDirectory(this.layout.root, LAYOUT_PARTS.ledger, { create: false }, async (ledger) => {
      for (const name of await segmentNames(ledger)) {
        const present = await this.readSegmentInto(builder, ledger, name)
        if (present) builder.noteSegment(name)
      }
    })
    const result = builder.finish()
    this.futureFormatSeen = result.futureFormat
    if (this.writeQuarantine && result.quarantined.length > 0) await this.quarantine(result.quarantined)
    return result
  }

  /** The segment our next append goes to: our highest-numbered one, or the next number once that one is full. */
  async activeSegment(): Promise<string> {
    return (await withDirectory(this.layout.root, LAYOUT_PARTS.ledger, { create: false }, (ledger) => this.activeSegmentIn(ledger))) ?? segmentFileName(this.writer, 0)
  }

  private async activeSegmentIn(ledger: ConfinedDirectory): Promise<string> {
    let highest = 0
    for (const name of await readdir(ledger.at(''))) {
      const number = segmentNumberOf(name, this.writer)
      if (number !== undefined && number > highest) highest = number
    }
    const current = segmentFileName(this.writer, highest)
    try {
      const info = await lstat(ledger.at(current))
      if (info.isSymbolicLink()) throw new UnsafeLedgerPath(this.layout.root, `${ledger.relative}/${current}`, 'link')
      return info.size >= this.maxSegmentBytes ? segmentFileName(this.writer, highest + 1) : current
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
      const vmark = (await ConfinedDirectory.open(this.layout.root, LAYOUT_PARTS.vmark, { create: true }))!
      try {
        await this.ensureGitFiles(vmark)
        const ledger = (await vmark.child('ledger', { create: true }))!
        try {
          const segment = await this.activeSegmentIn(ledger)
          const terminatedTornTail = await this.writeLines(ledger, segment, lines)
          return { segment, lines, terminatedTornTail }
        } finally {
          await ledger.close()
        }
      } finally {
        await vmark.close()
      }
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

  /**
   * The folders are made before every append (git prunes empty ones: the caller opens them with `create`); the two
   * git files once per process, never replaced (`O_EXCL`: not even a link there is written through).
   */
  private async ensureGitFiles(vmark: ConfinedDirectory): Promise<void> {
    if (this.initFilesEnsured) return
    for (const [name, content] of [
      ['.gitignore', GITIGNORE_CONTENT],
      ['.gitattributes', GITATTRIBUTES_CONTENT],
    ] as const) {
      let file
      try {
        file = await vmark.file(name, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue
        throw error
      }
      try {
        await file?.writeFile(content)
      } finally {
        await file?.close()
      }
    }
    this.initFilesEnsured = true
  }

  /** One O_APPEND write (the torn-tail newline, if needed, leads it), then fsync; never through a link. */
  private async writeLines(ledger: ConfinedDirectory, segment: string, lines: readonly string[]): Promise<boolean> {
    const file = await ledger.file(segment, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT, { appending: true })
    if (file === undefined) throw new UnsafeLedgerPath(this.layout.root, ledger.relative, 'moved')
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
  private async readSegmentInto(builder: LedgerReadBuilder, ledger: ConfinedDirectory, name: string): Promise<boolean> {
    const file = await ledger.file(name, constants.O_RDONLY)
    if (file === undefined) return false
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

  /**
   * Spec §5.6: append each line to `quarantine/<segment>.bad` once (a line already there is not copied again). A
   * reader never fails because quarantine is unavailable; the lines are reported all the same, and a link refused on
   * the way is told to `onUnsafe`.
   */
  private async quarantine(lines: readonly QuarantinedLine[]): Promise<void> {
    const bySegment = new Map<string, QuarantinedLine[]>()
    for (const line of lines) bySegment.set(line.segment, [...(bySegment.get(line.segment) ?? []), line])
    try {
      await withDirectory(this.layout.root, LAYOUT_PARTS.quarantine, { create: true }, async (folder) => {
        for (const [segment, segmentLines] of bySegment) {
          try {
            await this.quarantineInto(folder, quarantineFileName(segment), segmentLines)
          } catch (error) {
            if (isUnsafeLedgerPath(error)) this.onUnsafe(error)
          }
        }
      })
    } catch (error) {
      if (isUnsafeLedgerPath(error)) this.onUnsafe(error)
    }
  }

  private async quarantineInto(folder: ConfinedDirectory, name: string, lines: readonly QuarantinedLine[]): Promise<void> {
    const existing = new Set<string>()
    const present = await folder.file(name, constants.O_RDONLY)
    if (present !== undefined) {
      try {
        for (const line of (await present.readFile('utf8')).split('\n')) existing.add(line)
      } finally {
        await present.close()
      }
    }
    const fresh = lines.filter((line) => {
      if (existing.has(line.raw)) return false
      existing.add(line.raw)
      return true
    })
    if (fresh.length === 0) return
    const file = await folder.file(name, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT, { appending: true })
    try {
      await file?.writeFile(fresh.map(quarantineRecordText).join(''))
    } finally {
      await file?.close()
    }
  }
}

/**
 * The segment files of a ledger folder, sorted: every `*.jsonl` that is a file. One that is a link is refused, not
 * skipped: the person must hear that the ledger holds one.
 */
async function segmentNames(ledger: ConfinedDirectory): Promise<string[]> {
  const dirents: Dirent[] = await readdir(ledger.at(''), { withFileTypes: true })
  const names: string[] = []
  for (const dirent of dirents) {
    if (!isSegmentFileName(dirent.name)) continue
    if (dirent.isSymbolicLink()) throw new UnsafeLedgerPath(ledger.root, `${ledger.relative}/${dirent.name}`, 'link')
    if (dirent.isFile()) names.push(dirent.name)
  }
  return names.sort()
}
