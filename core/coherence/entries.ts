/**
 * Ledger entries of VMark's coherence format 0: the envelope (spec §5.3) and the body of every entry kind the spec
 * names (§5.4.1–§5.4.7), as zod schemas and the types they infer.
 *
 * Schemas are loose on purpose where the spec asks for it: additive fields are allowed within format 0 and readers
 * preserve them (spec header, §12), so every object schema keeps fields it does not know. Known fields are validated;
 * a known kind whose body fails validation is malformed and quarantined (§5.6); a kind the spec does not name is
 * kept as it is (§5.3). UUIDs are accepted in any letter case and handed on in lower case, the form every writer
 * prints, so that ids compare as strings.
 */
import { z } from 'zod'
import { acceptedTransformation } from './fastLines.js'
import { isRfc3339, rfc3339Nanoseconds } from './time.js'

/** The format number this build reads and writes. Lines with a greater one are skipped and block writing. */
export const FORMAT_VERSION = 0

const UUID_PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/
const REVISION_PATTERN = /^rev1:[0-9a-f]{64}$/
const CONTENT_HASH_PATTERN = /^sha256:[0-9a-f]{64}$/

/** Any RFC 9562 UUID (writers mint v7, but a reader does not judge the version), lower-cased. */
export const UuidSchema = z
  .string()
  .regex(UUID_PATTERN, 'not a UUID')
  .transform((value) => value.toLowerCase())
/** `rev1:` + 64 lower-case hex digits (spec §2.3). */
export const RevisionIdSchema = z.string().regex(REVISION_PATTERN, 'not a rev1: revision id')
/** `sha256:` + 64 lower-case hex digits (spec §3.2). */
export const ContentHashSchema = z.string().regex(CONTENT_HASH_PATTERN, 'not a sha256: content hash')
/** An RFC 3339 timestamp. */
export const TimestampSchema = z.string().refine(isRfc3339, 'not an RFC 3339 timestamp')

const nonBlank = (what: string) => z.string().refine((value) => value.trim() !== '', `${what} must not be blank`)

// ---- §5.4.1 transformation -------------------------------------------------------------------------------------

export const INPUT_ROLES = ['direct', 'contextual'] as const
export const AGENT_TYPES = ['human', 'model', 'external', 'git'] as const
export const CONFIDENCES = ['exact', 'inferred', 'unknown'] as const

export const InputRefSchema = z.looseObject({
  object: UuidSchema,
  revision: RevisionIdSchema,
  role: z.enum(INPUT_ROLES),
  /** Spec §13.6: the origin-edge kind; absent reads as `dependency`. */
  kind: z.string().optional(),
})

export const OutputRefSchema = z.looseObject({
  object: UuidSchema,
  revision: RevisionIdSchema,
  content_hash: ContentHashSchema,
  parents: z.array(RevisionIdSchema),
})

export const AgentSchema = z.looseObject({
  type: z.enum(AGENT_TYPES),
  /** The model id or git operation; absent for a person. */
  id: z.string().optional(),
})

export const IntentSchema = z.looseObject({
  kind: z.string(),
  summary: z.string(),
  /** A CAS snapshot of the full prompt, never the prompt inline. */
  prompt_hash: ContentHashSchema.optional(),
})

export const TransformationBodySchema = z.looseObject({
  inputs: z.array(InputRefSchema),
  outputs: z.array(OutputRefSchema).min(1, 'a transformation has at least one output'),
  agent: AgentSchema,
  intent: IntentSchema,
  confidence: z.enum(CONFIDENCES),
})

// ---- §5.4.2 navigation ------------------------------------------------------------------------------------------

/** The git operations a navigation names (spec §5.4.2); readers accept any string, writers use these. */
export const NAVIGATION_OPS = ['checkout', 'branch-switch', 'reset', 'detach', 'worktree-switch'] as const

