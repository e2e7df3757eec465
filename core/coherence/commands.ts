import { isAbsolute, relative, sep } from 'node:path'
import { stat } from 'node:fs/promises'
import { DocumentTurns } from '../documents/turns.js'
import type { Actor } from '../events/actor.js'
import type { EventLog } from '../log/eventLog.js'
import type { Settings } from '../settings/events.js'
import type { FoldedStream } from '../streams/foldedStream.js'
import type { WorkspaceState } from '../workspace/workspaceState.js'
import { composeEntry } from './compose.js'
import type { BodyOfKind, DelegationBody, KnownKind, LedgerEntry, TransformationBody } from './entries.js'
import { assignIdentity, frontmatterIdentity } from './frontmatter.js'
import { maskedCanonicalBytes, textContentHash } from './hashing.js'
import type { CoherenceLedgerOptions } from './ledger.js'
import { CoherenceProjection, type BreakdownRow, type ProjectedEdge } from './model/breakdown.js'
import type { ClaimSummary } from './model/claims.js'
import type { ContextSummary } from './model/contexts.js'
import type { CaptureIndex } from './model/captureIndex.js'
import { DelegationIndex, type DelegationScope, type GrantSummary } from './model/delegations.js'
import { trustedWriters } from './delegationAuthority.js'
import { isUnsafeLedgerPath } from './confined.js'
import type { DelegationEntry } from './entries.js'
import { plannedEntries, reconcile } from './model/reconcile.js'
import { decideResolution, type ResolutionKind, type Resolver } from './model/resolution.js'
import { CoherenceRefusal } from './refusal.js'
import { revisionId } from './revision.js'
import { scanWorkspace } from './scan.js'
import { SessionReads, type SessionRead } from './sessionReads.js'
import { newUuidV7 } from './uuid.js'
import { loadOrCreateWriterId } from './writerId.js'
import { WorkspaceLedger, type CoherenceView } from './workspaceLedger.js'
import { DELEGATION_SCOPES } from './entries.js'
import { formatEntryTime } from './time.js'

/** `coherence.status` (COH.STATUS.1). */
export interface CoherenceStatus {
  readonly initialized: boolean
  readonly objects: number
  readonly open_items: number
  readonly quarantined: number
  readonly writer: string
}

/** The `coherence_resolve` receipt. */
export interface ResolutionReceipt {
  readonly entryId: string
  readonly kind: 'ratification' | 'waiver'
  readonly resolvedAgainst: string
}

/** A save the file commands made, as the capture needs it. */
export interface SavedText {
  readonly path: string
  /** The text written (LF line endings). */
  readonly text: string
  readonly actor: Actor
  /** The MCP connection that saved, when an assistant did. */
  readonly connection: string | null
  /** The tool the assistant called (`document.write`, `workspace.save`), for the transformation's intent. */
  readonly tool: string
}

/** What a capture did, for the save's caller and the tests. */
export type CaptureOutcome =
  | { readonly captured: true; readonly entryId: string; readonly object: string; readonly revision: string; readonly inputs: number }
  | {
      readonly captured: false
      /** `unsafe-link`: a link where the ledger should be; refused, and said once in the log (`coherence.refused`). */
      readonly why: 'off' | 'outside-workspace' | 'not-markdown' | 'unchanged' | 'no-identity' | 'held' | 'unsafe-link' | 'failed'
      readonly detail?: string
    }

export interface CoherenceCommandsOptions {
  readonly ledger?: CoherenceLedgerOptions
  /** How long `coherence_resolve` waits behind another write to the same ledger before WRITE_BUSY (CONC.4: 3 s). */
  readonly writeWaitMs?: number
  /**
   * How long an MCP call on the coherence tools waits for its answer before `TIMEOUT`, the work going on (COH.GEN.8,
   * COHR.RESOLVE.9: 20 s). The adapters read it; tests shrink it.
   */
  readonly answerWithinMs?: number
}

/** The grant a person makes in the console or with `quire coherence grant`. */
export interface GrantRequest {
  /** The agent's principal: the name its token was made with (`quire agent add NAME`). */
  readonly delegate: string
  readonly scope: readonly DelegationScope[]
  /** When it ends; required and in the future (spec §5.4.7: never "forever"). */
  readonly expires: Date
}

const MARKDOWN_PATH = /\.(md|markdown|mdx)$/i

