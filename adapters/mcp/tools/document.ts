import { z } from 'zod'
import { CJK_TRANSFORM_KINDS, type CjkTransformKind } from '../../../core/text/cjk/transform.js'
import { defineTool } from '../defineTool.js'
import { DOCUMENT_OUTPUTS } from './outputs/document.js'
import { RECOVERY } from '../results.js'
import { readArgs, readDocument, readRefusal } from './documentRead.js'
import { addresses, id } from '../schemas.js'

const isTransformKind = (value: unknown): value is CjkTransformKind =>
  typeof value === 'string' && (CJK_TRANSFORM_KINDS as readonly string[]).includes(value)

/** `document`: read, write and transform a tab's whole text (DOC.READ.*, DOC.WRITE.*, DOC.TRANSFORM.*). */
export const documentTool = defineTool({
  name: 'document',
  title: 'Quire document read/write',
  description:
    'read {tabId?, offset?, length?} → {content, revision, filePath, kind, dirty} (with offset/length: that part of ' +
    'the text, with totalLength and nextOffset; a whole text too long for one answer says so, with its revision and ' +
    'nextOffset: 0 to read it in parts). read {outline: true} → the heading tree, each {level, title, line, offset, ' +
    'length} of its section, instead of the text; read {search, regex?} → matches [{line, offset, length, context}]; ' +
    'both take offset/length as the range to look in and page with nextOffset. write {tabId?, content, expected_revision?, save?} ' +
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
    ...readArgs,
  },
  outputs: DOCUMENT_OUTPUTS,
  actions: (action) => ({
    read: action({
      recovery: RECOVERY.documentRead,
      refuse: readRefusal,
      run: readDocument,
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
