import { defaultKeymap, indentWithTab } from '@codemirror/commands'
import { markdown } from '@codemirror/lang-markdown'
import { yaml } from '@codemirror/lang-yaml'
import { EditorState, StateEffect, StateField } from '@codemirror/state'
import { Decoration, EditorView, WidgetType, drawSelection, highlightActiveLine, keymap, lineNumbers, type DecorationSet } from '@codemirror/view'
import { yCollab, yUndoManagerKeymap } from 'y-codemirror.next'
import * as Y from 'yjs'
import { dataAttributes, watchEditorDom, type EditorContext, type EditorDeletion, type EditorHighlight, type MountedEditor } from './editor.js'
import { deletedTextElement, sameDeletion } from './highlights/deletedText.js'

/** Replaces the marked ranges; between replacements they move with the text. */
const replaceHighlights = StateEffect.define<DecorationSet>()
const highlights = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(value, transaction) {
    let next = value.map(transaction.changes)
    for (const effect of transaction.effects) if (effect.is(replaceHighlights)) next = effect.value
    return next
  },
  provide: (field) => EditorView.decorations.from(field),
})

/** Text an assistant's pending change deleted, drawn where it was. */
class DeletedText extends WidgetType {
  constructor(private readonly deletion: EditorDeletion) {
    super()
  }

  override eq(other: DeletedText): boolean {
    return sameDeletion(this.deletion, other.deletion)
  }

  toDOM(): HTMLElement {
    return deletedTextElement(this.deletion)
  }
}

/** The source editor's positions are offsets of `source` itself. */
const IDENTITY = { position: (index: number) => index }

/**
 * The source editor: CodeMirror 6 bound to the Y.Text `source` (the canonical content) through yCollab, which also
 * draws the other peers' cursors and keeps the undo history per user. Markdown or YAML highlighting by kind.
 */
export function mountSourceEditor(context: EditorContext): MountedEditor {
  const ytext = context.ydoc.getText('source')
  const undoManager = new Y.UndoManager(ytext)
  const reportSelection = EditorView.updateListener.of((update) => {
    if (!update.selectionSet && !update.focusChanged && !update.docChanged) return
    const { anchor, head } = update.state.selection.main
    // yCollab has applied this update to the Y.Text already (its plugin runs before update listeners).
    const at = (index: number) => Y.createRelativePositionFromTypeIndex(ytext, Math.min(index, ytext.length))
    context.presence.setSelection({ anchor: at(anchor), head: at(head) })
  })
  const view = new EditorView({
    parent: context.parent,
    state: EditorState.create({
      doc: ytext.toString(),
      extensions: [
        lineNumbers(),
        drawSelection(),
        highlightActiveLine(),
        EditorView.lineWrapping,
        keymap.of([...yUndoManagerKeymap, ...defaultKeymap, indentWithTab]),
        context.kind === 'yaml-workflow' ? yaml() : markdown(),
        yCollab(ytext, context.awareness, { undoManager }),
        reportSelection,
        highlights,
      ],
    }),
  })
  const unwatch = watchEditorDom(view.dom, context.presence)
  return {
    mode: 'source',
    focus: () => view.focus(),
    selection: () => ({ anchor: view.state.selection.main.anchor, head: view.state.selection.main.head }),
    // The source editor edits `source` itself: its selection is already a range of it.
    selectionInSource: () => ({ from: view.state.selection.main.from, to: view.state.selection.main.to }),
    text: () => view.state.doc.toString(),
    coordsAt: (pos) => view.coordsAtPos(pos),
    // The editor's text is `source` itself: source offsets are its positions.
    mapSource: (source) => (source.length === view.state.doc.length ? IDENTITY : null),
    setHighlights(marks: readonly EditorHighlight[], deletions: readonly EditorDeletion[] = []) {
      const length = view.state.doc.length
      const ranges = [
        ...marks
          .filter((mark) => mark.from < mark.to && mark.to <= length)
          .map((mark) => Decoration.mark({ class: mark.className, attributes: { 'data-tip': mark.title, ...dataAttributes(mark.data) } }).range(mark.from, mark.to)),
        ...deletions.filter((deletion) => deletion.at <= length).map((deletion) => Decoration.widget({ widget: new DeletedText(deletion), side: -1 }).range(deletion.at)),
      ]
      view.dispatch({ effects: replaceHighlights.of(Decoration.set(ranges, true)) })
    },
    destroy() {
      unwatch()
      view.destroy()
      undoManager.destroy()
    },
  }
}
