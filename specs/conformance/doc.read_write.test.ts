/**
 * document.read and document.write (TOOLS.md §4.1–4.2): DOC.READ.1–3 and DOC.WRITE.1–11, .14, .17, .20, .21 over
 * stdio and HTTP. The faults that need injection (a disk that fails mid-save, a tab closed while its save waits, a
 * save overtaken by a later one) are in doc.write.faults.test.ts.
 *
 * Out of scope here: IME/BUSY (DOC.WRITE.15–16), WYSIWYG (.12–13: headless, no editor is attached, so every tab is
 * "every other tab" of DOC.WRITE.14), the review backlog and `addresses` (.18–19).
 *
 * Reading of DOC.WRITE.14 "verbatim apart from line-ending normalization": the target of the normalization is not
 * stated (§16); the saved file must equal `content` either verbatim or with CRLF/CR turned into LF.
 */
import { mkdir, rm } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  TRANSPORTS, open, bytes, envelope, files, folder, getState, history, logHead, logRecords, newTab, ok, plain, read, removeAll, rig, tabsOf, world, write,
  type Rig, type Transport,
} from '../support/conformance.js'

const WORKFLOW = '# CI for the docs\nname: CI   # keep this comment\non:\n  push:\n    branches: [main]\n\njobs:\n  build:\n    runs-on: ubuntu-latest # the runner\n    steps:\n      - run: echo hi\n'
const JOURNALED = ['yes', 'pending', 'no']