/**
 * The coherence layer's commands (VMark coherence format 0; TOOLS.md §10–§11): the owner of every workspace's ledger
 * appends and of its `coherence:<root>` stream. Queries (`status`, `edges`, `claims`, `contexts`), the resolutions of
 * assistants under a delegation and of the person, the person's grants and revocations, and the captures of saves
 * (identity assignment, provenance). Every decision reads the ledger inside the workspace's exclusive step and
 * appends in that same step, so what was decided from is what is appended to.
 */
export class CoherenceCommands {
  private readonly ledgers = new Map<string, WorkspaceLedger>()
  private readonly reads = new SessionReads()
  private readonly turns: DocumentTurns
  private writerId: Promise<string> | undefined
  /** Per workspace, what the last scan found: objects without a file (hidden) and ids held as duplicates. */
  private readonly scanned = new Map<string, { absent: ReadonlySet<string>; held: ReadonlySet<string>; at: number }>()

  constructor(
    private readonly store: EventLog,
    private readonly workspace: FoldedStream<WorkspaceState>,
    private readonly settings: FoldedStream<Settings>,
    private readonly home: string,
    private readonly now: () => number,
    private readonly options: CoherenceCommandsOptions = {},
  ) {
    this.turns = new DocumentTurns(options.writeWaitMs ?? 3_000)
  }

  /** How long an MCP call waits for a coherence answer before `TIMEOUT` (COH.GEN.8). */
  get answerWithinMs(): number {
    return this.options.answerWithinMs ?? 20_000
  }

  /** This installation's writer id (spec §2.2), made on first use and kept in the data directory. */
  writer(): Promise<string> {
    this.writerId ??= loadOrCreateWriterId(this.home).catch((error: unknown) => {
      this.writerId = undefined
      throw error
    })
    return this.writerId
  }

  /**
   * COH.GEN.5–6 and the allow-list: `workspace_root` must be an absolute path to a directory that is a workspace open
   * in this daemon. Refusals are plain strings, as VMark's bridge words them.
   */
  async workspaceRoot(value: unknown): Promise<string> {
    if (typeof value !== 'string' || value === '') {
      throw new CoherenceRefusal('invalid-workspace-root', 'workspace_root (string) is required — the absolute path of the workspace to query')
    }
    if (!isAbsolute(value)) throw new CoherenceRefusal('invalid-workspace-root', `workspace_root must be an absolute path, got: ${value}`)
    let directory = false
    try {
      directory = (await stat(value)).isDirectory()
    } catch {
      directory = false
    }
    if (!directory) throw new CoherenceRefusal('invalid-workspace-root', `workspace_root is not an accessible directory: ${value}`)
    const trimmed = value.length > 1 && value.endsWith(sep) ? value.slice(0, -1) : value
    const root = this.workspace.state.workspaceRoots.find((candidate) => candidate === trimmed)
    if (root === undefined) {
      throw new CoherenceRefusal('not-a-workspace', `workspace_root is not a workspace open in Quire: ${value} (open it with workspace.open_workspace first)`)
    }
    return root
  }

  /** COH.STATUS.1–5: read-only; counts from the last scan's view of absent objects (the status does not scan). */
  async status(root: string): Promise<CoherenceStatus> {
    const writer = await this.writer()
    const ledger = this.ledgerOf(root, writer)
    const view = await ledger.view()
    if (!view.initialized) return { initialized: false, objects: 0, open_items: 0, quarantined: 0, writer }
    const counts = view.projection.status(this.moment(root))
    return { initialized: true, ...counts, quarantined: view.read.quarantined.length, writer }
  }

  /**
   * COH.EDGES.1–5: reconciles the ledger with the files first (spec §9.4: it may append observed changes, moves,
   * adoptions and diagnostics, never touching a document), then lists every live non-fresh edge.
   */
  async edges(root: string, actor: Actor): Promise<BreakdownRow[]> {
    const view = await this.reconciled(root, actor)
    if (!view.initialized) return []
    return [...view.projection.breakdown(this.moment(root)).rows]
  }

