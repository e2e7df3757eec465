import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { isQuireError } from '../../core/errors.js'
import { EventStoreError } from '../../core/log/errors.js'

/**
 * How tool outcomes reach the model (DESIGN §10, TOOLS.md §12.1): success is JSON text plus the same object as
 * `structuredContent`; a domain refusal is `isError` with the envelope `{error, message, ...}` as text and as
 * `structuredContent`; argument-shape errors, WRITE_BUSY and coherence TIMEOUT are `isError` plain strings.
 * Anything over 75,000 UTF-8 bytes becomes VMark's truncation envelope.
 */
export const MAX_OUTPUT_BYTES = 75_000
const BYTES_PER_TOKEN = 3

/** Codes delivered as plain strings, not envelopes (ERR.4). */
const PLAIN_STRING_CODES = new Set(['WRITE_BUSY', 'TIMEOUT', 'INVALID_ARGUMENT'])

export const RECOVERY = {
  default: 'narrow the request (a smaller scope, a specific tab) and call again',
  documentRead:
    'do not write back from this read — the unread remainder would be destroyed. Read it in parts with ' +
    'document.read {offset, length} (each part carries the revision and nextOffset), or ask the user to select the ' +
    'region you need and use selection.get, or edit with selection.set',
  sessionGetState: 'close tabs you do not need, or ask the user which window matters',
} as const

export function success(data: Record<string, unknown>, recovery: string = RECOVERY.default): CallToolResult {
  return bounded(data, false, recovery)
}

/**
 * A success serialized without indentation: for answers that are long lists of small records (the browser's page
 * reads), where indentation alone would take a third of the output bound and of the assistant's context.
 */
export function compactSuccess(data: Record<string, unknown>, recovery: string = RECOVERY.default): CallToolResult {
  return bounded(data, false, recovery, 0)
}

/** A domain refusal: the envelope, as text and as structured content (ERR.1–2). */
export function envelope(code: string, message: string, details: Record<string, unknown> = {}): CallToolResult {
  return bounded({ error: code, message, ...details }, true, RECOVERY.default)
}

/** An argument-shape error or a plain-string domain code (ERR.3–4). */
export function plainError(message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: boundText(message) }] }
}

/**
 * Maps whatever a core command threw. Known domain codes become envelopes (or plain strings where the spec says
 * so); anything else is an unexpected failure: INTERNAL (GEN.9), with `applied`/`current_revision` when the
 * caller knows the edit landed (JRNL.13).
 */
export function fromError(error: unknown, internalDetails: Record<string, unknown> = {}): CallToolResult {
  if (isQuireError(error)) {
    if (PLAIN_STRING_CODES.has(error.code)) return plainError(error.message)
    return envelope(error.code, error.message, { ...error.details })
  }
  // The store could not be reached (PostgreSQL down or restarting): still INTERNAL, the spec's code for a read that
  // failed, but not "unexpected", and said to be worth retrying, since the same call succeeds once it is back.
  if (error instanceof EventStoreError && error.code === 'LOG_UNREACHABLE') {
    return envelope('INTERNAL', error.message, { ...internalDetails, reason: 'log-unreachable', retryable: true })
  }
  const message = error instanceof Error ? error.message : String(error)
  return envelope('INTERNAL', `unexpected error: ${message}`, internalDetails)
}

function bounded(data: Record<string, unknown>, isError: boolean, recovery: string, indent = 2): CallToolResult {
  const text = JSON.stringify(data, null, indent)
  const bytes = Buffer.byteLength(text, 'utf8')
  if (bytes <= MAX_OUTPUT_BYTES) return { isError, content: [{ type: 'text', text }], structuredContent: data }
  const truncation = truncationEnvelope(text, bytes, recovery)
  return { isError, content: [{ type: 'text', text: JSON.stringify(truncation, null, 2) }], structuredContent: truncation }
}

/**
 * VMark's truncation envelope (research/vmark.md §1.6): the preview is the longest prefix, cut on a code point
 * boundary with a trailing zero-width joiner dropped, for which the serialized envelope still fits the bound. The
 * preview's cost in the envelope (its bytes once JSON-escaped) is summed once over the text, so finding the cut is
 * linear, not a re-serialization per guess.
 */
export function truncationEnvelope(text: string, bytesTotal: number, recovery: string, budget = MAX_OUTPUT_BYTES): Record<string, unknown> {
  const make = (preview: string, shown: number) => ({
    truncated: true,
    truncation_note:
      `=== [Quire MCP] OUTPUT TRUNCATED === The payload is ${bytesTotal} UTF-8 bytes, over the ${MAX_OUTPUT_BYTES}-byte bound ` +
      `(~${MAX_OUTPUT_BYTES / BYTES_PER_TOKEN} tokens at ~${BYTES_PER_TOKEN} bytes/token). \`preview\` holds the first ` +
      `${shown} bytes of the JSON payload and WILL NOT PARSE as JSON. DO NOT RETRY THIS CALL ` +
      `UNCHANGED — it will be truncated again. To get the rest: ${recovery}.`,
    bytes_total: bytesTotal,
    bytes_shown: shown,
    preview,
  })
  const serializedBytes = (preview: string) => Buffer.byteLength(JSON.stringify(make(preview, Buffer.byteLength(preview, 'utf8')), null, 2), 'utf8')
  // The envelope without a preview, with the widest `bytes_shown` it could carry (counted twice: note and field).
  const fixed = serializedBytes('') + 2 * String(bytesTotal).length
  let used = fixed
  let cut = 0
  for (let index = 0; index < text.length; ) {
    const code = text.codePointAt(index)!
    const width = code > 0xffff ? 2 : 1
    const cost = escapedBytes(code)
    if (used + cost > budget) break
    used += cost
    index += width
    cut = index
  }
  let preview = text.slice(0, cut)
  if (preview.endsWith('\u200d')) preview = preview.slice(0, -1)
  return make(preview, Buffer.byteLength(preview, 'utf8'))
}

/**
 * The end (≤ `end`) of the longest part of `text` from `offset` whose JSON-escaped UTF-8 bytes fit in `budget`, cut on
 * a code point boundary: how a paged read keeps its answer under the output bound.
 */
export function fittingEnd(text: string, offset: number, end: number, budget: number): number {
  let used = 0
  let index = offset
  while (index < end) {
    const code = text.codePointAt(index)!
    const width = code > 0xffff ? 2 : 1
    used += escapedBytes(code)
    if (used > budget) break
    index += width
  }
  return index
}

/** Bytes a code point takes inside a JSON string literal, as JSON.stringify writes it, in UTF-8. */
function escapedBytes(code: number): number {
  if (code === 0x22 || code === 0x5c) return 2
  if (code < 0x20) return code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d ? 2 : 6
  if (code < 0x80) return 1
  if (code < 0x800) return 2
  if (code >= 0xd800 && code <= 0xdfff) return 6
  return code < 0x10000 ? 3 : 4
}

function boundText(text: string): string {
  if (Buffer.byteLength(text, 'utf8') <= MAX_OUTPUT_BYTES) return text
  return Array.from(text).slice(0, 20_000).join('') + ' … [truncated]'
}