describe.each<Transport>(TRANSPORTS)('document.read / document.write over %s', (transport) => {
  let r: Rig
  let w: string

  beforeAll(async () => {
    w = await folder('doc', {
      'a.md': '# A\n\nalpha\n', 'b.md': 'beta\n', 'c.md': 'gamma\n', 'd.md': 'delta\n', 'e.md': 'epsilon\n', 'f.md': 'phi\n',
      'h.md': 'aitch\n', 'i.md': 'eye\n', 'j.md': 'jay\n', 'k.md': 'kay\n',
      '.github/workflows/ci.yml': WORKFLOW,
    })
    r = await rig(transport, { workspaces: [w] })
  })
  afterAll(async () => {
    await r?.close()
    await removeAll(w)
  })

  it('DOC.READ.1 read returns exactly {content, revision, filePath, kind, dirty} of the tab', async () => {
    const tabId = await open(r.session, `${w}/a.md`)
    const document = await read(r.session, tabId)
    expect(Object.keys(document).sort()).toEqual(['content', 'dirty', 'filePath', 'kind', 'revision'])
    expect(document).toMatchObject({ content: '# A\n\nalpha\n', filePath: `${w}/a.md`, kind: 'markdown', dirty: false })
    expect(document.revision).toBeTypeOf('string')
    expect(document.revision).toBe((await tabsOf(r.session)).find((entry) => entry.id === tabId)!.revision)
    await write(r.session, tabId, '# A\n\nalpha, unsaved\n', { save: false })
    expect(await read(r.session, tabId)).toMatchObject({ content: '# A\n\nalpha, unsaved\n', dirty: true })
  })

  it('DOC.READ.2 a yaml-workflow tab reads as the raw YAML text, comments included', async () => {
    const tabId = await open(r.session, `${w}/.github/workflows/ci.yml`)
    const document = await read(r.session, tabId)
    expect(document.kind).toBe('yaml-workflow')
    expect(document.content).toBe(WORKFLOW)
  })

  it('DOC.READ.3 the revision read is accepted as expected_revision by the next write', async () => {
    const tabId = await open(r.session, `${w}/b.md`)
    const { revision } = await read(r.session, tabId)
    const written = await write(r.session, tabId, 'beta, based on what was read\n', { expected_revision: revision })
    expect(written.applied).toBe(true)
    expect((await read(r.session, tabId)).content).toBe('beta, based on what was read\n')
  })

  it('DOC.WRITE.1 DOC.WRITE.4 write replaces the whole text and answers revision (new), applied: true, durable and saved', async () => {
    const tabId = await open(r.session, `${w}/c.md`)
    const before = await read(r.session, tabId)
    const content = 'Entirely new.\n\n- one\n- two ✓ 漢字 🚀\n\nno trailing newline'
    const written = await write(r.session, tabId, content)
    expect(written.applied).toBe(true)
    expect(written.durable).toBeTypeOf('boolean')
    expect(written.saved).toBeTypeOf('boolean')
    expect(written.revision).toBeTypeOf('string')
    expect(written.revision).not.toBe(before.revision)
    const after = await read(r.session, tabId)
    expect(after.content).toBe(content)
    expect(after.revision).toBe(written.revision)
  })

  it.each([
    ['missing', {}],
    ['a number', { content: 42 }],
    ['null', { content: null }],
    ['an array', { content: ['a'] }],
  ])('DOC.WRITE.2 a content that is %s is a plain-string argument error, and nothing changes', async (_label, args) => {
    const tabId = await open(r.session, `${w}/d.md`)
    const before = await world(r.session, w)
    const head = await logHead(r.home)
    plain(await r.session.call('document', { action: 'write', tabId, ...args }))
    expect(await world(r.session, w)).toEqual(before)
    expect(await logHead(r.home)).toBe(head)
  })

  it('DOC.WRITE.3 a mismatching expected_revision answers STALE with current_revision and changes nothing', async () => {
    const tabId = await open(r.session, `${w}/e.md`)
    const first = await read(r.session, tabId)
    const second = await write(r.session, tabId, 'epsilon, second\n')
    const before = await world(r.session, w)
    const head = await logHead(r.home)
    const stale = envelope(await r.session.call('document', { action: 'write', tabId, content: 'epsilon, from a stale read\n', expected_revision: first.revision }), 'STALE')
    expect(stale.current_revision).toBe(second.revision)
    expect(await world(r.session, w)).toEqual(before)
    expect(await bytes(`${w}/e.md`)).toBe('epsilon, second\n')
    expect(await logHead(r.home)).toBe(head)
  })

  it('DOC.WRITE.5 DOC.WRITE.11 with save omitted or true the content is also saved to the file, and journaled is present', async () => {
    const tabId = await open(r.session, `${w}/f.md`)
    const omitted = await write(r.session, tabId, 'phi, saved by default\n')
    expect(omitted).toMatchObject({ saved: true })
    expect(JOURNALED).toContain(omitted.journaled)
    expect(omitted.save_skipped).toBeUndefined()
    expect(omitted.save_error).toBeUndefined()
    expect(await bytes(`${w}/f.md`)).toBe('phi, saved by default\n')
    const explicit = await write(r.session, tabId, 'phi, saved on request\n', { save: true })
    expect(explicit).toMatchObject({ saved: true })
    expect(JOURNALED).toContain(explicit.journaled)
    expect(await bytes(`${w}/f.md`)).toBe('phi, saved on request\n')
    expect((await read(r.session, tabId)).dirty).toBe(false)
  })

  it('DOC.WRITE.6 DOC.WRITE.11 with save: false only the tab changes: saved: false, save_skipped: "opt_out", no journaled', async () => {
    const tabId = await open(r.session, `${w}/h.md`)
    const written = await write(r.session, tabId, 'aitch, not saved\n', { save: false })
    expect(written).toMatchObject({ applied: true, saved: false, save_skipped: 'opt_out' })
    expect('journaled' in written).toBe(false)
    expect(written.save_error).toBeUndefined()
    expect(await bytes(`${w}/h.md`)).toBe('aitch\n')
    expect(await read(r.session, tabId)).toMatchObject({ content: 'aitch, not saved\n', dirty: true })
  })

  it('DOC.WRITE.7 DOC.WRITE.11 an untitled tab: saved: false, save_skipped: "untitled", no journaled, no file anywhere', async () => {
    const tabId = await newTab(r.session)
    const before = await files(w)
    const written = await write(r.session, tabId, 'an untitled draft\n')
    expect(written).toMatchObject({ applied: true, saved: false, save_skipped: 'untitled' })
    expect('journaled' in written).toBe(false)
    expect(await files(w)).toEqual(before)
    expect((await read(r.session, tabId)).content).toBe('an untitled draft\n')
  })

  it('DOC.WRITE.8 DOC.WRITE.11 when the disk write fails (a directory now stands at the file\'s path), the write answers saved: false with save_error, no journaled', async () => {
    const tabId = await open(r.session, `${w}/i.md`)
    await rm(`${w}/i.md`)
    await mkdir(`${w}/i.md`)
    const result = await r.session.call('document', { action: 'write', tabId, content: 'eye, unsaveable\n' })
    const written = ok(result)
    expect(written).toMatchObject({ applied: true, saved: false })
    expect(written.save_error).toBeTypeOf('string')
    expect('journaled' in written).toBe(false)
    expect((await read(r.session, tabId)).content).toBe('eye, unsaveable\n')
  })

  it('DOC.WRITE.14 DOC.WRITE.21 a yaml-workflow tab is written and saved verbatim (comments only as given); so is a markdown tab, apart from line endings', async () => {
    const yaml = await open(r.session, `${w}/.github/workflows/ci.yml`)
    const newYaml = '# rewritten by the assistant\nname: CI # still a comment\non: [push]\njobs: {}\n'
    expect(await write(r.session, yaml, newYaml)).toMatchObject({ applied: true, saved: true })
    expect(await bytes(`${w}/.github/workflows/ci.yml`)).toBe(newYaml)
    expect((await read(r.session, yaml)).content).toBe(newYaml)

    const markdown = await open(r.session, `${w}/j.md`)
    const exact = '  leading spaces, trailing spaces   \n\n\n*odd* __markdown__  \n|a|b|\n|-|-|\nno newline at end'
    expect(await write(r.session, markdown, exact)).toMatchObject({ saved: true })
    expect(await bytes(`${w}/j.md`)).toBe(exact)

    const crlf = 'line one\r\nline two\r\n'
    expect(await write(r.session, markdown, crlf)).toMatchObject({ saved: true })
    expect([crlf, 'line one\nline two\n']).toContain(await bytes(`${w}/j.md`))
  })

  it('DOC.WRITE.20 each save a write performs is an (mcp) history snapshot of the written revision; a write with save: false adds none', async () => {
    const tabId = await open(r.session, `${w}/k.md`)
    const saves = async () => (await history(r.home, `${w}/k.md`)).filter((entry) => entry.reason === 'save' && entry.mcp)
    expect(await saves()).toEqual([])
    const first = await write(r.session, tabId, 'kay, one\n')
    await write(r.session, tabId, 'kay, not saved\n', { save: false })
    const third = await write(r.session, tabId, 'kay, three\n')
    expect((await saves()).map((entry) => entry.revision)).toEqual([first.revision, third.revision])
  })
})