  /**
   * Every live edge with its state, fresh ones included, after a reconcile: the console's breakdown. `moment` is what
   * the rows were judged at (the clock, the objects the scan found no file for), for the other contexts' breakdowns.
   */
  async liveEdges(
    root: string,
    actor: Actor,
    options: { readonly scanAgeMs?: number } = {},
  ): Promise<{ rows: ProjectedEdge[]; projection: CoherenceProjection; moment: { now: Date; absent: ReadonlySet<string> } }> {
    const view = await this.reconciled(root, actor, options.scanAgeMs)
    const moment = this.moment(root)
    return { rows: view.projection.liveEdges(moment), projection: view.projection, moment }
  }

  /** COH.CLAIMS.1–3. */
  async claims(root: string): Promise<ClaimSummary[]> {
    return (await this.readView(root)).projection.claimSummaries()
  }

  /** COH.CONTEXTS.1–2. */
  async contexts(root: string): Promise<ContextSummary[]> {
    return (await this.readView(root)).projection.contextSummaries()
  }

  /**
   * The grants of this workspace Quire honours (the person's, through Quire or a writer they trust), with their
   * standing and what each authorized.
   */
  async grants(root: string): Promise<GrantSummary[]> {
    return (await this.readView(root)).delegations(this.trusted()).summaries(new Date(this.now()))
  }

  /** The delegation lines of this workspace that authorize nothing: in a segment, but not made by the person. */
  async unhonouredDelegations(root: string): Promise<readonly DelegationEntry[]> {
    return (await this.readView(root)).unhonoured(this.trusted())
  }

  /** The resolutions a grant authorized, across its supersession chain (the audit of COHR.RESOLVE.6). */
  async authorizedBy(root: string, delegation: string): Promise<LedgerEntry[]> {
    return (await this.readView(root)).delegations(this.trusted()).authorizedBy(delegation)
  }

  /**
   * COHR.RESOLVE.1–6, .10: an assistant's resolution, authorized only by a live delegation to the connection's
   * authenticated principal; the person's own (`resolver.kind === 'human'`) needs none. Serialized with every other
   * resolution of the workspace; a call that waits 3 s for its turn gets WRITE_BUSY and appends nothing.
   */
  async resolve(
    root: string,
    request: { readonly txf: string; readonly input: number; readonly resolution: ResolutionKind; readonly reason?: string | undefined },
    resolver: Resolver,
    actor: Actor,
  ): Promise<ResolutionReceipt> {
    const writer = await this.writer()
    const ledger = this.ledgerOf(root, writer)
    return this.turns.run(root, () =>
      ledger.exclusive(async () => {
        await ledger.catchUp()
        const view = await ledger.view({ forWriting: true })
        if (!view.initialized) throw new CoherenceRefusal('edge-not-live', `edge ${request.txf}#${request.input} is not live: this workspace has no coherence ledger`)
        this.assertWritable(view)
        const decided = decideResolution(view.projection, view.delegations(this.trusted()), request, resolver, this.moment(root))
        const entry = composeEntry(decided.kind, decided.body, { writer, at: new Date(this.now()) })
        await ledger.append([entry], actor)
        return { entryId: entry.id, kind: decided.kind, resolvedAgainst: decided.body.resolved_against }
      }),
    )
  }

  /**
   * The person grants an agent a delegation (spec §5.4.7; COHR.RESOLVE.8: never over MCP). A fresh grant id, or a new
   * entry superseding the current one when `supersede` names an existing grant (to change its scope or expiry).
   */
  async grant(root: string, request: GrantRequest, person: string, actor: Actor, supersede?: string): Promise<{ delegation: string; entryId: string }> {
    const delegate = request.delegate.trim()
    if (delegate === '') throw new CoherenceRefusal('invalid-argument', 'a delegation names the agent it is for')
    const scope = [...new Set(request.scope)]
    if (scope.length === 0 || scope.some((item) => !(DELEGATION_SCOPES as readonly string[]).includes(item))) {
      throw new CoherenceRefusal('invalid-argument', `a delegation's scope is one or both of ${DELEGATION_SCOPES.join(', ')}`)
    }
    if (!(request.expires.getTime() > this.now())) throw new CoherenceRefusal('invalid-argument', 'a delegation must expire in the future (never "forever")')
    return this.appendDelegation(root, actor, (delegations) => {
      const previous = supersede === undefined ? undefined : delegations.grant(supersede)
      if (supersede !== undefined && previous === undefined) throw new CoherenceRefusal('invalid-argument', `no delegation ${supersede} in this workspace`)
      return {
        delegation: previous?.delegation ?? newUuidV7(),
        actor: { type: 'human', id: person },
        delegate: { type: 'external', id: delegate },
        scope,
        expires: formatEntryTime(request.expires),
        supersedes: previous?.current.id ?? null,
      }
    })
  }

