/**
 * What the person's editors mean to an assistant (CONC.5, DOC.WRITE.15–16, DOC.TRANSFORM.8, SEL.SET.12, SEL.GET.6,
 * JRNL.12, SES.GET_STATE.12–13), with real y-websocket peers on the daemon's collaboration endpoint publishing the
 * console's presence through awareness, and the MCP surface in-process (so the log can be stalled while an edit is
 * being recorded).
 */
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { PERSON } from '../support/conformance.js'
import { envelope, eventually, ok, readDoc, real, streamEvents, within } from '../support/faultSession.js'
import { tempDir } from '../support/mcpHarness.js'
import { presenceRig, type PresenceRig } from '../support/presenceRig.js'

describe('presence and the write path', () => {
  let T: string
  let n = 0
  const rigs: PresenceRig[] = []

  beforeAll(async () => {
    T = await real(await tempDir('quire-presence-'))
  })
  afterEach(async () => {
    for (const rig of rigs.splice(0)) await rig.close()
  })
  afterAll(async () => {
    await rm(T, { recursive: true, force: true })
  })

  async function fresh(text = 'hello world\n'): Promise<PresenceRig> {
    const rig = await presenceRig(join(T, `ws${++n}`), text)
    rigs.push(rig)
    return rig
  }

  it('CONC.5 / DOC.WRITE.15 / DOC.TRANSFORM.8 / SEL.SET.12 while the person composes, write, transform and selection.set answer BUSY and change nothing; selection.get still answers (SEL.GET.6)', async () => {
    const context = await fresh('中文English\n')
    const { session, tabId } = context
    const peer = await context.attach()
    peer.select(0, 2)
    peer.present({ composing: true })
    expect(await context.seen((editor) => editor.composing === true)).toBe(true)
    const before = await readDoc(session, tabId)
    envelope(await session.call('document', { action: 'write', tabId, content: 'must not land\n' }), 'BUSY')
    envelope(await session.call('document', { action: 'transform', tabId, kind: 'cjk-spacing' }), 'BUSY')
    envelope(await session.call('selection', { action: 'set', content: 'x' }), 'BUSY')
    expect(ok(await session.call('selection', { action: 'get' }))).toMatchObject({ text: '中文', range: { from: 0, to: 2 }, mode: 'source' })
    expect(await readDoc(session, tabId)).toEqual(before)
    const types = (await streamEvents(session.quire, context.docId)).map((event) => event.type)
    expect(types).not.toContain('journal.recorded')

    // Composition over, in the source editor: still BUSY within the grace period (DOC.WRITE.16), then writes land.
    peer.present({ composing: false, compositionEndedAt: Date.now() })
    expect(await context.seen((editor) => editor.composing === false)).toBe(true)
    envelope(await session.call('document', { action: 'write', tabId, content: 'still composing, just\n' }), 'BUSY')
    expect(await eventually(async () => !(await session.call('document', { action: 'write', tabId, content: 'after the grace period\n', save: false })).isError, 3_000)).toBe(true)
    expect((await readDoc(session, tabId)).content).toBe('after the grace period\n')
  })

  it('DOC.WRITE.16 the grace period is the source editor\'s: a WYSIWYG editor that ended its composition does not hold writes back', async () => {
    const context = await fresh()
    const { session, tabId } = context
    const peer = await context.attach({ tabId, mode: 'wysiwyg' })
    peer.present({ composing: false, compositionEndedAt: Date.now() })
    expect(await context.seen((editor) => editor.compositionEndedAt !== null)).toBe(true)
    ok(await session.call('document', { action: 'write', tabId, content: 'right away\n', save: false }))
  })

  it('JRNL.12 the person starts composing while the write is being recorded: ABORTED composing, nothing changes', async () => {
    const context = await fresh()
    const { session, stall, tabId } = context
    const peer = await context.attach()
    const before = await readDoc(session, tabId)
    const held = stall.engage()
    const writing = session.call('document', { action: 'write', tabId, content: 'aborted\n', save: false })
    await held.reached
    peer.present({ composing: true })
    expect(await context.seen((editor) => editor.composing === true)).toBe(true)
    held.release()
    const aborted = envelope(await within(10_000, 'the write', writing), 'ABORTED')
    expect(aborted.reason).toBe('composing')
    expect(await readDoc(session, tabId)).toEqual(before)
  })

  it('JRNL.12 the person types while the write is being recorded: ABORTED edited, and the keystroke is kept', async () => {
    const context = await fresh()
    const { session, stall, tabId } = context
    const peer = await context.attach()
    const held = stall.engage()
    const writing = session.call('document', { action: 'write', tabId, content: 'aborted\n', save: false })
    await held.reached
    peer.text.insert(0, '>')
    // The keystroke reaches the server (its event waits behind the stalled log, but the document holds it).
    expect(await eventually(() => session.quire.services.engine.documents.peek(context.docId)?.content.startsWith('>') ?? false)).toBe(true)
    held.release()
    const aborted = envelope(await within(10_000, 'the write', writing), 'ABORTED')
    expect(aborted.reason).toBe('edited')
    expect((await readDoc(session, tabId)).content).toBe('>hello world\n')
  })

  it('JRNL.12 the person moves the selection while selection.set is being recorded: ABORTED selection', async () => {
    const context = await fresh()
    const { session, stall, tabId } = context
    const peer = await context.attach()
    peer.select(0, 5)
    expect(await context.seen((editor) => editor.selection !== null)).toBe(true)
    const before = await readDoc(session, tabId)
    const held = stall.engage()
    const setting = session.call('selection', { action: 'set', content: 'HELLO' })
    await held.reached
    peer.select(6, 11)
    expect(await eventually(() => JSON.stringify(session.quire.services.presence.forTab(tabId)[0]?.selection) !== JSON.stringify(null))).toBe(true)
    await new Promise((resolve) => setTimeout(resolve, 100))
    held.release()
    const aborted = envelope(await within(10_000, 'selection.set', setting), 'ABORTED')
    expect(aborted.reason).toBe('selection')
    expect(await readDoc(session, tabId)).toEqual(before)
  })

  it('JRNL.12 the person closes the tab while the write is being recorded: ABORTED closed', async () => {
    const context = await fresh()
    const { session, stall, tabId } = context
    await context.attach()
    const held = stall.engage()
    const writing = session.call('document', { action: 'write', tabId, content: 'aborted\n', save: false })
    await held.reached
    // The person closes the tab from the console (a workspace event by the user); it waits behind the stalled log.
    const closing = session.quire.services.workspace.close(tabId, true, PERSON)
    held.release()
    const aborted = envelope(await within(10_000, 'the write', writing), 'ABORTED')
    expect(aborted.reason).toBe('closed')
    await closing
  })

  it('SES.GET_STATE.12 / .13 window.focused follows the editor\'s report of OS focus, and is false once it loses it', async () => {
    const context = await fresh()
    const { session, tabId } = context
    const focused = async () => (ok(await session.call('session', { action: 'get_state' })).windows as Array<{ label: string; focused: boolean }>).find((window) => window.label === 'main')!.focused
    expect(await focused()).toBe(false)
    const peer = await context.attach()
    expect(await eventually(focused)).toBe(true)
    peer.present({ focused: false })
    expect(await eventually(async () => !(await focused()))).toBe(true)
    peer.present({ focused: true })
    expect(await eventually(focused)).toBe(true)
    peer.close()
    expect(await eventually(async () => !(await focused()))).toBe(true)
    void tabId
  })
})
