import { z } from 'zod'
import { CJK_TRANSFORM_KINDS, type CjkTransformKind } from '../../../core/text/cjk/transform.js'
import { defineTool } from '../defineTool.js'
import type { ReadResponse } from '../../../core/files/commands.js'
import { fittingEnd, MAX_OUTPUT_BYTES, RECOVERY, truncationEnvelope } from '../results.js'
import { addresses, id } from '../schemas.js'

const isTransformKind = (value: unknown): value is CjkTransformKind =>
  typeof value === 'string' && (CJK_TRANSFORM_KINDS as readonly string[]).includes(value)

/**
 * A read whose answer would pass the output bound. A part asked for (`offset`/`length`, our extension of VMark's
 * surface) is answered with as much of it as fits, saying where the next part starts. A whole read is answered with
 * VMark's truncation envelope, which this server extends with what a client needs to go on: the revision, the
 * text's length, and `nextOffset: 0` to read it in parts.
 */
function fitToBound(read: ReadResponse, whole: boolean): Record<string, unknown> {
  const size = (value: unknown) => Buffer.byteLength(JSON.stringify(value, null, 2), 'utf8')
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

/** `document`: read, write and transform a tab's whole text (DOC.READ.*, DOC.WRITE.*, DOC.TRANSFORM.*). */
export const documentTool = defineTool({
  name: 'document',
  title: 'Quire document read/write',
  description:
    'read {tabId?, offset?, length?} → {content, revision, filePath, kind, dirty} (with offset/length: that part of ' +
    'the text, with totalLength and nextOffset; a whole text too long for one answer says so, with its revision and ' +
    'nextOffset: 0 to read it in parts). write {tabId?, content, expected_revision?, save?} ' +
    'replaces the whole text (journaled first, applied as a minimal diff so the user\'s concurrent edits survive) ' +
    'and saves unless save: false. transform {tabId?, kind, expected_revision?} rewrites the text on the server ' +
    `(kind: ${CJK_TRANSFORM_KINDS.join(' | ')}; code, front matter, URLs, link targets and HTML are never touched), ` +
    'journaled like write, without saving; → {revision, applied, durable}, applied: false when there was nothing to ' +
    'change. write and transform take addresses: the comment ids (comments.list) the edit responds to. Always read first and pass the revision back as expected_revision; on STALE, re-read. Works on markdown ' +
    'and yaml-workflow tabs.',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  args: {
    tabId: id.optional(),
    content: z.string().optional(),
    kind: z.string().optional().describe(`transform only: ${CJK_TRANSFORM_KINDS.join(', ')}`),
    expected_revision: z.string().optional(),
    save: z.boolean().optional(),
    addresses,
    offset: z.number().int().nonnegative().optional().describe('read only (Quire extension): the first UTF-16 code unit of the part to read'),
    length: z.number().int().nonnegative().optional().describe('read only (Quire extension): how many UTF-16 code units to read from offset'),
  },
  actions: (action) => ({
    read: action({
      recovery: RECOVERY.documentRead,
      run: async (args, { services, caller }) => {
        const range = args.offset === undefined && args.length === undefined ? undefined : { offset: args.offset ?? 0, ...(args.length === undefined ? {} : { length: args.length }) }
        const read = await services.files.read(args.tabId, range, caller)
        return fitToBound(read, range === undefined)
      },
    }),
    // A missing content is a plain-string error whatever the tab (DOC.WRITE.2, ERR.3).
    write: action({
      required: ['content'],
      requiredHint: '(a string: the complete new text)',
      run: async (args, { services, caller }) => ({
        ...(await services.files.write(args.tabId, args.content, args.expected_revision, args.save ?? true, caller, args.addresses)),
      }),
    }),
    transform: action({
      refuse: (args) =>
        isTransformKind(args.kind)
          ? undefined
          : `document.transform needs kind, one of: ${CJK_TRANSFORM_KINDS.join(', ')} (got ${JSON.stringify(args.kind ?? null)})`,
      run: async (args, { services, caller }) => ({
        ...(await services.rewrites.transform(args.tabId, args.kind as CjkTransformKind, args.expected_revision, caller, args.addresses)),
      }),
    }),
  }),
})