export const NavigationBodySchema = z.looseObject({
  git: z.looseObject({
    op: z.string(),
    from: z.string(),
    to: z.string(),
    ref: z.string().optional(),
  }),
})

// ---- §5.4.3 ratification and waiver (the resolutions) ---------------------------------------------------------

export const EdgeRefSchema = z.looseObject({
  /** The entry id of the transformation that recorded the origin edge. */
  txf: UuidSchema,
  /** The index into that transformation's `inputs`. */
  input: z.number().int().nonnegative(),
})

/** Who resolved: a person, or an agent acting under a delegation (spec §5.4.3 revision 2). */
export const ActorSchema = z.looseObject({
  type: z.enum(['human', 'agent']),
  id: nonBlank('actor.id'),
})

const resolutionFields = {
  edge: EdgeRefSchema,
  upstream_object: UuidSchema,
  pinned: RevisionIdSchema,
  resolved_against: RevisionIdSchema,
  actor: ActorSchema,
  reason: z.string().optional(),
  expires: TimestampSchema.optional(),
  /** The stable grant id of the delegation that authorized a non-human resolution. */
  delegation: UuidSchema.optional(),
}

type ResolutionShape = { actor: { type: string }; delegation?: string | undefined; reason?: string | undefined }

function checkDelegationReference(body: ResolutionShape, context: z.RefinementCtx): void {
  if (body.actor.type !== 'human' && body.delegation === undefined) {
    context.addIssue({ code: 'custom', message: 'a resolution by a non-human actor must name its delegation', path: ['delegation'] })
  }
  if (body.actor.type === 'human' && body.delegation !== undefined) {
    context.addIssue({ code: 'custom', message: 'a human resolution never carries a delegation', path: ['delegation'] })
  }
}

export const RatificationBodySchema = z.looseObject(resolutionFields).superRefine(checkDelegationReference)

export const WaiverBodySchema = z.looseObject(resolutionFields).superRefine((body, context) => {
  checkDelegationReference(body, context)
  if (body.reason === undefined || body.reason.trim() === '') {
    context.addIssue({ code: 'custom', message: 'a waiver must give a reason', path: ['reason'] })
  }
})

// ---- §5.4.4 check-result ----------------------------------------------------------------------------------------

export const CHECK_VERDICTS = ['no-contradiction', 'contradiction', 'unknown'] as const

export const CheckResultBodySchema = z.looseObject({
  edge: EdgeRefSchema,
  pinned: RevisionIdSchema,
  checked_against: RevisionIdSchema,
  verdict: z.enum(CHECK_VERDICTS),
  model: z.string().optional(),
  prompt_version: z.string().optional(),
  evidence: z.array(z.looseObject({ object: UuidSchema.optional(), quote: z.string().optional(), loc: z.string().optional() })).optional(),
  confidence: z.number().optional(),
  /** Revision 1: the context the check ran under. */
  context: UuidSchema.optional(),
  /** Revision 1: `sha256:` over the sorted (claim id, current entry id) pairs fed to the checker. */
  claims_fingerprint: ContentHashSchema.optional(),
})

// ---- §5.4.5 claim -----------------------------------------------------------------------------------------------

export const CLAIM_MATURITIES = ['draft', 'established'] as const

export const ClaimBodySchema = z.looseObject({
  /** The stable claim-object id, shared by every lifecycle entry of one claim. */
  claim: UuidSchema,
  statement: z.string(),
  valid_at: TimestampSchema.nullable().optional(),
  invalid_at: TimestampSchema.nullable().optional(),
  established_by: z.array(z.looseObject({ object: UuidSchema, revision: RevisionIdSchema })).optional(),
  /** The entry id of the claim entry this one supersedes. */
  supersedes: UuidSchema.nullable().optional(),
  maturity: z.enum(CLAIM_MATURITIES),
  actor: ActorSchema.optional(),
})

// ---- §5.4.6 object-registered -----------------------------------------------------------------------------------

