import { z } from 'zod'
import { defineTool } from '../defineTool.js'
import { SELECTION_OUTPUTS } from './outputs/selection.js'
import { addresses, id } from '../schemas.js'

/** `selection`: the person's selection in the editor rendering the focused tab (TOOLS.md §6, SEL.*). */
export const selectionTool = defineTool({
  name: 'selection',
  title: 'Quire selection',
  description:
    'The person\'s current selection in the editor showing the focused tab (NO_EDITOR when none does). get {tabId?} ' +
    '→ {text, isEmpty, range: {from, to}, mode, kind, tabId, revision}: in wysiwyg mode range is in ProseMirror ' +
    'positions and text is the Markdown of the selected slice; in source mode character offsets and the raw text. ' +
    'set {tabId?, content, expected_revision?} replaces what is selected when the call runs (journaled like ' +
    'document.write, not saved) → {revision, replaced_chars, applied, durable}; in wysiwyg mode Markdown in content ' +
    'becomes formatted nodes and plain text is inserted literally; empty content deletes the selection. BUSY while ' +
    'the person composes with an input method: retry shortly. Costs tokens in proportion to the selection, not the document.',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  args: {
    tabId: id.optional(),
    content: z.string().optional(),
    expected_revision: z.string().optional(),
    addresses,
  },
  outputs: SELECTION_OUTPUTS,
  actions: (action) => ({
    get: action({
      run: async (args, { services, caller }) => ({ ...(await services.selection.get(args.tabId, caller)) }),
    }),
    set: action({
      required: ['content'],
      requiredHint: '(a string: what replaces the selection; "" deletes it)',
      run: async (args, { services, caller }) => ({
        ...(await services.selection.set(args.tabId, args.content, args.expected_revision, caller, args.addresses)),
      }),
    }),
  }),
})
