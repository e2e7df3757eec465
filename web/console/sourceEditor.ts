import { defaultKeymap, indentWithTab } from '@codemirror/commands'
import { markdown } from '@codemirror/lang-markdown'
import { yaml } from '@codemirror/lang-yaml'
import { EditorState } from '@codemirror/state'
import { EditorView, drawSelection, highlightActiveLine, keymap, lineNumbers } from '@codemirror/view'
import { yCollab, yUndoManagerKeymap } from 'y-codemirror.next'
import * as Y from 'yjs'
import { watchEditorDom, type EditorContext, type MountedEditor } from './editor.js'

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
    destroy() {
      unwatch()
      view.destroy()
      undoManager.destroy()
    },
  }
}
