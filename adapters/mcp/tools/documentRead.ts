import { z } from 'zod'
import type { ReadRange, ReadResponse } from '../../../core/files/commands.js'
import type { LookupResponse, ReadLookup } from '../../../core/files/readLookups.js'
import { outlineTree } from '../../../core/markdown/outline.js'
import { MAX_SEARCH_LENGTH } from '../../../core/text/search/textSearch.js'
import type { ToolContext } from '../context.js'
import { fittingEnd, MAX_OUTPUT_BYTES, RECOVERY, truncationEnvelope } from '../results.js'

/** `document.read`'s own arguments beyond `tabId`: Quire's extensions of VMark's surface. */
export const readArgs = {
  offset: z.number().int().nonnegative().optional().describe('read only (Quire extension): the first UTF-16 code unit of the part to read'),
  length: z.number().int().nonnegative().optional().describe('read only (Quire extension): how many UTF-16 code units to read from offset'),
  outline: z.boolean().optional().describe('read only (Quire extension): answer the heading tree, each section\'s offset and length, instead of the text'),
  search: z
    .string()
    .min(1, 'must not be empty')
    .max(MAX_SEARCH_LENGTH)
    .optional()
    .describe('read only (Quire extension): answer where this text occurs (line, offset, length, context) instead of the text'),
  regex: z.boolean().optional().describe('read only (Quire extension): search is a JavaScript regular expression (flags g, m; u when valid)'),
}

interface ReadArgs {
  readonly tabId?: string
  readonly offset?: number
  readonly length?: number
  readonly outline?: boolean
  readonly search?: string
  readonly regex?: boolean
}

/** Combinations of the read arguments that ask for nothing sensible: plain-string refusals. */
export function readRefusal(args: ReadArgs): string | undefined {
  if (args.outline === true && args.search !== undefined) return 'document.read takes outline or search, not both'
  if (args.regex !== undefined && args.search === undefined) return 'document.read regex goes with search (the pattern): {search, regex: true}'
  return undefined
}

/** `document.read`: the text, a part of it, its outline or a search, each fitted to the output bound. */
export async function readDocument(args: ReadArgs, { services, caller }: ToolContext): Promise<Record<string, unknown>> {
  const range: ReadRange | undefined =
    args.offset === undefined && args.length === undefined ? undefined : { offset: args.offset ?? 0, ...(args.length === undefined ? {} : { length: args.length }) }
  const lookup: ReadLookup | undefined =
    args.outline === true ? { outline: true } : args.search !== undefined ? { search: args.search, regex: args.regex === true } : undefined
  if (lookup !== undefined) return fitLookup(await services.files.lookUp(args.tabId, lookup, range, caller))
  return fitToBound(await services.files.read(args.tabId, range, caller), range === undefined)
}

const size = (value: unknown): number => Buffer.byteLength(JSON.stringify(value, null, 2), 'utf8')

/**
 * A read whose answer would pass the output bound. A part asked for (`offset`/`length`, our extension of VMark's
 * surface) is answered with as much of it as fits, saying where the next part starts. A whole read is answered with
 * VMark's truncation envelope, which this server extends with what a client needs to go on: the revision, the
 * text's length, and `nextOffset: 0` to read it in parts.
 */
function fitToBound(read: ReadResponse, whole: boolean): Record<string, unknown> {
  // Serialized once: a large text's JSON is most of a big read's cost, and the envelope's preview is cut from it.
  const payload = JSON.stringify(read, null, 2)
  const payloadBytes = Buffer.byteLength(payload, 'utf8')
  if (payloadBytes <= MAX_OUTPUT_BYTES) return { ...read }
  const { content, ...meta } = read
  if (whole) {
    const extension = { ...meta, totalLength: content.length, nextOffset: 0 }
    const envelope = truncationEnvelope(payload, payloadBytes, RECOVERY.documentRead, MAX_OUTPUT_BYTES - size(extension))
    return { ...envelope, ...extension }
  }
  const offset = read.offset ?? 0
  const totalLength = read.totalLength ?? content.length
  const shell = { ...meta, content: '', offset, length: totalLength, totalLength, nextOffset: totalLength }
  const end = fittingEnd(content, 0, content.length, MAX_OUTPUT_BYTES - size(shell))
  const { nextOffset: _unbounded, ...rest } = shell
  return { ...rest, content: content.slice(0, end), length: end, ...(offset + end < totalLength ? { nextOffset: offset + end } : {}) }
}

/**
 * An outline or search answer: the headings as a tree, or the matches, as many of the page's as fit the output bound
 * (in document order); when some do not, `nextOffset` is where the first of them starts, so reading from there goes on.
 */
function fitLookup(answer: LookupResponse): Record<string, unknown> {
  const { outline, matches, nextOffset, ...head } = answer
  const entries: readonly { readonly offset: number }[] = outline ?? matches ?? []
  const shape = (count: number, next: number | undefined): Record<string, unknown> => ({
    ...head,
    ...(outline !== undefined ? { outline: outlineTree(outline.slice(0, count)) } : { matches: entries.slice(0, count) }),
    ...(next === undefined ? {} : { nextOffset: next }),
  })
  let count = entries.length
  let fitted = shape(count, nextOffset)
  // Each cut keeps the share of entries that fits, a little less, so it ends in a few steps; one entry always fits.
  for (let bytes = size(fitted); bytes > MAX_OUTPUT_BYTES && count > 1; bytes = size(fitted)) {
    count = Math.max(1, Math.min(count - 1, Math.floor((count * MAX_OUTPUT_BYTES * 0.95) / bytes)))
    fitted = shape(count, entries[count]!.offset)
  }
  return fitted
}
