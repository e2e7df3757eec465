/**
 * `addresses` through the MCP surface (COM.ADDR.1–7, DOC.WRITE.19, DOC.TRANSFORM.11, WF.APPLY_PATCH.14, SEL.SET.14):
 * document.write, document.transform, workflow.apply_patch and selection.set accept the comment ids an edit
 * responds to, refuse bad lists with INVALID_ADDRESSES and change nothing, record the ids with the journal entry
 * of the revision, show them in the document's history (a later-deleted comment as deleted), and never change a
 * thread's state. validateAddresses' own cases are in com.addresses.test.ts; selection.set's presence setup comes
 * from the presence rig.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { documentTimeline, type AiWriteEntry } from '../../projections/history/history.js'
import { USER } from '../../core/events/actor.js'
import { docOfTab, envelope, eventually, launchFaulty, ok, openTab, readDoc, real, streamEvents, type FaultySession } from '../support/faultSession.js'
import { tempDir } from '../support/mcpHarness.js'
import { presenceRig } from '../support/presenceRig.js'

describe('addresses through MCP', () => {
  let T: string
  let session: FaultySession
  let tabId: string
  let otherTab: string
  let workflowTab: string
  let docId: string

  beforeAll(async () => {
    T = await real(await tempDir('quire-addresses-'))
    await mkdir(join(T, '.github/workflows'), { recursive: true })
    await writeFile(join(T, 'doc.md'), '学习Python\n\nSome text to comment on.\n')
    await writeFile(join(T, 'other.md'), 'Another document.\n')
    await writeFile(join(T, '.github/workflows/ci.yml'), 'on: push\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo hi\n')
    session = await launchFaulty({ workspaces: [T] })
    tabId = await openTab(session, join(T, 'doc.md'))
    otherTab = await openTab(session, join(T, 'other.md'))
    workflowTab = await openTab(session, join(T, '.github/workflows/ci.yml'))
    docId = docOfTab(session.quire, tabId)
  })
  afterAll(async () => {
    await session?.close()
    await rm(T, { recursive: true, force: true })
  })

  const comments = () => session.quire.services.comments
  const thread = async (doc: string, from: number, to: number) => (await comments().create(doc, { from, to }, 'please look', USER)).comment
  const stateOf = async (doc: string, id: string) => (await comments().threads(doc)).find((t) => t.head.comment === id)?.head.state

  it('COM.ADDR.1 / .2 / .7 document.write takes addresses, records them with the journal entry of the revision, and no thread changes state', async () => {
    const id = await thread(docId, 10, 14)
    const before = await stateOf(docId, id)
    const written = ok(await session.call('document', { action: 'write', tabId, content: '学习Python\n\nSome text, commented on.\n', addresses: [id], save: false }))
    const journal = (await streamEvents(session.quire, docId)).filter((event) => event.type === 'journal.recorded').at(-1)!
    expect(journal.data).toMatchObject({ operation: 'write', addresses: [id] })
    expect(await stateOf(docId, id)).toBe(before)
    const entry = (await documentTimeline(session.quire.services.engine, docId)).find((e) => e.kind === 'ai-write' && e.revision === written.revision) as AiWriteEntry | undefined
    expect(entry?.addresses.map((a) => a.id)).toEqual([id])
  })

  it('COM.ADDR.4 / .5 / .6 more than 64, duplicates, unknown, resolved, deleted or another document\'s ids: INVALID_ADDRESSES and nothing changes', async () => {
    const open = await thread(docId, 0, 2)
    const resolved = await thread(docId, 2, 8)
    await comments().resolve(docId, resolved, USER)
    const deleted = await thread(docId, 0, 8)
    await comments().delete(docId, deleted, USER)
    const foreign = await thread(docOfTab(session.quire, otherTab), 0, 7)
    const before = await readDoc(session, tabId)
    const lists: Record<string, string[]> = {
      'more than 64': Array.from({ length: 65 }, (_, index) => `c-${index.toString(16).padStart(10, '0')}`),
      duplicates: [open, open],
      unknown: ['c-0000000000'],
      resolved: [resolved],
      deleted: [deleted],
      'another document': [foreign],
      malformed: ['not an id'],
    }
    for (const [label, ids] of Object.entries(lists)) {
      const refused = envelope(await session.call('document', { action: 'write', tabId, content: 'must not land\n', addresses: ids, save: false }), 'INVALID_ADDRESSES')
      expect(refused.message, label).toBeTypeOf('string')
      envelope(await session.call('document', { action: 'transform', tabId, kind: 'cjk-spacing', addresses: ids }), 'INVALID_ADDRESSES')
    }
    expect(await readDoc(session, tabId)).toEqual(before)
    expect(await stateOf(docId, open)).toBe('open')
  })

  it('DOC.TRANSFORM.11 / WF.APPLY_PATCH.14 transform and apply_patch take addresses too', async () => {
    const id = await thread(docId, 0, 2)
    ok(await session.call('document', { action: 'transform', tabId, kind: 'cjk-spacing', addresses: [id] }))
    expect((await streamEvents(session.quire, docId)).filter((event) => event.type === 'journal.recorded').at(-1)!.data).toMatchObject({ operation: 'transform', addresses: [id] })
    const workflowDoc = docOfTab(session.quire, workflowTab)
    const onWorkflow = await thread(workflowDoc, 0, 2)
    ok(await session.call('workflow', { action: 'apply_patch', tabId: workflowTab, patches: [{ kind: 'workflow.set', path: 'name', value: 'CI' }], addresses: [onWorkflow] }))
    expect((await streamEvents(session.quire, workflowDoc)).filter((event) => event.type === 'journal.recorded').at(-1)!.data).toMatchObject({ operation: 'apply_patch', addresses: [onWorkflow] })
    envelope(await session.call('workflow', { action: 'apply_patch', tabId: workflowTab, patches: [{ kind: 'workflow.set', path: 'name', value: 'X' }], addresses: [id] }), 'INVALID_ADDRESSES')
  })

  it('COM.ADDR.3 a comment deleted after being addressed shows in history as deleted', async () => {
    const id = await thread(docId, 0, 2)
    const written = ok(await session.call('document', { action: 'write', tabId, content: 'Rewritten for the comment.\n', addresses: [id], save: false }))
    await comments().delete(docId, id, USER)
    const resolveComment = (_doc: string, commentId: string) => {
      const found = session.quire.services.engine.views.comments.find(commentId)
      return !found ? ('unknown' as const) : found.deleted ? ('deleted' as const) : found.state
    }
    const entry = (await documentTimeline(session.quire.services.engine, docId, { resolveComment })).find((e) => e.kind === 'ai-write' && e.revision === written.revision) as AiWriteEntry | undefined
    expect(entry?.addresses).toEqual([{ id, state: 'deleted' }])
  })
})

describe('SEL.SET.14 selection.set takes addresses', () => {
  it('records them with its journal entry and refuses a bad list with INVALID_ADDRESSES', async () => {
    const T = await real(await tempDir('quire-addresses-sel-'))
    const rig = await presenceRig(join(T, 'ws'), 'hello world\n')
    try {
      const peer = await rig.attach()
      peer.select(0, 5)
      expect(await rig.seen((editor) => editor.selection !== null)).toBe(true)
      const id = (await rig.session.quire.services.comments.create(rig.docId, { from: 0, to: 5 }, 'shout it', USER)).comment
      envelope(await rig.session.call('selection', { action: 'set', content: 'HELLO', addresses: [id, id] }), 'INVALID_ADDRESSES')
      expect(await eventually(async () => !(await rig.session.call('selection', { action: 'set', content: 'HELLO', addresses: [id] })).isError)).toBe(true)
      expect((await streamEvents(rig.session.quire, rig.docId)).filter((event) => event.type === 'journal.recorded').at(-1)!.data).toMatchObject({ operation: 'selection_set', addresses: [id] })
      expect((await readDoc(rig.session, rig.tabId)).content).toBe('HELLO world\n')
    } finally {
      await rig.close()
      await rm(T, { recursive: true, force: true })
    }
  })
})
