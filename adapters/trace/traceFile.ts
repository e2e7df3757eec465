import { readFile } from 'node:fs/promises'
import { gunzipSync } from 'node:zlib'
import { z } from 'zod'

/**
 * josephg's editing traces (github.com/josephg/editing-traces): gzip'd JSON, one transaction per recorded edit,
 * each a list of patches `[position, deleteCount, insertText]` in Unicode code points. Sequential traces replay in
 * order on one document; concurrent traces name the transactions each one was made on top of (`parents`).
 */
const patch = z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative(), z.string()])

const sequential = z.object({
  startContent: z.string(),
  endContent: z.string(),
  txns: z.array(z.object({ patches: z.array(patch) })),
})

const concurrent = z.object({
  kind: z.literal('concurrent'),
  endContent: z.string(),
  numAgents: z.number().int().positive(),
  txns: z.array(
    z.object({
      parents: z.array(z.number().int().nonnegative()),
      agent: z.number().int().nonnegative(),
      patches: z.array(patch),
    }),
  ),
})

export type Patch = z.infer<typeof patch>

export type Trace =
  | { readonly kind: 'sequential'; readonly startContent: string; readonly endContent: string; readonly txns: { patches: Patch[] }[] }
  | {
      readonly kind: 'concurrent'
      readonly endContent: string
      readonly numAgents: number
      readonly txns: { parents: number[]; agent: number; patches: Patch[] }[]
    }

export class TraceFormatError extends Error {
  override name = 'TraceFormatError'
}

export function parseTrace(bytes: Uint8Array): Trace {
  let json: unknown
  try {
    const raw = bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(raw))
  } catch (error) {
    throw new TraceFormatError(`not a gzip'd JSON editing trace: ${(error as Error).message}`)
  }
  const isConcurrent = typeof json === 'object' && json !== null && (json as { kind?: unknown }).kind === 'concurrent'
  const result = isConcurrent ? concurrent.safeParse(json) : sequential.safeParse(json)
  if (!result.success) throw new TraceFormatError(`not an editing trace: ${result.error.issues[0]?.message ?? 'invalid'}`)
  if (isConcurrent) {
    const trace = result.data as z.infer<typeof concurrent>
    trace.txns.forEach((txn, index) => {
      if (txn.parents.some((parent) => parent >= index)) {
        throw new TraceFormatError(`transaction ${index} names a parent that does not come before it`)
      }
    })
    return { kind: 'concurrent', endContent: trace.endContent, numAgents: trace.numAgents, txns: trace.txns }
  }
  const trace = result.data as z.infer<typeof sequential>
  return { kind: 'sequential', startContent: trace.startContent, endContent: trace.endContent, txns: trace.txns }
}

export async function readTrace(path: string): Promise<Trace> {
  return parseTrace(await readFile(path))
}
