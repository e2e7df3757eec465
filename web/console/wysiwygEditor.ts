import { baseKeymap, chainCommands, exitCode, toggleMark } from 'prosemirror-commands'
import { keymap } from 'prosemirror-keymap'
import type { MarkType, NodeType, Schema } from 'prosemirror-model'
import { liftListItem, sinkListItem, splitListItem } from 'prosemirror-schema-list'
import { EditorState, Plugin, PluginKey, type Command } from 'prosemirror-state'
import { Decoration, DecorationSet, EditorView } from 'prosemirror-view'
import * as Y from 'yjs'
import { absolutePositionToRelativePosition, redo, undo, yCursorPlugin, ySyncPlugin, ySyncPluginKey, yUndoPlugin, yUndoPluginKey } from 'y-prosemirror'
import { ASSISTANT_ORIGIN } from './assistantEdits.js'
import { sourceRangeOf } from '../../core/markdown/sourceRange.js'
import { dataAttributes, watchEditorDom, type EditorContext, type EditorDeletion, type EditorHighlight, type MountedEditor } from './editor.js'
import { deletedTextElement } from './highlights/deletedText.js'
import { sourceToWysiwyg } from './highlights/sourceToWysiwyg.js'
import { markdownSchema } from './markdownSchema.js'

/** Yjs types to the ProseMirror nodes they render (y-prosemirror's type, not re-exported from its entry). */
type ProsemirrorMapping = Parameters<typeof absolutePositionToRelativePosition>[2]

/** What ySyncPlugin keeps in its state: the binding whose mapping ties Yjs types to ProseMirror nodes. */
interface SyncState {
  readonly binding: { readonly mapping: ProsemirrorMapping } | null
}

/** The marked ranges (assistants' changes, comment anchors): replaced by a meta, mapped through every other change. */
const highlightsKey = new PluginKey<DecorationSet>('quire-highlights')
const highlightsPlugin = new Plugin<DecorationSet>({
  key: highlightsKey,
  state: {
    init: () => DecorationSet.empty,
    apply: (transaction, set) => (transaction.getMeta(highlightsKey) as DecorationSet | undefined) ?? set.map(transaction.mapping, transaction.doc),
  },
  props: { decorations: (state) => highlightsKey.getState(state) },
})

/**
 * The WYSIWYG editor: ProseMirror on the shared Markdown schema, bound to the Y.XmlFragment `prosemirror` (the
 * mirror the server's bridge keeps in step with `source`), with remote cursors and a per-user undo history.
 */
