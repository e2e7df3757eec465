/**
 * Read-only peers do not drive presence (issue 11, finding 5). An agent's `/collab` connection is read-only; what
 * its awareness claims (an IME composition, a focused WYSIWYG editor, a focused window) must not make the write path
 * answer BUSY, re-serialize another writer's bytes, or tell `get_state` a window has focus. Nor is it relayed to
 * the person's editors, and an agent cannot claim another connection's label.
 */
import { readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import * as encoding from 'lib0/encoding'
import * as Y from 'yjs'
import type { WebsocketProvider } from 'y-websocket'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { decideAccess } from '../../adapters/collab/access.js'
import { PRESENCE_FIELD, type EditorPresenceState } from '../../core/presence/editorPresence.js'
import { USER } from '../../core/events/actor.js'
import { editorPeer, type EditorPeer } from '../support/editorPeer.js'
import { peer, type Peer } from '../support/collabPeers.js'
import { ok, real, within } from '../support/faultSession.js'
import { tempDir } from '../support/mcpHarness.js'
import { presenceRig, type PresenceRig } from '../support/presenceRig.js'

/**
 * Resolves once the server has handled every message `provider` sent before this call: it sends a SyncStep1 on the
 * same socket and waits for the server's SyncStep2 answer (a socket's messages are handled in order).
 */
async function serverCaughtUp(provider: WebsocketProvider): Promise<void> {
  const ws = provider.ws as unknown as {
    send(data: Uint8Array): void
    addEventListener(type: 'message', listener: (event: { data: ArrayBuffer }) => void): void
    removeEventListener(type: 'message', listener: (event: { data: ArrayBuffer }) => void): void
  }
  const encoder = encoding.createEncoder()
  encoding.writeVarUint(encoder, 0)
  encoding.writeVarUint(encoder, 0)
  encoding.writeVarUint8Array(encoder, Y.encodeStateVector(provider.doc))
  const answered = new Promise<void>((resolve) => {
    const listener = (event: { data: ArrayBuffer }) => {
      const bytes = new Uint8Array(event.data)
      if (bytes[0] !== 0 || bytes[1] !== 1) return
      ws.removeEventListener('message', listener)
      resolve()
    }
    ws.addEventListener('message', listener)
  })
  ws.send(encoding.toUint8Array(encoder))
  await within(10_000, 'the server to answer a SyncStep1', answered)
}

describe('read-only connections and presence', () => {
  let T: string
  let n = 0
  const rigs: PresenceRig[] = []
  const opened: (EditorPeer | Peer)[] = []

  beforeAll(async () => {
    T = await real(await tempDir('quire-readonly-presence-'))
  })
  afterEach(async () => {
    for (const each of opened.splice(0)) 'close' in each ? each.close() : each.destroy()
    for (const rig of rigs.splice(0)) await rig.close()
  })
  afterAll(async () => {
    await rm(T, { recursive: true, force: true })
  })

  /** A rig with one file open in the front tab, and an agent's read-only editor on it publishing `claims`. */
  async function withFakeEditor(text: string, claims: Partial<EditorPresenceState>) {
    const rig = await presenceRig(join(T, `ws${++n}`), text)
    rigs.push(rig)
    const agentToken = await rig.session.quire.services.agents.add('mallory', USER)
    const fake = editorPeer(rig.http.url, agentToken, rig.docId, { tabId: rig.tabId, focused: true, ...claims })
    opened.push(fake)
    await within(10_000, "the agent's peer to sync", fake.synced())
    fake.select(0, 1)
    await serverCaughtUp(fake.provider)
    return { rig, fake }
  }

  it("an agent's fake IME composition does not make another writer's document.write answer BUSY", async () => {
    const { rig } = await withFakeEditor('hello world\n', { composing: true })
    for (let attempt = 0; attempt < 10; attempt++) {
      ok(await rig.session.call('document', { action: 'write', tabId: rig.tabId, content: `write ${attempt}\n`, save: false }))
    }
    expect(rig.session.quire.services.presence.forTab(rig.tabId)).toEqual([])
    expect((ok(await rig.session.call('document', { action: 'read', tabId: rig.tabId })) as { content: string }).content).toBe('write 9\n')
  })

  it("an agent's fake focused WYSIWYG editor does not re-serialize another writer's bytes", async () => {
    const { rig } = await withFakeEditor('plain\n', { mode: 'wysiwyg' })
    ok(await rig.session.call('document', { action: 'write', tabId: rig.tabId, content: '__strong__ and _em_\n' }))
    expect(await readFile(rig.file, 'utf8')).toBe('__strong__ and _em_\n')
  })

  it("an agent's fake focus does not make get_state report the window focused", async () => {
    const { rig } = await withFakeEditor('hello\n', { focused: true })
    const state = ok(await rig.session.call('session', { action: 'get_state' })) as { windows: { label: string; focused: boolean }[] }
    expect(state.windows.find((window) => window.label === 'main')!.focused).toBe(false)
  })

  it("an agent's awareness is not relayed: the person's editor and a newly joining peer never see it", async () => {
    const rig = await presenceRig(join(T, `ws${++n}`), 'shared\n')
    rigs.push(rig)
    const person = await rig.attach()
    opened.push(person)
    const agentToken = await rig.session.quire.services.agents.add('mallory', USER)
    const fake = editorPeer(rig.http.url, agentToken, rig.docId, { tabId: rig.tabId, composing: true })
    opened.push(fake)
    await within(10_000, "the agent's peer to sync", fake.synced())
    fake.provider.awareness.setLocalStateField('user', { name: 'The Person', color: '#f00' })
    await serverCaughtUp(fake.provider)
    const agentClient = fake.ydoc.clientID
    // The agent itself still sees the person's editor (reading is what it may do).
    expect(fake.provider.awareness.getStates().has(person.ydoc.clientID)).toBe(true)

    // A peer that joins now gets every awareness state the room holds before its SyncStep2.
    const joiner = peer(Number(new URL(rig.http.url).port), rig.docId, { token: rig.http.token })
    opened.push(joiner)
    await joiner.synced()
    expect(joiner.provider.awareness.getStates().has(person.ydoc.clientID)).toBe(true)
    expect(joiner.provider.awareness.getStates().has(agentClient)).toBe(false)
    // The person's editor, which was there all along, was never sent it either (the server keeps only what it relays).
    await serverCaughtUp(person.provider)
    expect(person.provider.awareness.getStates().has(agentClient)).toBe(false)
    expect(rig.session.quire.services.presence.forTab(rig.tabId).map((editor) => editor.clientId)).toEqual([person.ydoc.clientID])
  })

  it("the person's own readonly=1 viewer is not an editor either: its claims reach no presence", async () => {
    const rig = await presenceRig(join(T, `ws${++n}`), 'view\n')
    rigs.push(rig)
    const viewer = peer(Number(new URL(rig.http.url).port), rig.docId, { token: rig.http.token, params: { readonly: '1' } })
    opened.push(viewer)
    await viewer.synced()
    viewer.provider.awareness.setLocalStateField(PRESENCE_FIELD, {
      window: 'main', tabId: rig.tabId, focused: true, mode: 'source', composing: true, compositionEndedAt: null, selection: null,
    } satisfies EditorPresenceState)
    await serverCaughtUp(viewer.provider)
    expect(rig.session.quire.services.presence.forTab(rig.tabId)).toEqual([])
    ok(await rig.session.call('document', { action: 'write', tabId: rig.tabId, content: 'not busy\n', save: false }))
  })

  it("an agent cannot claim another connection's label", async () => {
    const rig = await presenceRig(join(T, `ws${++n}`), 'x\n')
    rigs.push(rig)
    const { agents } = rig.session.quire.services
    const agentToken = await agents.add('mallory', USER)
    let serial = 0
    const decide = (name: string | undefined, token = agentToken) => {
      const decision = decideAccess({ token, name, readOnly: undefined }, rig.http.token, agents, () => ++serial)
      if (!decision.granted) throw new Error(decision.reason)
      return decision.access
    }
    expect(decide('console').label).toBe('agent.mallory.console-1')
    expect(decide(undefined).label).toBe('agent.mallory-2')
    expect(decide('agent.other').label).toBe('agent.mallory.agent.other-3')
    expect(decide('console', rig.http.token).label).toBe('console-4')
    expect(decide('console').readOnly).toBe(true)
  })
})
