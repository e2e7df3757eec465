/**
 * document.transform (TOOLS.md §4.3): DOC.TRANSFORM.1–7, .9–10 over stdio and HTTP, and the journal semantics
 * in-process with a log that can be stalled (DOC.TRANSFORM.9: the same rejections as `write`).
 *
 * Out of scope here: IME/BUSY (DOC.TRANSFORM.8: no editor is attached to a headless Quire yet; the collaboration
 * issue brings editors and composition) and `addresses` (DOC.TRANSFORM.11: comments come with the review issue).
 * The rules of each transform are proven in specs/unit/cjk*.test.ts and against pangu in specs/oracle/; these tests
 * prove the action around them.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  TRANSPORTS, cli, envelope, folder, ok, open, plain, read, removeAll, rig, write, type Rig, type Transport,
} from '../support/conformance.js'
import {
  docOfTab, envelope as faultEnvelope, launchFaulty, LogStall, ok as faultOk, openTab, readDoc, real, streamEvents, within,
} from '../support/faultSession.js'
import { tempDir } from '../support/mcpHarness.js'

const MIXED = '学习Python编程,很有趣!\n\n用`npm install`安装,见https://example.com/文档。\n'

describe.each<Transport>(TRANSPORTS)('document.transform over %s', (transport) => {
  let r: Rig
  let w: string

  beforeAll(async () => {
    w = await folder('transform', {
      'spacing.md': '学习Python编程\n第3章讲Yjs\n',
      'punct.md': '你好,世界!真的吗?\n',
      'same.md': 'Plain English, no CJK at all: 42 items.\n',
      'stale.md': '中文English\n',
      'mixed.md': MIXED,
      'code.md': '说明:\n\n```js\nconst a = "中文abc,"\n```\n\n行内`代码abc`和[链接](https://例子.com/a,b)\n',
      'shape.md': '数字1和2\n',
      'twice-a.md': '他说:"你好"然后走了...共3次,第2次OK!\n',
      'twice-b.md': '他说:"你好"然后走了...共3次,第2次OK!\n',
    })
    r = await rig(transport, { workspaces: [w] })
  })
  afterAll(async () => {
    await r?.close()
    await removeAll(w)
  })

  const transform = (tabId: string, kind: unknown, extra: Record<string, unknown> = {}) =>
    r.session.call('document', { action: 'transform', tabId, kind, ...extra })

  it('DOC.TRANSFORM.1 kind must be cjk-format, cjk-spacing or cjk-punctuation; anything else is refused and changes nothing', async () => {
    const tabId = await open(r.session, `${w}/spacing.md`)
    const before = await read(r.session, tabId)
    for (const kind of ['cjk-spaces', 'CJK-SPACING', '', 42, null, undefined]) {
      plain(await transform(tabId, kind), /kind/)
    }
    expect(await read(r.session, tabId)).toEqual(before)
    for (const kind of ['cjk-format', 'cjk-spacing', 'cjk-punctuation']) ok(await transform(tabId, kind))
  })

  it('DOC.TRANSFORM.4 cjk-spacing puts exactly one space between CJK and adjacent Latin letters and digits', async () => {
    const tabId = await open(r.session, `${w}/spacing.md`)
    const first = ok(await transform(tabId, 'cjk-spacing'))
    const { content } = await read(r.session, tabId)
    expect(content).toBe('学习 Python 编程\n第 3 章讲 Yjs\n')
    expect(first.revision).toBe((await read(r.session, tabId)).revision)
    // Exactly one: a second run finds nothing to do.
    const again = ok(await transform(tabId, 'cjk-spacing'))
    expect(again).toMatchObject({ applied: false, revision: first.revision })
    expect((await read(r.session, tabId)).content).toBe(content)
  })

  it('DOC.TRANSFORM.5 cjk-punctuation turns ASCII punctuation next to CJK into its full-width form', async () => {
    const tabId = await open(r.session, `${w}/punct.md`)
    ok(await transform(tabId, 'cjk-punctuation'))
    expect((await read(r.session, tabId)).content).toBe('你好，世界！真的吗？\n')
  })

  it('DOC.TRANSFORM.6 a transform answers {revision, applied, durable}; it changes the tab, not the file', async () => {
    const tabId = await open(r.session, `${w}/shape.md`)
    const before = await read(r.session, tabId)
    const result = ok(await transform(tabId, 'cjk-spacing'))
    expect(Object.keys(result).sort()).toEqual(['applied', 'durable', 'revision'])
    expect(result).toMatchObject({ applied: true, durable: true })
    expect(result.revision).not.toBe(before.revision)
    expect(await read(r.session, tabId)).toMatchObject({ content: '数字 1 和 2\n', revision: result.revision, dirty: true })
    expect(await readFile(`${w}/shape.md`, 'utf8')).toBe('数字1和2\n')
  })

  it('DOC.TRANSFORM.7 a mismatching expected_revision is STALE with current_revision, and nothing changes', async () => {
    const tabId = await open(r.session, `${w}/stale.md`)
    const old = await read(r.session, tabId)
    await write(r.session, tabId, '中文English，改过了\n', { save: false })
    const current = await read(r.session, tabId)
    const stale = envelope(await transform(tabId, 'cjk-spacing', { expected_revision: old.revision }), 'STALE')
    expect(stale.current_revision).toBe(current.revision)
    expect(await read(r.session, tabId)).toEqual(current)
    // The current revision is accepted.
    ok(await transform(tabId, 'cjk-spacing', { expected_revision: current.revision }))
    expect((await read(r.session, tabId)).content).toBe('中文 English，改过了\n')
  })

  it('DOC.TRANSFORM.10 a transform with nothing to change (no CJK) is not applied and keeps the revision', async () => {
    const tabId = await open(r.session, `${w}/same.md`)
    const before = await read(r.session, tabId)
    for (const kind of ['cjk-format', 'cjk-spacing', 'cjk-punctuation']) {
      expect(ok(await transform(tabId, kind))).toEqual({ revision: before.revision, applied: false, durable: true })
    }
    expect(await read(r.session, tabId)).toEqual(before)
  })

  it('DOC.TRANSFORM.2 the rewrite is deterministic: the same text and settings give the same result in two documents', async () => {
    const a = await open(r.session, `${w}/twice-a.md`)
    const b = await open(r.session, `${w}/twice-b.md`)
    for (const kind of ['cjk-punctuation', 'cjk-spacing', 'cjk-format']) {
      ok(await transform(a, kind))
      ok(await transform(b, kind))
      expect((await read(r.session, a)).content).toBe((await read(r.session, b)).content)
    }
    expect((await read(r.session, a)).content).not.toBe('他说:"你好"然后走了...共3次,第2次OK!\n')
  })

  it('DOC.TRANSFORM.3 code, inline code and link targets are never touched; the prose around them is', async () => {
    const tabId = await open(r.session, `${w}/code.md`)
    ok(await transform(tabId, 'cjk-format'))
    const { content } = await read(r.session, tabId)
    expect(content).toContain('```js\nconst a = "中文abc,"\n```')
    expect(content).toContain('`代码abc`')
    expect(content).toContain('(https://例子.com/a,b)')
    expect(content.startsWith('说明：')).toBe(true)
  })

  it('DOC.TRANSFORM.2 / .6 a transform on a 1 MB mixed document answers within the usual limits and stays consistent', async () => {
    const tabId = await open(r.session, `${w}/mixed.md`)
    const big = MIXED.repeat(Math.ceil(1_000_000 / Buffer.byteLength(MIXED)))
    await write(r.session, tabId, big, { save: false })
    const result = ok(await transform(tabId, 'cjk-spacing'))
    expect(result.applied).toBe(true)
    // Too big to read back in one answer (75,000 bytes): the second run finding nothing to do shows it all landed.
    expect(ok(await transform(tabId, 'cjk-spacing'))).toEqual({ ...result, applied: false })
  })
})

describe('DOC.TRANSFORM.3 cjk-format follows the person\'s CJK formatting settings', () => {
  let w: string
  let r: Rig

  beforeAll(async () => {
    w = await folder('transform-settings', { 'a.md': '[重点]内容,学习Python\n', 'b.md': '[重点]内容,学习Python\n' })
    r = await rig('http', { workspaces: [w] })
  })
  afterAll(async () => {
    await r?.close()
    await removeAll(w)
  })

  it('defaults keep brackets half-width; after the person turns fullwidthBrackets on and cjkEnglishSpacing off, the same text formats differently', async () => {
    const a = await open(r.session, `${w}/a.md`)
    ok(await r.session.call('document', { action: 'transform', tabId: a, kind: 'cjk-format' }))
    expect((await read(r.session, a)).content).toBe('[重点]内容，学习 Python\n')

    // The person changes two settings with the CLI while Quire runs (each a setting.changed event in the log).
    for (const [key, value] of [['cjkFormatting.fullwidthBrackets', 'true'], ['cjkFormatting.cjkEnglishSpacing', 'false']]) {
      const set = await cli(r.home, 'settings', 'set', key!, value!)
      expect(set.code, set.stderr).toBe(0)
    }
    const b = await open(r.session, `${w}/b.md`)
    ok(await r.session.call('document', { action: 'transform', tabId: b, kind: 'cjk-format' }))
    expect((await read(r.session, b)).content).toBe('【重点】内容，学习Python\n')
    // The narrow transforms do not depend on the settings.
    await write(r.session, b, '学习Python\n', { save: false })
    ok(await r.session.call('document', { action: 'transform', tabId: b, kind: 'cjk-spacing' }))
    expect((await read(r.session, b)).content).toBe('学习 Python\n')
  })
})

describe('DOC.TRANSFORM.9 / .10 the journal, in-process', () => {
  let T: string
  let n = 0

  beforeAll(async () => {
    T = await real(await tempDir('quire-transform-jrnl-'))
  })
  afterAll(async () => {
    await rm(T, { recursive: true, force: true })
  })

  async function fresh(text: string) {
    const ws = join(T, `ws${++n}`)
    await mkdir(ws)
    const file = join(ws, 'doc.md')
    await writeFile(file, text)
    const stall = new LogStall()
    const session = await launchFaulty({ workspaces: [ws], stall })
    const tabId = await openTab(session, file)
    return { session, stall, tabId }
  }

  it('DOC.TRANSFORM.9 the transform is journaled (operation transform, its kind, the full text) and on disk before the document changes', async () => {
    const { session, stall, tabId } = await fresh('中文English\n')
    try {
      const before = await readDoc(session, tabId)
      const held = stall.engage()
      const transforming = session.call('document', { action: 'transform', tabId, kind: 'cjk-spacing' })
      await held.reached
      expect(await readDoc(session, tabId)).toEqual(before)
      held.release()
      expect(faultOk(await within(10_000, 'transform', transforming))).toMatchObject({ applied: true, durable: true })
      const events = await streamEvents(session.quire, docOfTab(session.quire, tabId))
      const journal = events.findIndex((event) => event.type === 'journal.recorded')
      const change = events.findIndex((event) => event.type === 'document.changed' && (event.data as { journal?: number }).journal !== undefined)
      expect(journal).toBeGreaterThanOrEqual(0)
      expect(change).toBeGreaterThan(journal)
      expect(events[journal]!.data).toMatchObject({ operation: 'transform', detail: 'cjk-spacing', text: '中文 English\n', baseRevision: before.revision })
      expect(events[journal]!.actor).toMatchObject({ kind: 'mcp' })
    } finally {
      await session.close()
    }
  })

  it('DOC.TRANSFORM.9 a log that does not answer in time: JOURNAL_UNAVAILABLE, nothing changes; the next call meets JOURNAL_BUSY until it lands', async () => {
    const { session, stall, tabId } = await fresh('中文English\n')
    try {
      const before = await readDoc(session, tabId)
      const held = stall.engage()
      faultEnvelope(await within(15_000, 'transform against a stalled log', session.call('document', { action: 'transform', tabId, kind: 'cjk-spacing' })), 'JOURNAL_UNAVAILABLE')
      faultEnvelope(await session.call('document', { action: 'transform', tabId, kind: 'cjk-spacing' }), 'JOURNAL_BUSY')
      expect(await readDoc(session, tabId)).toEqual(before)
      held.release()
      await session.quire.services.engine.store.flush()
      expect(await readDoc(session, tabId)).toEqual(before)
    } finally {
      await session.close()
    }
  })

  it('DOC.TRANSFORM.10 a transform that changes nothing records nothing in the journal', async () => {
    const { session, tabId } = await fresh('中文 English，已经排好了。\n')
    try {
      const docId = docOfTab(session.quire, tabId)
      const before = await streamEvents(session.quire, docId)
      for (const kind of ['cjk-spacing', 'cjk-punctuation', 'cjk-format']) {
        expect(faultOk(await session.call('document', { action: 'transform', tabId, kind })).applied).toBe(false)
      }
      expect(await streamEvents(session.quire, docId)).toHaveLength(before.length)
    } finally {
      await session.close()
    }
  })
})
