import type { Tool as ListedTool } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'

/**
 * A tool's `outputSchema` (issue 27 item 4): what its `structuredContent` holds, so a client that validates gets
 * exactly that. Besides each action's success it admits the two other shapes every answer may take (results.ts): the
 * truncation envelope an answer over the output bound becomes, and the error envelope `{error, message, ...}` (the
 * TypeScript SDK 1.x client validates error results too, and would otherwise throw instead of showing the refusal).
 * Plain-string errors carry no structured content and so meet no schema.
 */

/** VMark's truncation envelope, as `truncationEnvelope` makes it. */
export const truncationOutput = z.object({
  truncated: z.literal(true),
  truncation_note: z.string(),
  bytes_total: z.number(),
  bytes_shown: z.number(),
  preview: z.string(),
})

/** A domain refusal, a browser refusal (`data`) and INTERNAL: a code and a sentence, then the code's own fields. */
export const errorOutput = z.looseObject({ error: z.string(), message: z.string() })

/**
 * The JSON Schema of a tool whose actions answer `outputs`: one object schema, `anyOf` the distinct shapes, in the
 * JSON Schema dialect the SDK renders input schemas in (draft-07).
 */
export function outputSchemaOf(outputs: readonly z.ZodType[]): NonNullable<ListedTool['outputSchema']> {
  const shapes = [...new Set(outputs)]
  const union = z.union([...shapes, truncationOutput, errorOutput] as unknown as [z.ZodType, z.ZodType, ...z.ZodType[]])
  const { $schema, ...rendered } = z.toJSONSchema(union, { target: 'draft-7', io: 'output', unrepresentable: 'any' }) as Record<string, unknown>
  return withoutSafeIntegerBounds({ $schema, type: 'object', ...rendered }) as NonNullable<ListedTool['outputSchema']>
}

const SAFE_INTEGER_BOUNDS = new Set([Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER])

/** zod states every integer's safe range; it says nothing a client needs and would be a fifth of the schema. */
function withoutSafeIntegerBounds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSafeIntegerBounds)
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key, inner]) => !((key === 'minimum' || key === 'maximum') && SAFE_INTEGER_BOUNDS.has(inner as number)))
      .map(([key, inner]) => [key, withoutSafeIntegerBounds(inner)]),
  )
}