describe.each<Transport>(TRANSPORTS)('document.write journal over %s (quire log --json)', (transport) => {
  let r: Rig
  let w: string

  beforeAll(async () => {
    w = await folder('journal', { 'a.md': 'alpha\n' })
    r = await rig(transport, { workspaces: [w] })
  })
  afterAll(async () => {
    await r?.close()
    await removeAll(w)
  })

  it('DOC.WRITE.17 the write is journaled before any change (journal.recorded precedes document.changed); no-op, STALE and INVALID_TEXT writes are not journaled and change nothing', async () => {
    const s = r.session
    const tabId = await open(s, `${w}/a.md`)
    const before = await read(s, tabId)
    const content = 'alpha, journaled first\n'
    const written = await write(s, tabId, content, { expected_revision: before.revision })
    // Rejections and a no-op: none may be journaled.
    const worldAfterWrite = await world(s, w)
    envelope(await s.call('document', { action: 'write', tabId, content: 'a lone \ud800 surrogate\n' }), 'INVALID_TEXT')
    envelope(await s.call('document', { action: 'write', tabId, content: 'stale\n', expected_revision: before.revision }), 'STALE')
    expect(await world(s, w)).toEqual(worldAfterWrite)
    const noop = await write(s, tabId, content)
    expect(noop.revision).toBe(written.revision)
    expect((await getState(s)).windows[0]!.tabs.find((entry) => entry.id === tabId)!.revision).toBe(written.revision)
    await r.stop()

    const records = await logRecords(r.home)
    const journals = records.filter((record) => record.type === 'journal.recorded')
    expect(journals).toHaveLength(1)
    const [journal] = journals
    expect(journal!.data.text).toBe(content)
    expect(journal!.actor.kind).toBe('mcp')
    const changes = records.filter((record) => record.type === 'document.changed' && record.stream === journal!.stream)
    expect(changes).toHaveLength(1)
    expect(journal!.position).toBeLessThan(changes[0]!.position)
    expect(changes[0]!.data.journal).toBe(journal!.position)
    // Nothing of the document happened between the journal entry and the change it announced.
    const between = records.filter((record) => record.stream === journal!.stream && record.position > journal!.position && record.position < changes[0]!.position)
    expect(between).toEqual([])
  })
})