  /** The person revokes a grant: a superseding entry with an empty scope (spec §5.4.7). */
  async revoke(root: string, delegation: string, person: string, actor: Actor): Promise<{ delegation: string; entryId: string }> {
    return this.appendDelegation(root, actor, (delegations) => {
      const grant = delegations.grant(delegation)
      if (grant === undefined) throw new CoherenceRefusal('invalid-argument', `no delegation ${delegation} in this workspace`)
      if (grant.current.body.scope.length === 0) throw new CoherenceRefusal('delegation-revoked', `delegation ${delegation} is already revoked`)
      return { ...grant.current.body, actor: { type: 'human', id: person }, scope: [], supersedes: grant.current.id }
    })
  }

  /** An MCP connection read a document (or part of one): a possible input of its next captured save. */
  noteRead(connection: string, read: SessionRead): void {
    if (!this.settings.state.trackProvenance) return
    this.reads.note(connection, read)
  }

  /**
   * The files a connection read since its last write, other than `written`, in the same workspace: the inputs its next
   * capture will name. The file commands give those without an identity one first (spec §9.4 adoption), so the edge
   * can be recorded.
   */
  readPaths(connection: string, written: string): string[] {
    if (!this.settings.state.trackProvenance) return []
    const root = this.rootOf(written)
    return this.reads.peek(connection).flatMap((read) => (read.path !== written && root !== undefined && this.rootOf(read.path) === root ? [read.path] : []))
  }

  /** A connection ended: its reads are nobody's inputs. */
  forgetConnection(connection: string): void {
    this.reads.forget(connection)
  }

  /**
   * The text a save should write, with `vmark.id` assigned when this save will be the file's first capture (spec §2.1:
   * in the same atomic write), or undefined when nothing needs adding: tracking off, outside every workspace, not
   * Markdown, an id already there, or a frontmatter too broken to edit (the capture reports that instead).
   */
  identityFor(path: string, text: string): string | undefined {
    if (!this.settings.state.trackProvenance || this.rootOf(path) === undefined || !MARKDOWN_PATH.test(path)) return undefined
    const identity = frontmatterIdentity(text)
    if (identity.status === 'malformed' || (identity.status === 'present' && identity.id !== undefined)) return undefined
    return assignIdentity(text, newUuidV7())
  }

  /**
   * Captures a save (spec §5.4.1, §7, §8): an assistant's is an `inferred` transformation whose inputs are the
   * connection's reads since its last write; a person's an `exact` human one. A capture never fails the save: what
   * went wrong is in the outcome (and in a diagnostic entry when the ledger should remember it).
   */
  async captureSave(saved: SavedText): Promise<CaptureOutcome> {
    const reads = saved.connection === null ? [] : this.reads.take(saved.connection)
    if (!this.settings.state.trackProvenance) return { captured: false, why: 'off' }
    try {
      return await this.capture(saved, reads)
    } catch (error) {
      return { captured: false, why: isUnsafeLedgerPath(error) ? 'unsafe-link' : 'failed', detail: (error as Error).message }
    }
  }

