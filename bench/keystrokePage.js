// The keystroke benchmark's reference page (bundled by bench/keystrokeBrowser.ts with esbuild): the console's own
// WYSIWYG or source editor, mounted on a plain y-websocket connection to a plain Yjs server, with none of the
// console around it (no bridge, no highlights, no panels). Query: ?ws=<server url>&room=<room>&mode=wysiwyg|source.
import { WebsocketProvider } from 'y-websocket'
import * as Y from 'yjs'
import { PresencePublisher } from '../web/console/presence.ts'
import { mountSourceEditor } from '../web/console/sourceEditor.ts'
import { mountWysiwygEditor } from '../web/console/wysiwygEditor.ts'

const query = new URLSearchParams(window.location.search)
const mode = query.get('mode') === 'source' ? 'source' : 'wysiwyg'
const ydoc = new Y.Doc()
const provider = new WebsocketProvider(query.get('ws'), query.get('room'), ydoc, { disableBc: true })
provider.awareness.setLocalStateField('user', { name: 'reference', color: '#888888' })
const presence = new PresencePublisher(provider.awareness, { window: 'main', tabId: 'reference' }, mode)
provider.once('sync', () => {
  const parent = document.getElementById('editor')
  const context = { ydoc, awareness: provider.awareness, presence, kind: 'markdown', parent }
  const mount = mode === 'source' ? mountSourceEditor : mountWysiwygEditor
  mount(context)
  window.keystrokeReady = true
})