export const ObjectRegisteredBodySchema = z.looseObject({
  object: UuidSchema,
  /** Workspace-relative, `/`-separated. */
  path: z.string(),
  schema: z.string().nullable().optional(),
  derived_from: z.array(UuidSchema).optional(),
})

// ---- §5.4.7 diagnostic ------------------------------------------------------------------------------------------

export const DiagnosticBodySchema = z.looseObject({
  code: z.string(),
  message: z.string(),
  path: z.string().optional(),
})

// ---- §5.4.7 (revision 2) delegation ----------------------------------------------------------------------------

/** The scopes a delegation can grant (spec §5.4.7). */
export const DELEGATION_SCOPES = ['resolve.accept-newer', 'resolve.waive'] as const

export const DelegationBodySchema = z.looseObject({
  /** The stable grant id, shared by every lifecycle entry of one grant. */
  delegation: UuidSchema,
  /** Grants are made by a person only. */
  actor: z.looseObject({ type: z.literal('human'), id: nonBlank('actor.id') }),
  delegate: z.looseObject({ type: z.string(), id: nonBlank('delegate.id') }),
  /** Empty on a superseding entry: a revocation. */
  scope: z.array(z.string()),
  expires: TimestampSchema,
  /** The entry id of the grant entry this one supersedes. */
  supersedes: UuidSchema.nullable(),
})

// ---- the envelope (§5.3) ----------------------------------------------------------------------------------------

/** The body schema of each kind the spec names; any other kind is preserved unvalidated. */
export const BODY_SCHEMAS = {
  transformation: TransformationBodySchema,
  navigation: NavigationBodySchema,
  ratification: RatificationBodySchema,
  waiver: WaiverBodySchema,
  'check-result': CheckResultBodySchema,
  claim: ClaimBodySchema,
  'object-registered': ObjectRegisteredBodySchema,
  diagnostic: DiagnosticBodySchema,
  delegation: DelegationBodySchema,
} as const

export type KnownKind = keyof typeof BODY_SCHEMAS
export const KNOWN_KINDS = Object.keys(BODY_SCHEMAS) as readonly KnownKind[]
export const isKnownKind = (kind: string): kind is KnownKind => Object.hasOwn(BODY_SCHEMAS, kind)

export const EnvelopeSchema = z.looseObject({
  format: z.number().int().nonnegative(),
  id: UuidSchema,
  kind: z.string().min(1),
  time: TimestampSchema,
  writer: UuidSchema,
  idem: UuidSchema,
  body: z.unknown(),
})

export type TransformationBody = z.output<typeof TransformationBodySchema>
export type InputRef = z.output<typeof InputRefSchema>
export type OutputRef = z.output<typeof OutputRefSchema>
export type Agent = z.output<typeof AgentSchema>
export type NavigationBody = z.output<typeof NavigationBodySchema>
export type ResolutionBody = z.output<typeof RatificationBodySchema>
export type CheckResultBody = z.output<typeof CheckResultBodySchema>
export type ClaimBody = z.output<typeof ClaimBodySchema>
export type ObjectRegisteredBody = z.output<typeof ObjectRegisteredBodySchema>
export type DiagnosticBody = z.output<typeof DiagnosticBodySchema>
export type DelegationBody = z.output<typeof DelegationBodySchema>

/** The envelope of one ledger line, with the body of its kind. Unknown envelope fields are kept as they came. */
export interface Envelope<Kind extends string = string, Body = unknown> {
  readonly format: number
  readonly id: string
  readonly kind: Kind
  readonly time: string
  readonly writer: string
  readonly idem: string
  readonly body: Body
  readonly [field: string]: unknown
}