  private async capture(saved: SavedText, reads: readonly SessionRead[]): Promise<CaptureOutcome> {
    const root = this.rootOf(saved.path)
    if (root === undefined) return { captured: false, why: 'outside-workspace' }
    if (!MARKDOWN_PATH.test(saved.path)) return { captured: false, why: 'not-markdown' }
    const writer = await this.writer()
    const ledger = this.ledgerOf(root, writer)
    const rel = relativePath(root, saved.path)
    return ledger.exclusive(async () => {
      const identity = frontmatterIdentity(saved.text)
      if (identity.status !== 'present' || identity.id === undefined) {
        // A file without identity that another program changed is not an object (spec §9.4): nothing to say.
        if (saved.actor.kind === 'disk') return { captured: false, why: 'no-identity' }
        const why = identity.status === 'malformed' ? identity.reason : 'the file carries no vmark.id'
        await this.appendDiagnostic(ledger, writer, 'capture-no-identity', rel, `${rel} was saved but not captured: ${why}`, saved.actor)
        return { captured: false, why: 'no-identity', detail: why }
      }
      const object = identity.id.toLowerCase()
      if (this.scanned.get(root)?.held.has(object)) return { captured: false, why: 'held', detail: `vmark.id ${object} is carried by several files` }
      const view = await ledger.view({ forWriting: true })
      this.assertWritable(view)
      const contentHash = textContentHash(saved.text)
      // The capture index, not the projection: a capture must cost its own entries, not the ledger's length.
      const heads = view.index.heads(object)
      const registered = view.index.pathOf(object)
      const entries: LedgerEntry[] = []
      const at = new Date(this.now())
      if (registered !== rel) {
        entries.push(composeEntry('object-registered', { object, path: rel, ...(identity.schema === undefined ? {} : { schema: identity.schema }) }, { writer, at }))
      }
      if (heads.length === 1 && view.index.contentHashOf(object, heads[0]!) === contentHash) {
        if (entries.length > 0) await ledger.append(entries, saved.actor)
        return { captured: false, why: 'unchanged' }
      }
      const parents = [...heads].sort()
      const revision = revisionId(contentHash, parents)
      // Spec §5.2: the snapshot first, so the ledger never names content that does not exist.
      await ledger.writeSnapshot(maskedCanonicalBytes(saved.text), saved.actor)
      const inputs = saved.actor.kind === 'mcp' ? this.inputsOf(reads, view.index, root, saved.path) : []
      const body: TransformationBody = {
        inputs,
        outputs: [{ object, revision, content_hash: contentHash, parents }],
        ...agentOf(saved),
      }
      const transformation = composeEntry('transformation', body, { writer, at })
      entries.push(transformation)
      await ledger.append(entries, saved.actor)
      return { captured: true, entryId: transformation.id, object, revision, inputs: inputs.length }
    })
  }

  /** The workspace root a file lies in (the deepest, when workspaces nest), if any. */
  rootOf(path: string): string | undefined {
    let best: string | undefined
    for (const root of this.workspace.state.workspaceRoots) {
      const inside = path.startsWith(root.endsWith(sep) ? root : root + sep)
      if (inside && (best === undefined || root.length > best.length)) best = root
    }
    return best
  }

  private inputsOf(reads: readonly SessionRead[], index: CaptureIndex, root: string, written: string): TransformationBody['inputs'] {
    const inputs: Array<TransformationBody['inputs'][number]> = []
    for (const read of reads) {
      if (read.path === written || this.rootOf(read.path) !== root) continue
      const identity = frontmatterIdentity(read.content)
      const object = identity.status === 'present' && identity.id !== undefined ? identity.id.toLowerCase() : index.objectAt(relativePath(root, read.path))
      if (object === null || object === undefined) continue
      // The revision read is the one with the content served; a read matching no revision is left out rather than
      // pinned to a head the assistant never saw.
      const revisions = index.revisionsWithContent(object, textContentHash(read.content))
      const heads = new Set(index.heads(object))
      const revision = revisions.find((candidate) => heads.has(candidate)) ?? revisions.at(-1)
      if (revision === undefined) continue
      inputs.push({ object, revision, role: read.role })
    }
    return inputs
  }

  private async appendDelegation(root: string, actor: Actor, decide: (delegations: DelegationIndex) => DelegationBody): Promise<{ delegation: string; entryId: string }> {
    const writer = await this.writer()
    const ledger = this.ledgerOf(root, writer)
    return ledger.exclusive(async () => {
      await ledger.catchUp()
      const view = await ledger.view({ forWriting: true })
      this.assertWritable(view)
      const body = decide(view.delegations(this.trusted()))
      const entry = composeEntry('delegation', body, { writer, at: new Date(this.now()) })
      await ledger.append([entry], actor)
      return { delegation: body.delegation, entryId: entry.id }
    })
  }

  private async appendDiagnostic(ledger: WorkspaceLedger, writer: string, code: string, path: string, message: string, actor: Actor): Promise<void> {
    const view = await ledger.view({ forWriting: true })
    if (view.index.hasDiagnostic(code, path)) return
    await ledger.append([composeEntry('diagnostic', { code, message, path }, { writer, at: new Date(this.now()) })], actor)
  }

