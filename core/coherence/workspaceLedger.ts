import { readdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { Actor } from '../events/actor.js'
import type { EventLog, RecordedEvent } from '../log/eventLog.js'
import { FoldedStream } from '../streams/foldedStream.js'
import { KeyedSteps } from '../streams/steps.js'
import { readContextFiles, type ContextFile } from './contextFiles.js'
import { CoherenceLinesAppended, coherenceStream } from './events.js'
import type { LedgerEntry } from './entries.js'
import { CoherenceLedger, type AppendReceipt, type CoherenceLedgerOptions } from './ledger.js'
import { CoherenceProjection } from './model/breakdown.js'
import { CaptureIndex } from './model/captureIndex.js'
import { DelegationIndex } from './model/delegations.js'
import type { LedgerRead } from './reader.js'

/**
 * One read of the workspace's coherence state: the ledger's entries, the capture index, and — made when first asked,
 * since a query needs them but a capture does not — the projection and the grants. Our own appends extend it in
 * place, so a workspace's next capture does not read its whole ledger again.
 */
export class CoherenceView {
  private builtProjection: CoherenceProjection | undefined
  private builtDelegations: DelegationIndex | undefined
  private readonly entries: LedgerEntry[]

  constructor(
    readonly initialized: boolean,
    private readonly ledgerRead: LedgerRead,
    private readonly manifests: ReadonlyArray<{ readonly file: string; readonly manifest: unknown }>,
    /** Whether the read copied its malformed lines to quarantine (a read by the writer). */
    readonly quarantineCopied: boolean,
  ) {
    this.entries = [...ledgerRead.entries]
    this.index = new CaptureIndex(this.entries)
  }

  readonly index: CaptureIndex

  get read(): LedgerRead {
    return { ...this.ledgerRead, entries: this.entries }
  }

  get projection(): CoherenceProjection {
    this.builtProjection ??= new CoherenceProjection(this.entries, this.manifests)
    return this.builtProjection
  }

  get delegations(): DelegationIndex {
    this.builtDelegations ??= new DelegationIndex(this.entries)
    return this.builtDelegations
  }

  /** Our entries just appended: the reader would now hand them over too (their idems are new, their ids fresh). */
  extend(appended: readonly LedgerEntry[]): void {
    this.entries.push(...appended)
    this.index.apply(appended)
    this.builtProjection = undefined
    this.builtDelegations = undefined
  }
}

const EMPTY_VIEW = (): CoherenceView => new CoherenceView(false, EMPTY_READ, [], true)

const EMPTY_READ: LedgerRead = { entries: [], quarantined: [], futureFormat: 0, duplicates: 0, segments: [] }

/** What the log holds of this workspace's ledger: the ids of the entries we appended, and the stream's version. */
interface LoggedLines {
  readonly entries: Set<string>
}


/**
 * One workspace's coherence ledger as Quire uses it (spec §1, §5.1): our writer's appends, one at a time for the whole
 * process (the spec's per-workspace kernel mutex), each also an event on the workspace's `coherence:<root>` stream; and
 * reads of every writer's segments, cached until a segment or context file changes on disk (another writer, VMark,
 * may append at any moment, so the cache is checked against the files, never trusted blindly).
 *
 * The order of an append is ledger first (one write and one fsync), then the log event. A crash between the two leaves
 * a line the log lacks; the next use of the workspace logs it (`recovered`), so every acknowledged line ends up in both.
 */
export class WorkspaceLedger {
  /** Reads for `status`: read-only (COH.GEN.3), so no quarantine copies are written by them. */
  private readonly reader: CoherenceLedger
  /** Appends, and the reads of calls that may write (`edges`, captures, resolutions): quarantine copies included. */
  private readonly writer: CoherenceLedger
  private readonly logged: FoldedStream<LoggedLines>
  private readonly steps = new KeyedSteps()
  private loaded: Promise<void> | undefined
  private cached: { fingerprint: string; view: CoherenceView } | undefined

  constructor(
    readonly root: string,
    readonly writerId: string,
    private readonly store: EventLog,
    options: CoherenceLedgerOptions = {},
  ) {
    this.reader = new CoherenceLedger(root, writerId, { ...options, writeQuarantine: false })
    this.writer = new CoherenceLedger(root, writerId, options)
    this.logged = new FoldedStream<LoggedLines>(coherenceStream(root), () => ({ entries: new Set() }), foldLogged)
  }

  get layout() {
    return this.writer.layout
  }

  /**
   * Runs `step` alone among this workspace's ledger steps (reads that decide, and their appends), so what a decision
   * read is still the ledger it appends to.
   */
  exclusive<T>(step: () => Promise<T>): Promise<T> {
    return this.steps.run('ledger', async () => {
      await this.ensureLoaded()
      return step()
    })
  }

  /**
   * The current view. `forWriting` reads through the writer (quarantine copies made, spec §5.6); otherwise nothing in
   * the workspace is touched.
   */
  async view(options: { forWriting?: boolean } = {}): Promise<CoherenceView> {
    const initialized = await this.reader.isInitialized()
    if (!initialized) return EMPTY_VIEW()
    const fingerprint = fingerprintOf(await this.fileStates())
    const cached = this.cached
    // A cached read serves a writing call too, unless it left malformed lines uncopied to quarantine.
    const usable = cached?.fingerprint === fingerprint && (!options.forWriting || cached.view.quarantineCopied || cached.view.read.quarantined.length === 0)
    if (usable && cached !== undefined) return cached.view
    const read = await (options.forWriting ? this.writer : this.reader).read()
    const contexts: ContextFile[] = await readContextFiles(this.writer.layout)
    // An unreadable manifest is passed on as nothing: the context set reports it as that context's error.
    const manifests = contexts.map((file) => ({ file: file.file, manifest: file.status === 'read' ? file.manifest : undefined }))
    const view = new CoherenceView(initialized, read, manifests, options.forWriting === true)
    this.cached = { fingerprint, view }
    return view
  }

  /**
   * Appends our entries (one write, one fsync) and then their event. Call inside `exclusive` when the entries were
   * decided from a view. Resolves once both are durable. When nothing else changed the files since the cached read,
   * the read is extended with the entries instead of being made again.
   */
  async append(entries: readonly LedgerEntry[], actor: Actor): Promise<AppendReceipt> {
    await this.ensureLoaded()
    const before = this.cached
    const statesBefore = before === undefined ? undefined : await this.fileStates()
    const unchanged = before !== undefined && statesBefore !== undefined && before.fingerprint === fingerprintOf(statesBefore)
    const receipt = await this.writer.appendMany(entries)
    this.cached = undefined
    if (unchanged && before !== undefined) {
      // Extended only if, across the append, nothing but our own segment changed: another writer's lines landing
      // meanwhile must be read, not assumed away.
      const statesAfter = await this.fileStates()
      if (statesAfter.others === statesBefore?.others) {
        before.view.extend(entries)
        this.cached = { fingerprint: fingerprintOf(statesAfter), view: before.view }
      }
    }
    await this.logLines(receipt.segment, receipt.lines, entries.map((entry) => entry.id), actor, false)
    return receipt
  }

  /** Whether `.vmark/` exists (spec §1: created on the first capture, never on open). */
  isInitialized(): Promise<boolean> {
    return this.reader.isInitialized()
  }

  private ensureLoaded(): Promise<void> {
    this.loaded ??= this.load().catch((error: unknown) => {
      this.loaded = undefined
      throw error
    })
    return this.loaded
  }

  /** Folds the log's stream, then logs our own lines the log lacks (a crash between fsync and event). */
  private async load(): Promise<void> {
    await this.logged.load(this.store)
    if (!(await this.writer.isInitialized())) return
    const read = await this.writer.read()
    const missing = read.entries.filter((entry) => entry.writer === this.writerId && !this.logged.state.entries.has(entry.id))
    if (missing.length === 0) return
    const segment = await this.writer.activeSegment()
    await this.logLines(segment, missing.map((entry) => JSON.stringify(entry)), missing.map((entry) => entry.id), { kind: 'system' }, true)
  }

  private async logLines(segment: string, lines: readonly string[], entries: readonly string[], actor: Actor, recovered: boolean): Promise<void> {
    await this.logged.handle(this.store, () => [
      {
        type: CoherenceLinesAppended.type,
        actor,
        data: { root: this.root, segment, lines: [...lines], entries: [...entries], ...(recovered ? { recovered } : {}) },
      },
    ])
  }

  /**
   * What a cached read depends on: the names of the segments and context manifests, and the size and modification
   * time of each writer's newest segment and of each manifest. A writer appends only to its newest segment (spec
   * §5.1: a full one is never written again), so older segments need no look.
   */
  private async fileStates(): Promise<FileStates> {
    const states: FileStates = { ours: '', others: '' }
    const ledger = await listed(this.writer.layout.ledger)
    const contexts = await listed(this.writer.layout.contexts)
    const newest = new Map<string, string>()
    for (const name of ledger ?? []) {
      if (!name.endsWith('.jsonl')) continue
      const writer = name.replace(/(-\d+)?\.jsonl$/, '')
      const known = newest.get(writer)
      if (known === undefined || segmentOrder(name) > segmentOrder(known)) newest.set(writer, name)
    }
    const parts = { ours: [] as string[], others: [`ledger:${(ledger ?? ['-']).join(',')}`, `contexts:${(contexts ?? ['-']).join(',')}`] }
    for (const [writer, name] of newest) (writer === this.writerId ? parts.ours : parts.others).push(`${name}:${await stateOf(join(this.writer.layout.ledger, name))}`)
    for (const name of contexts ?? []) parts.others.push(`${name}:${await stateOf(join(this.writer.layout.contexts, name))}`)
    states.ours = parts.ours.join('|')
    states.others = parts.others.join('|')
    return states
  }
}

/** Our newest segment's state, and everything else's: another writer's change shows in `others`. */
interface FileStates {
  ours: string
  others: string
}

const fingerprintOf = (states: FileStates): string => `${states.ours}#${states.others}`

/** `<writer>.jsonl` is segment 0, `<writer>-NNN.jsonl` segment NNN. */
function segmentOrder(name: string): number {
  const match = /-(\d+)\.jsonl$/.exec(name)
  return match === null ? 0 : Number(match[1])
}

async function listed(folder: string): Promise<string[] | undefined> {
  try {
    return (await readdir(folder)).sort()
  } catch {
    return undefined
  }
}

async function stateOf(path: string): Promise<string> {
  try {
    const info = await stat(path)
    return `${info.size}:${info.mtimeMs}`
  } catch {
    return 'gone'
  }
}

function foldLogged(state: LoggedLines, event: RecordedEvent): LoggedLines {
  if (event.type !== CoherenceLinesAppended.type) return state
  // Added in place: the set is this stream's private write model, and copying it per event would make a long
  // history's load quadratic.
  for (const id of (event.data as { entries: readonly string[] }).entries) state.entries.add(id)
  return state
}
