import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { USER } from '../../core/events/actor.js'
import { openWorkspaceAsPerson, type Caller } from '../../core/workspace/commands.js'
import { openQuire, type Quire } from '../../adapters/host/quire.js'
import { consoleFileRoutes } from '../../adapters/http/consoleFiles.js'

const PERSON: Caller = { actor: USER, connection: 'person', principal: null }

/**
 * The console's save waits for what the person's editor held when they pressed Ctrl+S: their last keystrokes travel
 * on the collaboration socket, the save on an HTTP request that can overtake them (adapters/http/consoleFiles.ts).
 */
describe('console save catches up with the editor', () => {
  let base: string
  let quire: Quire

  beforeEach(async () => {
    base = await realpath(await mkdtemp(join(tmpdir(), 'quire-save-catchup-')))
    await mkdir(join(base, 'ws'))
    await writeFile(join(base, 'ws', 'a.md'), 'Alpha.\n')
    quire = await openQuire(join(base, 'home'), { watchDisk: false })
    await openWorkspaceAsPerson(quire.services.engine.store, quire.services.engine.views.workspace, join(base, 'ws'), USER)
  })
  afterEach(async () => {
    await quire.close()
    await rm(base, { recursive: true, force: true })
  })

  it('a save that names keystrokes the daemon has not received yet waits for them, then writes them', async () => {
    const { services } = quire
    const { tabId } = await services.files.open(join(base, 'ws', 'a.md'), undefined, PERSON)
    const docId = services.engine.views.workspace.state.tabs.get(tabId)!.docId
    // The person's editor: a copy of the document, then a keystroke not yet sent.
    const editor = new Y.Doc()
    Y.applyUpdate(editor, Y.encodeStateAsUpdate((await services.engine.documents.get(docId))!.ydoc))
    const before = Y.encodeStateVector(editor)
    editor.getText('source').insert('Alpha.'.length, ' Typed')
    const keystroke = Y.encodeStateAsUpdate(editor, before)
    const stateVector = Buffer.from(Y.encodeStateVector(editor)).toString('base64')

    const app = consoleFileRoutes(services)
    const saving = app.request(`/tabs/${tabId}/save`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ stateVector }) })
    // Time for a save that did not wait to overtake the keystroke (it would write the text without it).
    await new Promise((resolve) => setTimeout(resolve, 100))

    await services.documents.applyPeerUpdates(docId, [keystroke], { kind: 'peer', peer: 'console' })
    const response = await saving
    expect(response.status).toBe(200)
    expect(await readFile(join(base, 'ws', 'a.md'), 'utf8')).toBe('Alpha. Typed\n')
    editor.destroy()
  })

  it('a malformed state vector is refused before anything is saved', async () => {
    const { services } = quire
    const { tabId } = await services.files.open(join(base, 'ws', 'a.md'), undefined, PERSON)
    const response = await consoleFileRoutes(services).request(`/tabs/${tabId}/save`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ stateVector: Buffer.from([0xff, 0xff, 0xff]).toString('base64') }),
    })
    expect(response.status).toBe(400)
    expect(((await response.json()) as { error: string }).error).toBe('INVALID_ARGUMENT')
  })
})
