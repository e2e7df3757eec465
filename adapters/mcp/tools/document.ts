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
    'and saves unless save: false. write {edits: [{old_text, new_text, occurrence?}], dry_run?} instead of content ' +
    'changes only those places: each old_text must occur exactly once in the text (or give occurrence, 1-based), ' +
    'edits apply one after the other; EDIT_NOT_FOUND / EDIT_AMBIGUOUS name the edit and change nothing; dry_run: true ' +
    'answers the unified diff and the revision it was computed on, changing nothing. transform {tabId?, kind, expected_revision?} rewrites the text on the server ' +
    `(kind: ${CJK_TRANSFORM_KINDS.join(' | ')}; code, front matter, URLs, link targets and HTML are never touched), ` +
    'journaled like write, without saving; → {revision, applied, durable}, applied: false when there was nothing to ' +
    'change. write and transform take addresses: the comment ids (comments.list) the edit responds to. Always read first and pass the revision back as expected_revision; on STALE, re-read. Works on markdown ' +
    'and yaml-workflow tabs.',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  args: {
    tabId: id.optional(),
    content: z.string().optional(),
    edits: z
      .array(z.object({ old_text: z.string().min(1), new_text: z.string(), occurrence: z.int().positive().optional() }).strict())
      .min(1)
      .optional()
      .describe('write only, instead of content: the places to change, each old_text exactly as the text holds it'),
    dry_run: z.boolean().optional().describe('write with edits only: answer the diff, change nothing'),
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
    // A missing content is a plain-string error whatever the tab (DOC.WRITE.2, ERR.3), unless edits stand for it.
    write: action({
      refuse: (args) => {
        if (args.edits !== undefined && args.content !== undefined) return 'document.write takes content (the whole new text) or edits, not both'
        if (args.edits === undefined && args.content === undefined) return 'document.write needs content (a string: the complete new text), or edits'
        if (args.dry_run !== undefined && args.edits === undefined) return 'document.write takes dry_run only with edits'
        return undefined
      },
      run: async (args, { services, caller }) =>
        args.edits === undefined
          ? { ...(await services.files.write(args.tabId, args.content!, args.expected_revision, args.save ?? true, caller, args.addresses)) }
          : {
              ...(await services.files.writeEdits(
                args.tabId,
                args.edits,
                { expectedRevision: args.expected_revision, save: args.save ?? true, dryRun: args.dry_run === true, addresses: args.addresses },
                caller,
              )),
            },
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