export type TransformationEntry = Envelope<'transformation', TransformationBody>
export type NavigationEntry = Envelope<'navigation', NavigationBody>
export type RatificationEntry = Envelope<'ratification', ResolutionBody>
export type WaiverEntry = Envelope<'waiver', ResolutionBody>
export type CheckResultEntry = Envelope<'check-result', CheckResultBody>
export type ClaimEntry = Envelope<'claim', ClaimBody>
export type ObjectRegisteredEntry = Envelope<'object-registered', ObjectRegisteredBody>
export type DiagnosticEntry = Envelope<'diagnostic', DiagnosticBody>
export type DelegationEntry = Envelope<'delegation', DelegationBody>
/** A kind this build does not know: kept, body untouched, ignored by the projection (spec §5.3). */
export type UnknownKindEntry = Envelope<string, unknown>

export type KnownEntry =
  | TransformationEntry
  | NavigationEntry
  | RatificationEntry
  | WaiverEntry
  | CheckResultEntry
  | ClaimEntry
  | ObjectRegisteredEntry
  | DiagnosticEntry
  | DelegationEntry

export type LedgerEntry = KnownEntry | UnknownKindEntry

/** The body type of each known kind. */
export interface BodyOfKind {
  transformation: TransformationBody
  navigation: NavigationBody
  ratification: ResolutionBody
  waiver: ResolutionBody
  'check-result': CheckResultBody
  claim: ClaimBody
  'object-registered': ObjectRegisteredBody
  diagnostic: DiagnosticBody
  delegation: DelegationBody
}

/** Narrows an entry to one known kind: `isEntryOfKind(entry, 'waiver')`. */
export function isEntryOfKind<K extends KnownKind>(entry: LedgerEntry, kind: K): entry is Envelope<K, BodyOfKind[K]> {
  return entry.kind === kind
}

/** What one line of a segment is. `malformed` lines are quarantined; `future-format` ones are skipped and block writing. */
export type LineVerdict =
  | { readonly status: 'entry'; readonly entry: LedgerEntry }
  | { readonly status: 'future-format'; readonly format: number }
  | { readonly status: 'malformed'; readonly reason: string }

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => (issue.path.length === 0 ? issue.message : `${issue.path.join('.')}: ${issue.message}`))
    .join('; ')
}

/**
 * Judges one line's text (no newline): JSON, then the envelope, then the format number, then the body of a known
 * kind, in the order VMark's reader judges them, so both quarantine the same lines.
 */
export function parseLedgerLine(text: string): LineVerdict {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    return { status: 'malformed', reason: `invalid JSON: ${(error as Error).message}` }
  }
  const fast = acceptedTransformation(value)
  if (fast !== undefined) return { status: 'entry', entry: fast as unknown as LedgerEntry }
  return judgeBySchemas(value)
}

/** The schemas' verdict on a parsed line: every line the fast path does not accept, and the fast path's oracle. */
export function judgeBySchemas(value: unknown): LineVerdict {
  const envelope = EnvelopeSchema.safeParse(value)
  if (!envelope.success) return { status: 'malformed', reason: `invalid envelope: ${describeIssues(envelope.error)}` }
  if (envelope.data.format > FORMAT_VERSION) return { status: 'future-format', format: envelope.data.format }
  const kind = envelope.data.kind
  if (!isKnownKind(kind)) return { status: 'entry', entry: envelope.data as UnknownKindEntry }
  const body = BODY_SCHEMAS[kind].safeParse(envelope.data.body)
  if (!body.success) return { status: 'malformed', reason: `invalid ${kind} body: ${describeIssues(body.error)}` }
  return { status: 'entry', entry: { ...envelope.data, body: body.data } as LedgerEntry }
}

/**
 * The readers' total order (spec §5.1): by the instant `time` names, then by `id`. De-duplication keeps the smallest;
 * "latest" is the largest. Times that are not RFC 3339 never reach here (such lines are malformed).
 */
export function compareEntryOrder(a: { readonly time: string; readonly id: string }, b: { readonly time: string; readonly id: string }): number {
  const at = rfc3339Nanoseconds(a.time) ?? 0n
  const bt = rfc3339Nanoseconds(b.time) ?? 0n
  if (at !== bt) return at < bt ? -1 : 1
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0
}
