/**
 * A fast path for the commonest ledger line, a well-formed format-0 `transformation` with lower-case UUIDs (95% of a
 * real ledger): checked by hand against exactly the rules of its zod schemas (entries.ts), without building zod's
 * copy. At spec §10 scale the schemas cost about 10 µs a line, most of a 200,000-entry read. Any line this does not
 * accept, for whatever reason, goes to the schemas, which judge it and word the refusal: this never refuses a line.
 * A property test holds the two to the same verdict and the same entry.
 */
import { isRfc3339 } from './time.js'

const LOWER_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const REVISION = /^rev1:[0-9a-f]{64}$/
const CONTENT_HASH = /^sha256:[0-9a-f]{64}$/
const ROLES: ReadonlySet<unknown> = new Set(['direct', 'contextual'])
const AGENTS: ReadonlySet<unknown> = new Set(['human', 'model', 'external', 'git'])
const CONFIDENCE: ReadonlySet<unknown> = new Set(['exact', 'inferred', 'unknown'])

type Loose = Record<string, unknown>

const isObject = (value: unknown): value is Loose => typeof value === 'object' && value !== null && !Array.isArray(value)
const isUuid = (value: unknown): boolean => typeof value === 'string' && LOWER_UUID.test(value)
const isRevision = (value: unknown): boolean => typeof value === 'string' && REVISION.test(value)
const isContentHash = (value: unknown): boolean => typeof value === 'string' && CONTENT_HASH.test(value)
const optionalString = (value: unknown): boolean => value === undefined || typeof value === 'string'

function isInput(value: unknown): boolean {
  return isObject(value) && isUuid(value.object) && isRevision(value.revision) && ROLES.has(value.role) && optionalString(value.kind)
}

function isOutput(value: unknown): boolean {
  if (!isObject(value) || !isUuid(value.object) || !isRevision(value.revision) || !isContentHash(value.content_hash)) return false
  const parents = value.parents
  return Array.isArray(parents) && parents.every(isRevision)
}

function isTransformationBody(body: unknown): boolean {
  if (!isObject(body)) return false
  const { inputs, outputs, agent, intent } = body
  if (!Array.isArray(inputs) || !inputs.every(isInput)) return false
  if (!Array.isArray(outputs) || outputs.length === 0 || !outputs.every(isOutput)) return false
  if (!isObject(agent) || !AGENTS.has(agent.type) || !optionalString(agent.id)) return false
  if (!isObject(intent) || typeof intent.kind !== 'string' || typeof intent.summary !== 'string') return false
  if (intent.prompt_hash !== undefined && !isContentHash(intent.prompt_hash)) return false
  return CONFIDENCE.has(body.confidence)
}

/**
 * The parsed JSON value as an entry when it is a transformation the schemas would accept unchanged, else undefined.
 * Unchanged: the schemas' only transformation of such a line is lower-casing UUIDs, which this requires already done.
 */
export function acceptedTransformation(value: unknown): Loose | undefined {
  if (!isObject(value) || value.kind !== 'transformation') return undefined
  const format = value.format
  if (format !== 0) return undefined
  if (!isUuid(value.id) || !isUuid(value.writer) || !isUuid(value.idem)) return undefined
  if (typeof value.time !== 'string' || !isRfc3339(value.time)) return undefined
  return isTransformationBody(value.body) ? value : undefined
}
