/**
 * The `selection` tool (TOOLS.md §6: SEL.GEN.1–3, SEL.GET.1–5, SEL.SET.1–11, .13) and DOC.WRITE.12–13, with real
 * y-websocket peers as the person's editors: a source editor selects by character offsets of `source`; a WYSIWYG
 * editor binds the `prosemirror` mirror and selects by ProseMirror positions, reported as relative positions as
 * y-prosemirror does. IME and ABORTED are in conc.presence.test.ts; the same with real Chromium in specs/browser/.
 */
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { absolutePositionToRelativePosition } from 'y-prosemirror'
import * as Y from 'yjs'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { readMirror } from '../../core/markdown/mirror.js'
import { PERSON } from '../support/conformance.js'
import { envelope, eventually, ok, readDoc, real, streamEvents } from '../support/faultSession.js'
import { tempDir } from '../support/mcpHarness.js'
import { presenceRig, type PresenceRig } from '../support/presenceRig.js'

describe('selection', () => {
  let T: string
  let n = 0
  const rigs: PresenceRig[] = []

  beforeAll(async () => {
    T = await real(await tempDir('quire-sel-'))
  })
  afterEach(async () => {
    for (const rig of rigs.splice(0)) await rig.close()
  })
  afterAll(async () => {
    await rm(T, { recursive: true, force: true })
  })

  async function fresh(text = 'hello brave world\n', name = 'doc.md'): Promise<PresenceRig> {
    const rig = await presenceRig(join(T, `ws${++n}`), text, name)
    rigs.push(rig)
    return rig
  }

  const selectedText = (result: { isError: boolean; structured?: unknown }): string | undefined =>
    result.isError ? undefined : (result.structured as { text: string }).text
  const get = (rig: PresenceRig, extra: Record<string, unknown> = {}) => rig.session.call('selection', { action: 'get', ...extra })
  const set = (rig: PresenceRig, content: string, extra: Record<string, unknown> = {}) => rig.session.call('selection', { action: 'set', content, ...extra })
  const selectedAt = (rig: PresenceRig, from: number, to: number) =>
    eventually(async () => {
      const result = await get(rig)
      return !result.isError && (result.structured as { range: { from: number; to: number } }).range.from === from && (result.structured as { range: { to: number } }).range.to === to
    })

  it('SEL.GEN.3 with no editor on the focused tab, both actions answer NO_EDITOR', async () => {
    const rig = await fresh()
    envelope(await get(rig), 'NO_EDITOR')
    envelope(await set(rig, 'x'), 'NO_EDITOR')
  })

  it('SEL.GEN.1 / .2 selection works on the focused tab only: another tabId is INVALID_TAB', async () => {
    const rig = await fresh()
    const peer = await rig.attach()
    peer.select(0, 5)
    expect(await selectedAt(rig, 0, 5)).toBe(true)
    ok(await get(rig, { tabId: rig.tabId }))
    const other = ok(await rig.session.call('workspace', { action: 'new' })).tabId as string
    await rig.session.quire.services.workspace.switchTab(rig.tabId, PERSON)
    envelope(await get(rig, { tabId: other }), 'INVALID_TAB')
    envelope(await set(rig, 'x', { tabId: other }), 'INVALID_TAB')
    envelope(await get(rig, { tabId: 'tab-does-not-exist' }), 'INVALID_TAB')
  })

  it('SEL.GET.1–5 source mode: the raw selected text, character offsets, mode, kind, tabId and a revision set accepts', async () => {
    const rig = await fresh()
    const peer = await rig.attach()
    peer.select(6, 11)
    expect(await selectedAt(rig, 6, 11)).toBe(true)
    const selection = ok(await get(rig))
    expect(Object.keys(selection).sort()).toEqual(['isEmpty', 'kind', 'mode', 'range', 'revision', 'tabId', 'text'])
    expect(selection).toMatchObject({ text: 'brave', isEmpty: false, range: { from: 6, to: 11 }, mode: 'source', kind: 'markdown', tabId: rig.tabId })
    expect(selection.revision).toBe((await readDoc(rig.session, rig.tabId)).revision)
    // A backwards selection (head before anchor) reads the same way.
    peer.select(11, 6)
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(ok(await get(rig))).toMatchObject({ text: 'brave', range: { from: 6, to: 11 } })
    // SEL.GET.3 collapsed.
    peer.select(3)
    expect(await selectedAt(rig, 3, 3)).toBe(true)
    expect(ok(await get(rig))).toMatchObject({ text: '', isEmpty: true, range: { from: 3, to: 3 } })
    // SEL.GET.5 the revision is accepted by set.
    const { revision } = ok(await get(rig))
    ok(await set(rig, '', { expected_revision: revision }))
  })

  it('SEL.SET.1 / .4 / .7 / .8 source mode splices the content in as raw text and answers {revision, replaced_chars, applied, durable}', async () => {
    const rig = await fresh()
    const peer = await rig.attach()
    peer.select(6, 11)
    expect(await selectedAt(rig, 6, 11)).toBe(true)
    const result = ok(await set(rig, '**bold** `raw`'))
    expect(Object.keys(result).sort()).toEqual(['applied', 'durable', 'replaced_chars', 'revision'])
    expect(result).toMatchObject({ replaced_chars: 5, applied: true, durable: true })
    expect((await readDoc(rig.session, rig.tabId)).content).toBe('hello **bold** `raw` world\n')
    expect(result.revision).toBe((await readDoc(rig.session, rig.tabId)).revision)
    // The peer sees it too, and the journal holds the whole resulting text.
    expect(await eventually(() => peer.text.toString() === 'hello **bold** `raw` world\n')).toBe(true)
    const journal = (await streamEvents(rig.session.quire, rig.docId)).find((event) => event.type === 'journal.recorded')
    expect(journal?.data).toMatchObject({ operation: 'selection_set', text: 'hello **bold** `raw` world\n' })
  })

  it('SEL.SET.5 / .6 empty content deletes the selection; with a collapsed selection the content goes in at the cursor', async () => {
    const rig = await fresh()
    const peer = await rig.attach()
    peer.select(5, 11)
    expect(await selectedAt(rig, 5, 11)).toBe(true)
    expect(ok(await set(rig, ''))).toMatchObject({ replaced_chars: 6, applied: true })
    expect((await readDoc(rig.session, rig.tabId)).content).toBe('hello world\n')
    peer.select(5)
    // The old selection already reads 5..5 once its text is gone; wait for the new one itself.
    expect(await rig.caughtUp(peer)).toBe(true)
    expect(await selectedAt(rig, 5, 5)).toBe(true)
    expect(ok(await set(rig, ', dear'))).toMatchObject({ replaced_chars: 0 })
    expect((await readDoc(rig.session, rig.tabId)).content).toBe('hello, dear world\n')
  })

  it('SEL.SET.9 / .10 a keystroke between get and set changes the revision: STALE with current_revision, nothing changes', async () => {
    const rig = await fresh()
    const peer = await rig.attach()
    peer.select(0, 5)
    expect(await selectedAt(rig, 0, 5)).toBe(true)
    const { revision } = ok(await get(rig))
    peer.text.insert(17, '!')
    expect(await eventually(async () => (await readDoc(rig.session, rig.tabId)).revision !== revision)).toBe(true)
    const before = await readDoc(rig.session, rig.tabId)
    const stale = envelope(await set(rig, 'HELLO', { expected_revision: revision }), 'STALE')
    expect(stale.current_revision).toBe(before.revision)
    expect(await readDoc(rig.session, rig.tabId)).toEqual(before)
  })

  it('SEL.SET.11 moving the cursor between get and set is not a change: the edit lands at the new selection', async () => {
    const rig = await fresh()
    const peer = await rig.attach()
    peer.select(0, 5)
    expect(await selectedAt(rig, 0, 5)).toBe(true)
    const { revision } = ok(await get(rig))
    peer.select(12, 17)
    expect(await selectedAt(rig, 12, 17)).toBe(true)
    ok(await set(rig, 'planet', { expected_revision: revision }))
    expect((await readDoc(rig.session, rig.tabId)).content).toBe('hello brave planet\n')
  })

  it('SEL.SET.13 a replacement that changes nothing is not journaled', async () => {
    const rig = await fresh()
    const peer = await rig.attach()
    peer.select(6, 11)
    expect(await selectedAt(rig, 6, 11)).toBe(true)
    const before = await readDoc(rig.session, rig.tabId)
    expect(ok(await set(rig, 'brave'))).toMatchObject({ applied: false, revision: before.revision, replaced_chars: 5 })
    expect((await streamEvents(rig.session.quire, rig.docId)).map((event) => event.type)).not.toContain('journal.recorded')
  })

  describe('WYSIWYG mode', () => {
    /** A WYSIWYG peer: binds the mirror (asking the server to build it first) and selects by ProseMirror positions. */
    async function wysiwyg(rig: PresenceRig) {
      const peer = await rig.attach({ tabId: rig.tabId, mode: 'wysiwyg' })
      const fragment = peer.ydoc.getXmlFragment('prosemirror')
      expect(await eventually(() => fragment.length > 0)).toBe(true)
      const select = (from: number, to = from) => {
        const { mapping } = readMirror(fragment)
        const relative = (pos: number) => Y.relativePositionToJSON(absolutePositionToRelativePosition(pos, fragment, mapping as never)) as Record<string, unknown>
        peer.present({ selection: { anchor: relative(from), head: relative(to) } })
      }
      return { peer, fragment, select }
    }

    it('SEL.GET.2 / .4 the Markdown of the selected slice, in ProseMirror positions', async () => {
      const rig = await fresh('# Title\n\nsome **bold** text\n', 'w.md')
      const { select } = await wysiwyg(rig)
      // "some " starts at 9 (heading: 1 + 5 + 1 = 7 positions; paragraph opens at 7, text at 8).
      select(13, 17)
      expect(await eventually(async () => selectedText(await get(rig)) === '**bold**')).toBe(true)
      const selection = ok(await get(rig))
      expect(selection).toMatchObject({ mode: 'wysiwyg', range: { from: 13, to: 17 }, isEmpty: false })
      expect(selection.text).toBe('**bold**')
    })

    it('SEL.SET.2 / .3 plain text goes in literally (whitespace kept); Markdown becomes nodes; source follows through the bridge', async () => {
      const rig = await fresh('# Title\n\nsome **bold** text\n', 'w.md')
      const { select, fragment } = await wysiwyg(rig)
      select(8, 12)
      expect(await eventually(async () => selectedText(await get(rig)) === 'some')).toBe(true)
      expect(ok(await set(rig, '  plain  '))).toMatchObject({ applied: true, replaced_chars: 4 })
      // The literal text node keeps its spaces in the editor; Markdown cannot start a paragraph with spaces, so
      // `source` (the editor's serialization) has the trailing ones only.
      expect(await eventually(() => fragment.toString().includes('<paragraph>  plain   <strong>bold</strong> text</paragraph>'))).toBe(true)
      expect((await readDoc(rig.session, rig.tabId)).content).toBe('# Title\n\nplain   **bold** text\n')
      // Markdown markup becomes nodes (SEL.SET.3): "text" (after "plain   bold ") replaced by emphasis and code.
      const paragraph = 8
      const at = paragraph + '  plain   bold '.length
      select(at, at + 4)
      expect(await eventually(async () => selectedText(await get(rig)) === 'text')).toBe(true)
      ok(await set(rig, '*it* and `code`'))
      expect(await eventually(() => fragment.toString().includes('<em>it</em> and <code>code</code>'))).toBe(true)
      expect((await readDoc(rig.session, rig.tabId)).content).toBe('# Title\n\nplain   **bold** *it* and `code`\n')
    })

    it('DOC.WRITE.12 / .13 a write into the active WYSIWYG tab is saved as the editor\'s serialization; elsewhere verbatim (DOC.WRITE.14)', async () => {
      const rig = await fresh('# Title\n', 'w.md')
      await wysiwyg(rig)
      ok(await rig.session.call('document', { action: 'write', tabId: rig.tabId, content: 'Title\n=====\n\n* one\n* two\n' }))
      expect((await readDoc(rig.session, rig.tabId)).content).toBe('# Title\n\n* one\n* two\n')
      // In the background the same text is kept verbatim.
      const other = ok(await rig.session.call('workspace', { action: 'new' })).tabId as string
      await rig.session.quire.services.workspace.switchTab(other, PERSON)
      ok(await rig.session.call('document', { action: 'write', tabId: rig.tabId, content: 'Title\n=====\n\n* one\n* two\n', save: false }))
      expect((await readDoc(rig.session, rig.tabId)).content).toBe('Title\n=====\n\n* one\n* two\n')
    })
  })
})
