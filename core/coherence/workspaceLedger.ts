import { readdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { SYSTEM, type Actor } from '../events/actor.js'
import type { EventLog, RecordedEvent } from '../log/eventLog.js'
import { FoldedStream } from '../streams/foldedStream.js'
import { KeyedSteps } from '../streams/steps.js'
import { AppendIntents } from './appendIntents.js'
import { isUnsafeLedgerPath, type UnsafeLedgerPath } from './confined.js'
import { readContextFiles, type ContextFile } from './contextFiles.js'
import { honouredEntries, personDelegationOf, type PersonDelegations } from './delegationAuthority.js'
import { CoherenceLinesAppended, CoherenceRefused, coherenceStream } from './events.js'
import { parseLedgerLine, type DelegationEntry, type LedgerEntry } from './entries.js'
import { CoherenceLedger, type AppendReceipt, type CoherenceLedgerOptions } from './ledger.js'
import { segmentNumberOf } from './layout.js'
import { CoherenceProjection } from './model/breakdown.js'
import { CaptureIndex } from './model/captureIndex.js'
import { DelegationIndex } from './model/delegations.js'
import type { LedgerRead } from './reader.js'
import { readSegmentLines } from './segmentLines.js'
import { writeSnapshot } from './snapshots.js'

/**
 * One read of the workspace's coherence state: the ledger's entries, the capture index, and — made when first asked,
 * since a query needs them but a capture does not — the projection and the grants. Our own appends extend it in
 * place, so a workspace's next capture does not read its whole ledger again.
 */
export class CoherenceView {
  private builtProjection: CoherenceProjection | undefined
  private builtDelegations: { key: string; index: DelegationIndex; unhonoured: DelegationEntry[] } | undefined
  private readonly entries: LedgerEntry[]

  constructor(
    readonly initialized: boolean,
    private readonly ledgerRead: LedgerRead,
    private readonly manifests: ReadonlyArray<{ readonly file: string; readonly manifest: unknown }>,
    /** Whether the read copied its malformed lines to quarantine (a read by the writer). */
    readonly quarantineCopied: boolean,
    /** Whose delegations count: our writer, and the person's grants as the log holds them (delegationAuthority.ts). */
    private readonly authority: { readonly writer: string; readonly person: () => ReadonlyMap<string, DelegationEntry> } = { writer: '', person: () => new Map() },
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

  /**
   * The grants Quire honours, given the writers the person trusts: the person's own through Quire, and trusted
   * writers' (delegationAuthority.ts). Any other delegation line authorizes nothing.
   */
  delegations(trusted: ReadonlySet<string>): DelegationIndex {
    return this.honoured(trusted).index
  }

  /** The delegation lines left out of `delegations(trusted)`: in a segment, but not the person's. */
  unhonoured(trusted: ReadonlySet<string>): readonly DelegationEntry[] {
    return this.honoured(trusted).unhonoured
  }

  private honoured(trusted: ReadonlySet<string>): { index: DelegationIndex; unhonoured: DelegationEntry[] } {
    // The person's logged grants only grow (a revocation is a new entry): their count tells a stale index apart.
    const person = this.authority.person()
    const key = `${[...trusted].sort().join(',')}#${person.size}`
    if (this.builtDelegations?.key !== key) {
      const { entries, unhonoured } = honouredEntries(this.entries, this.authority.writer, person, trusted)
      this.builtDelegations = { key, index: new DelegationIndex(entries), unhonoured }
    }
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

/** What the log holds of this workspace's ledger: the ids of the entries we appended, and the person's delegations. */
interface LoggedLines {
  readonly entries: Set<string>
  readonly person: PersonDelegations
}


/**
 * One workspace's coherence ledger as Quire uses it (spec §1, §5.1): our writer's appends, one at a time for the whole
 * process (the spec's per-workspace kernel mutex), each also an event on the workspace's `coherence:<root>` stream; and
 * reads of every writer's segments, cached until a segment or context file changes on disk (another writer, VMark,
 * may append at any moment, so the cache is checked against the files, never trusted blindly).
 *
 * The order of an append is ledger first (one write and one fsync), then the log event. A crash between the two leaves
 * a line the log lacks; the next use of the workspace logs it (`recovered`), so every acknowledged line ends up in both.
 * Only lines the data directory's intents name (appendIntents.ts) are taken back so: a line another program put in
 * our segment is never logged as ours.
 *
 * Nothing is read or written through a link (confined.ts); each path refused is logged once as `coherence.refused`,
 * the diagnostic that survives when the ledger itself cannot hold one.
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
  private readonly intents: AppendIntents | undefined
  /** The refusals logged since the last append that went through: each is said once. */
  private readonly refusalsSaid = new Set<string>()

  constructor(
    readonly root: string,
    readonly writerId: string,
    private readonly store: EventLog,
    options: CoherenceLedgerOptions = {},
    /** Quire's data directory, for the append intents; without it nothing a crash left unlogged is taken back. */
    home?: string,
  ) {
    const onUnsafe = (refusal: UnsafeLedgerPath) => void this.sayRefused(refusal, SYSTEM)
    this.reader = new CoherenceLedger(root, writerId, { ...options, writeQuarantine: false, onUnsafe })
    this.writer = new CoherenceLedger(root, writerId, { ...options, onUnsafe })
    this.logged = new FoldedStream<LoggedLines>(coherenceStream(root), () => ({ entries: new Set(), person: new Map() }), foldLogged)
    this.intents = home === undefined ? undefined : new AppendIntents(home, root)
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
    await this.ensureLoaded()
    return this.refusing(SYSTEM, () => this.readView(options))
  }

  private async readView(options: { forWriting?: boolean }): Promise<CoherenceView> {
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
    const view = new CoherenceView(initialized, read, manifests, options.forWriting === true, { writer: this.writerId, person: () => this.logged.state.person })
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
    const ids = entries.map((entry) => entry.id)
    const before = this.cached
    const statesBefore = before === undefined ? undefined : await this.fileStates()
    const unchanged = before !== undefined && statesBefore !== undefined && before.fingerprint === fingerprintOf(statesBefore)
    await this.intents?.record(ids)
    const receipt = await this.refusing(actor, () => this.writer.appendMany(entries)).catch(async (error: unknown) => {
      // Refused before a byte was written: nothing of these entries can be in the segment.
      if (isUnsafeLedgerPath(error)) await this.intents?.logged(ids)
      throw error
    })
    this.refusalsSaid.clear()
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
    await this.logLines(receipt.segment, receipt.lines, ids, actor, false)
    await this.intents?.logged(ids)
    return receipt
  }

  /** Stores a snapshot (snapshots.ts) of this workspace, saying so when a link refuses it. */
  writeSnapshot(bytes: Uint8Array, actor: Actor): Promise<string> {
    return this.refusing(actor, () => writeSnapshot(this.writer.layout, bytes))
  }

  /**
   * Folds what other nodes appended to this workspace's stream since (a log several nodes share): the person's grants
   * made through another node count here too. Cheap when nothing is new (one look at the stream's head).
   */
  async catchUp(): Promise<void> {
    await this.ensureLoaded()
    const head = await this.store.streamHead(this.logged.stream)
    if (head.version <= this.logged.streamVersion) return
    for await (const event of this.store.readStream(this.logged.stream, { fromVersion: this.logged.streamVersion + 1 })) await this.logged.follow(this.store, event)
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

  /**
   * Folds the log's stream, then logs the lines of ours a crash left unlogged (between the ledger's fsync and the
   * event): those of our segments the intents name and the log lacks, exactly as they are in the segment.
   */
  private async load(): Promise<void> {
    await this.logged.load(this.store)
    const intended = (await this.intents?.read()) ?? new Set<string>()
    if (intended.size === 0) return
    let lines
    try {
      lines = await readSegmentLines(this.root, (segment) => segmentNumberOf(segment, this.writerId) !== undefined)
    } catch (error) {
      // A link where the ledger should be: nothing is recovered through it (the next use says why).
      if (isUnsafeLedgerPath(error)) return
      throw error
    }
    const missing = new Map<string, { lines: string[]; entries: string[] }>()
    for (const line of lines ?? []) {
      // Our lines start with their envelope id (format, then id): a line naming no intended id is not parsed.
      const id = /"id":"([^"]+)"/.exec(line.text)?.[1]
      if (id === undefined || !intended.has(id)) continue
      const verdict = parseLedgerLine(line.text)
      if (verdict.status !== 'entry' || verdict.entry.writer !== this.writerId || verdict.entry.id !== id || this.logged.state.entries.has(id)) continue
      const batch = missing.get(line.segment) ?? { lines: [], entries: [] }
      batch.lines.push(line.text)
      batch.entries.push(id)
      missing.set(line.segment, batch)
    }
    for (const [segment, batch] of missing) await this.logLines(segment, batch.lines, batch.entries, SYSTEM, true)
    await this.intents?.logged([...intended])
  }

  /** Runs `job`; a path it refused as unsafe is said in the log (once) before the refusal goes on to the caller. */
  private async refusing<T>(actor: Actor, job: () => Promise<T>): Promise<T> {
    try {
      return await job()
    } catch (error) {
      if (isUnsafeLedgerPath(error)) await this.sayRefused(error, actor)
      throw error
    }
  }

  private async sayRefused(refusal: UnsafeLedgerPath, actor: Actor): Promise<void> {
    const key = `${refusal.why}:${refusal.path}`
    if (this.refusalsSaid.has(key)) return
    this.refusalsSaid.add(key)
    try {
      await this.logged.handle(this.store, () => [
        { type: CoherenceRefused.type, actor, data: { root: this.root, path: refusal.path, reason: refusal.why, message: refusal.message } },
      ])
    } catch {
      // The refusal itself still reaches the caller; only its record is lost.
      this.refusalsSaid.delete(key)
    }
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
  const data = event.data as { entries: readonly string[]; lines: readonly string[]; recovered?: boolean }
  // Added in place: the set is this stream's private write model, and copying it per event would make a long
  // history's load quadratic.
  for (const id of data.entries) state.entries.add(id)
  // A delegation counts only as the person appended it (delegationAuthority.ts): never a recovered line.
  if (event.actor.kind === 'user' && data.recovered !== true) {
    for (const line of data.lines) {
      const delegation = personDelegationOf(line)
      if (delegation !== undefined) state.person.set(delegation.id, delegation)
    }
  }
  return state
}