  /** Scans and appends what the scan says the ledger must learn (spec §9.4), then the view after. */
  private async reconciled(root: string, actor: Actor, scanAgeMs = 0): Promise<CoherenceView> {
    const writer = await this.writer()
    const ledger = this.ledgerOf(root, writer)
    return ledger.exclusive(async () => {
      const before = await ledger.view({ forWriting: true })
      if (!before.initialized) return before
      // A caller that polls (the console) may take a scan made a moment ago: Quire's own saves reach the ledger at
      // once, and the disk watcher reports other programs' changes to open files; only closed files wait.
      const scannedAt = this.scanned.get(root)?.at
      if (scanAgeMs > 0 && scannedAt !== undefined && this.now() - scannedAt < scanAgeMs) return before
      // Quire's own data directory may sit inside a workspace (`--workspace ~`): it is never content.
      const scan = await scanWorkspace(root, { ownDataDirectories: [this.home] })
      const outcome = reconcile(before.projection, scan.files)
      // An object is absent only if a complete scan did not find it: a truncated scan, or a folder that could not be
      // listed, says nothing about the files it did not reach.
      const absent = scan.complete ? outcome.absent : []
      this.scanned.set(root, { absent: new Set(absent), held: new Set(outcome.held.map((entry) => entry.object)), at: this.now() })
      const planned = plannedEntries(outcome, revisionId)
      if (planned.length === 0 || before.read.futureFormat > 0) return before
      const at = new Date(this.now())
      await ledger.append(
        planned.map((entry) => composeEntry(entry.kind as KnownKind, entry.body as BodyOfKind[KnownKind], { writer, at })),
        actor,
      )
      return ledger.view({ forWriting: true })
    })
  }

  /** The current view, with the person's grants made through another node folded first (delegationAuthority.ts). */
  private async readView(root: string): Promise<CoherenceView> {
    const ledger = this.ledgerOf(root, await this.writer())
    await ledger.catchUp()
    return ledger.view()
  }

  /** The writers whose delegation lines the person trusts (the setting `coherenceTrustedWriters`). */
  private trusted(): ReadonlySet<string> {
    return trustedWriters(this.settings.state.coherenceTrustedWriters)
  }

  private moment(root: string): { now: Date; absent: ReadonlySet<string> } {
    return { now: new Date(this.now()), absent: this.scanned.get(root)?.absent ?? new Set() }
  }

  private assertWritable(view: CoherenceView): void {
    if (view.read.futureFormat > 0) {
      throw new CoherenceRefusal('future-format', `the ledger holds ${view.read.futureFormat} entries of a newer format; this Quire reads it but writes nothing to it`)
    }
  }

  private ledgerOf(root: string, writer: string): WorkspaceLedger {
    let ledger = this.ledgers.get(root)
    if (ledger === undefined) {
      ledger = new WorkspaceLedger(root, writer, this.store, this.options.ledger, this.home)
      this.ledgers.set(root, ledger)
    }
    return ledger
  }
}

/** Workspace-relative with `/` separators, as the ledger records paths (spec §5.4.6). */
function relativePath(root: string, path: string): string {
  return relative(root, path).split(sep).join('/')
}

/** Spec §8: who made the revision and how sure we are of its inputs. */
function agentOf(saved: SavedText): Pick<TransformationBody, 'agent' | 'intent' | 'confidence'> {
  if (saved.actor.kind === 'mcp') {
    return {
      agent: { type: 'model', id: saved.actor.principal },
      intent: { kind: 'mcp-document-write', summary: saved.tool },
      // G1: the reads Quire saw under-approximate what an assistant knew.
      confidence: 'inferred',
    }
  }
  if (saved.actor.kind === 'system') {
    // Spec §9.4 adoption: the file as it was, taken in because an assistant used it; nobody knows what it came from.
    return { agent: { type: 'external' }, intent: { kind: 'observed-external', summary: 'adopted as the input of an assistant write' }, confidence: 'unknown' }
  }
  if (saved.actor.kind === 'disk') {
    return { agent: { type: 'external' }, intent: { kind: 'observed-external', summary: 'change seen on disk' }, confidence: 'unknown' }
  }
  // A person's save links the revision to the one before it, exactly; what they had in mind is not Quire's to guess.
  return { agent: { type: 'human' }, intent: { kind: 'editor-save', summary: `saved by the person (${saved.tool})` }, confidence: 'exact' }
}