export function mountWysiwygEditor(context: EditorContext): MountedEditor {
  const fragment = context.ydoc.getXmlFragment('prosemirror')
  const reportSelection = new Plugin({
    // Listed after ySyncPlugin: its view has mirrored this state into the fragment before this one reads the mapping.
    view: () => ({
      update(view, previous) {
        if (previous.selection.eq(view.state.selection) && previous.doc.eq(view.state.doc)) return
        publishSelection(view)
      },
    }),
  })
  const publishSelection = (view: EditorView) => {
    const sync = ySyncPluginKey.getState(view.state) as SyncState | undefined
    const mapping = sync?.binding?.mapping
    if (!mapping) return
    const { anchor, head } = view.state.selection
    const at = (pos: number): Y.RelativePosition => absolutePositionToRelativePosition(pos, fragment, mapping)
    context.presence.setSelection({ anchor: at(anchor), head: at(head) })
  }
  const view = new EditorView(context.parent, {
    state: EditorState.create({
      schema: markdownSchema,
      plugins: [
        ySyncPlugin(fragment),
        yCursorPlugin(context.awareness),
        // The person's own edits, and assistants' writes into this tab (each its own step, see assistantEdits.ts).
        yUndoPlugin({ trackedOrigins: [ASSISTANT_ORIGIN] }),
        keymap({ 'Mod-z': undo, 'Mod-y': redo, 'Shift-Mod-z': redo }),
        keymap(markKeys(markdownSchema)),
        keymap(listKeys(markdownSchema)),
        keymap(baseKeymap),
        reportSelection,
        highlightsPlugin,
      ],
    }),
    attributes: { class: 'wysiwyg', spellcheck: 'true' },
    dispatchTransaction(this: EditorView, transaction) {
      // y-prosemirror's cursor plugin queues a dispatch for the next turn on every awareness change and never drops
      // it when the view goes (its `isDestroyed` check reads a flag nothing sets): a switch to source mode right after
      // an awareness change would make that dispatch run on the destroyed view (`… reading 'matchesNode'`).
      if (this.isDestroyed) return
      this.updateState(this.state.apply(transaction))
    },
    handleDOMEvents: {
      // A click that only moves focus changes no state, so report the selection on focus too.
      focus: (view) => {
        queueMicrotask(() => publishSelection(view))
        return false
      },
    },
  })
  const unwatch = watchEditorDom(view.dom, context.presence)
  return {
    mode: 'wysiwyg',
    focus: () => view.focus(),
    selection: () => ({ anchor: view.state.selection.anchor, head: view.state.selection.head }),
    text: () => view.state.doc.textBetween(0, view.state.doc.content.size, '\n'),
    coordsAt: (pos) => (pos >= 0 && pos <= view.state.doc.content.size ? view.coordsAtPos(pos) : null),
    selectionInSource: (source) => sourceRangeOf(source, view.state.doc, view.state.selection.from, view.state.selection.to),
    undoManager: (yUndoPluginKey.getState(view.state) as { undoManager: Y.UndoManager } | undefined)?.undoManager,
    mapSource: (source) => sourceToWysiwyg(source, view.state.doc),
    setHighlights(marks: readonly EditorHighlight[], deletions: readonly EditorDeletion[] = []) {
      if (view.isDestroyed) return
      const size = view.state.doc.content.size
      const decorations = [
        ...marks
          .filter((mark) => mark.from < mark.to && mark.to <= size)
          .map((mark) => Decoration.inline(mark.from, mark.to, { class: mark.className, 'data-tip': mark.title, ...dataAttributes(mark.data) })),
        ...deletions
          .filter((deletion) => deletion.at <= size)
          .map((deletion) =>
            Decoration.widget(deletion.at, () => deletedTextElement(deletion), {
              side: -1,
              ignoreSelection: true,
              // The same deletion keeps its element across re-placements (no flicker under the pointer).
              key: `deleted:${JSON.stringify([deletion.data, deletion.text, deletion.title])}`,
            }),
          ),
      ]
      view.dispatch(view.state.tr.setMeta(highlightsKey, DecorationSet.create(view.state.doc, decorations)))
    },
    destroy() {
      unwatch()
      view.destroy()
    },
  }
}

/** Bold, italic and code marks, when the schema has them. */
function markKeys(schema: Schema): Record<string, Command> {
  const keys: Record<string, Command> = {}
  const bind = (key: string, mark: MarkType | undefined) => {
    if (mark) keys[key] = toggleMark(mark)
  }
  bind('Mod-b', schema.marks.strong)
  bind('Mod-i', schema.marks.em)
  bind('Mod-`', schema.marks.code)
  const hardBreak: NodeType | undefined = schema.nodes.hard_break
  if (hardBreak) {
    keys['Shift-Enter'] = chainCommands(exitCode, (state, dispatch) => {
      dispatch?.(state.tr.replaceSelectionWith(hardBreak.create()).scrollIntoView())
      return true
    })
  }
  return keys
}

/** Enter splits a list item, Tab and Shift-Tab nest and un-nest it. */
function listKeys(schema: Schema): Record<string, Command> {
  const item: NodeType | undefined = schema.nodes.list_item
  if (!item) return {}
  return { Enter: splitListItem(item), Tab: sinkListItem(item), 'Shift-Tab': liftListItem(item) }
}
