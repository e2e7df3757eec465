import { z } from 'zod'
import { QuireError } from '../errors.js'

/**
 * The eight IRPatch kinds `workflow.apply_patch` accepts (TOOLS.md §5.1, WF.APPLY_PATCH.3), as VMark's MCP layer
 * accepts them. VMark's library union also has UI-only kinds (job.create, step.move, ...) that MCP rejects; so do we.
 *
 * `path` is a dotted string (`env.NODE_VERSION`, `strategy.matrix.os`) or, for keys that contain a dot, an array of
 * segments (`["env", "a.b"]`). A segment that addresses a sequence is a non-negative integer index.
 */

/** The trigger filters `trigger.setFilters` may replace: GitHub's event filters (VMark's list plus `workflows`). */
export const TRIGGER_FILTERS = ['branches', 'branches-ignore', 'tags', 'tags-ignore', 'paths', 'paths-ignore', 'types', 'workflows'] as const

const name = z.string({ error: 'must be a non-empty string' }).min(1, { error: 'must be a non-empty string' })
const stepIndex = z.int({ error: 'must be a non-negative integer' }).min(0, { error: 'must be a non-negative integer' })
const pathMessage = 'must be a dotted path of non-empty keys (or an array of non-empty keys)'
const path = z.union(
  [
    z.string().refine((value) => value.length > 0 && value.split('.').every((segment) => segment.length > 0), { error: pathMessage }),
    z.array(z.string().min(1, { error: pathMessage })).min(1, { error: pathMessage }),
  ],
  { error: pathMessage },
)
const scalarMessage = 'must be a string, number, boolean or null'
const valueMessage = 'must be a string, number, boolean, null or an array of strings'
const finite = (error: string) => z.number().refine(Number.isFinite, { error })
const scalar = z.union([z.string(), finite(scalarMessage), z.boolean(), z.null()], { error: scalarMessage })
const value = z.union([z.string(), finite(valueMessage), z.boolean(), z.null(), z.array(z.string(), { error: valueMessage })], { error: valueMessage })
const filter = z.enum(TRIGGER_FILTERS, { error: `must be one of ${TRIGGER_FILTERS.join(', ')}` })
const filterValues = z.array(z.string(), { error: 'must be an array of strings' })

export const workflowSetSchema = z.strictObject({ kind: z.literal('workflow.set'), path, value })
export const jobSetSchema = z.strictObject({ kind: z.literal('job.set'), jobId: name, path, value })
export const stepSetSchema = z.strictObject({ kind: z.literal('step.set'), jobId: name, stepIndex, path, value })
export const withSetSchema = z.strictObject({ kind: z.literal('with.set'), jobId: name, stepIndex, key: name, value: scalar })
export const withRemoveSchema = z.strictObject({ kind: z.literal('with.remove'), jobId: name, stepIndex, key: name })
export const needsAddSchema = z.strictObject({ kind: z.literal('needs.add'), jobId: name, ref: name })
export const needsRemoveSchema = z.strictObject({ kind: z.literal('needs.remove'), jobId: name, ref: name })
export const triggerSetFiltersSchema = z.strictObject({ kind: z.literal('trigger.setFilters'), event: name, filter, value: filterValues })

const schemas = {
  'workflow.set': workflowSetSchema,
  'job.set': jobSetSchema,
  'step.set': stepSetSchema,
  'with.set': withSetSchema,
  'with.remove': withRemoveSchema,
  'needs.add': needsAddSchema,
  'needs.remove': needsRemoveSchema,
  'trigger.setFilters': triggerSetFiltersSchema,
} as const

export const PATCH_KINDS = Object.keys(schemas) as readonly IRPatch['kind'][]

export const irPatchSchema = z.discriminatedUnion('kind', [
  workflowSetSchema,
  jobSetSchema,
  stepSetSchema,
  withSetSchema,
  withRemoveSchema,
  needsAddSchema,
  needsRemoveSchema,
  triggerSetFiltersSchema,
])

export type IRPatch = z.infer<typeof irPatchSchema>
export type PatchValue = z.infer<typeof value>
export type PatchPath = z.infer<typeof path>

const isKind = (kind: unknown): kind is IRPatch['kind'] => typeof kind === 'string' && Object.hasOwn(schemas, kind)

/**
 * Validates the `patches` argument of `workflow.apply_patch` (WF.APPLY_PATCH.10) with VMark's messages for the
 * array, the elements and `kind`, and a message naming the first bad field otherwise. Throws INVALID_PATCH; an empty
 * array is valid (it changes nothing).
 */
export function parsePatches(input: unknown): IRPatch[] {
  if (!Array.isArray(input)) throw invalid('patches must be an array')
  return input.map((element: unknown, index) => {
    const at = `patches[${index}]`
    if (typeof element !== 'object' || element === null || Array.isArray(element)) throw invalid(`${at} must be an object`)
    const kind: unknown = (element as { kind?: unknown }).kind
    if (!isKind(kind)) throw invalid(`${at}.kind is missing or invalid: ${describe(kind)}`)
    const parsed = schemas[kind].safeParse(element)
    if (parsed.success) return parsed.data
    const issue = parsed.error.issues[0]!
    if (issue.code === 'unrecognized_keys') {
      throw invalid(`${at} has unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((key) => `"${key}"`).join(', ')} for kind ${kind}`)
    }
    const field = issue.path.map(String).join('.')
    const missing = issue.path.length === 1 && !Object.hasOwn(element, issue.path[0] as PropertyKey)
    throw invalid(missing ? `${at}.${field} is missing` : `${at}.${field} ${issue.message}`)
  })
}

function describe(kind: unknown): string {
  if (kind === undefined) return 'undefined'
  return typeof kind === 'string' ? kind : JSON.stringify(kind) ?? String(kind)
}

const invalid = (message: string): QuireError => new QuireError('INVALID_PATCH', message)
