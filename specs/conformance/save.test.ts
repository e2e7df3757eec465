/**
 * Save semantics (TOOLS.md §12.6 SAVE.1–7; WS.SAVE.*, WS.SAVE_AS.6–7, DOC.WRITE.8, DOC.WRITE.10, DOC.WRITE.14,
 * DOC.WRITE.20). What a client can see runs over stdio and HTTP with the real SDK client and the `quire history`
 * CLI; the races (a save overtaken by a later one, a failing disk, a file appearing under save_as) run in-process
 * with a fault-injecting file-system port.
 */
import { mkdir, readdir, rm, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FaultyFileSystem } from '../support/faultFs.js'
import {
  envelope, fileText, inode, launchFaulty, ok, openTab, quire, readDoc, real, saveAsApproved, DOCUMENTED_ENVELOPE_CODES,
} from '../support/faultSession.js'
import { launch, tempDir, type Session, type Transport } from '../support/mcpHarness.js'

/** A large text that is unmistakably version `id` of `file`: any mix or truncation of two versions is detectable. */
function version(file: string, id: string, kib = 200): string {
  const line = `${file} version ${id} `.padEnd(63, '.') + '\n'
  return `BEGIN ${file} ${id}\n${line.repeat(Math.ceil((kib * 1024) / 64))}END ${file} ${id}\n`
}

const tempsIn = async (dir: string) => (await readdir(dir)).filter((name) => name.startsWith('.quire-save-'))

/** `quire history PATH` lines that are AI saves. */
async function mcpSaves(home: string, path: string): Promise<string[]> {
  const history = await quire(home, 'history', path)
  expect(history.code, history.stderr).toBe(0)
  return history.stdout.split('\n').filter((line) => /\bsave\s+\(mcp\)/.test(line))
}

describe.each<Transport>(['stdio', 'http'])('SAVE over %s', (transport) => {
  let T: string
  let ws: string
  let session: Session

  beforeAll(async () => {
    T = await real(await tempDir('quire-save-'))
    ws = join(T, 'ws')
    await mkdir(join(ws, '.github', 'workflows'), { recursive: true })
    session = await launch(transport, { workspaces: [ws] })
  })
  afterAll(async () => {
    await session?.close()
    await rm(T, { recursive: true, force: true })
  })

  it('SAVE.1 / WS.SAVE.2 concurrent saves of one file run one at a time: readers only ever see a complete version, and the file ends as what the document holds', async () => {
    const path = join(ws, 'busy.md')
    // 16 KiB each: large enough to be written in several blocks, small enough for document.read (75,000-byte bound).
    const original = version('busy', 'original', 16)
    await writeFile(path, original)
    const tabId = await openTab(session, path)
    const versions = new Set([original])
    const calls: Array<Promise<unknown>> = []
    for (let i = 0; i < 10; i++) {
      const content = version('busy', `w${i}`, 16)
      versions.add(content)
      calls.push(session.call('document', { action: 'write', tabId, content }))
      if (i % 3 === 0) calls.push(session.call('workspace', { action: 'save', tabId }))
    }
    let reading = true
    const torn: string[] = []
    let reads = 0
    const reader = (async () => {
      while (reading) {
        const bytes = await fileText(path)
        reads++
        if (bytes === null || !versions.has(bytes)) torn.push(bytes === null ? '<missing>' : `${bytes.length} bytes: ${bytes.slice(0, 40)}…${bytes.slice(-30)}`)
        await new Promise((resolve) => setImmediate(resolve))
      }
    })()
    const results = (await Promise.all(calls)) as Array<Awaited<ReturnType<Session['call']>>>
    reading = false
    await reader
    for (const result of results) {
      if (result.isError) expect(['STALE']).toContain(result.structured?.error)
    }
    expect(torn, `a reader saw a file that is no complete version (${reads} reads)`).toEqual([])
    const final = await readDoc(session, tabId)
    const onDisk = await fileText(path)
    const label = (text: string | null) => (text === null ? '<missing>' : text.slice(0, text.indexOf('\n')))
    expect(label(onDisk), `file vs document; answers: ${results.map((r) => (r.isError ? r.text.slice(0, 60) : JSON.stringify(r.structured))).join(' | ')}`).toBe(label(final.content))
    expect(onDisk === final.content).toBe(true)
    expect(versions.has(final.content)).toBe(true)
    expect(await tempsIn(ws)).toEqual([])
  })

  it('SAVE.4 / SAVE.5 / DOC.WRITE.20 every AI save (document.write, workspace.save, save_as) is its own (mcp) entry in `quire history PATH`, large ones too', async () => {
    const path = join(ws, 'history.md')
    await writeFile(path, 'history v0\n')
    const tabId = await openTab(session, path)
    let saves = 0
    const written = ok(await session.call('document', { action: 'write', tabId, content: 'history v1\n' }))
    expect(written.saved).toBe(true)
    saves++
    ok(await session.call('document', { action: 'write', tabId, content: 'history v2\n', save: false }))
    ok(await session.call('workspace', { action: 'save', tabId }))
    saves++
    // Two saves in a row, nothing changed in between: never merged into one entry.
    ok(await session.call('workspace', { action: 'save', tabId }))
    saves++
    // A 2 MiB document: never skipped for size.
    const large = version('history', 'large', 2048)
    expect(ok(await session.call('document', { action: 'write', tabId, content: large })).saved).toBe(true)
    saves++
    expect(await mcpSaves(session.home, path)).toHaveLength(saves)
    const lines = await mcpSaves(session.home, path)
    expect(lines.at(-1)).toContain(`${large.length} chars`)
    // save_as to a new file is an AI save too; the history follows the document to its new path.
    const copy = join(ws, 'history-copy.md')
    ok(await saveAsApproved(session, tabId, copy))
    saves++
    const afterSaveAs = await mcpSaves(session.home, copy)
    expect(afterSaveAs).toHaveLength(saves)
    expect(afterSaveAs.at(-1)).toContain(copy)
    for (const line of afterSaveAs) expect(line).toMatch(/mcp:/)
  })

  it('SAVE.6 / JRNL.16 / DOC.WRITE.11 every save response carries journaled (yes|pending|no); document.write carries it only when it saved', async () => {
    const path = join(ws, 'journaled.md')
    await writeFile(path, 'j0\n')
    const tabId = await openTab(session, path)
    const kinds = ['yes', 'pending', 'no']
    const saved = ok(await session.call('document', { action: 'write', tabId, content: 'j1\n' }))
    expect(saved).toMatchObject({ saved: true })
    expect(kinds).toContain(saved.journaled)
    const optOut = ok(await session.call('document', { action: 'write', tabId, content: 'j2\n', save: false }))
    expect(optOut).toMatchObject({ saved: false, save_skipped: 'opt_out' })
    expect(optOut).not.toHaveProperty('journaled')
    const save = ok(await session.call('workspace', { action: 'save', tabId }))
    expect(save).toMatchObject({ filePath: path, revision: optOut.revision })
    expect(kinds).toContain(save.journaled)
    const saveAs = ok(await saveAsApproved(session, tabId, join(ws, 'journaled-copy.md')))
    expect(saveAs.revision).toBe(optOut.revision)
    expect(kinds).toContain(saveAs.journaled)
    const { tabId: untitled } = ok(await session.call('workspace', { action: 'new' }))
    const unsaved = ok(await session.call('document', { action: 'write', tabId: untitled, content: 'untitled\n' }))
    expect(unsaved).toMatchObject({ saved: false, save_skipped: 'untitled' })
    expect(unsaved).not.toHaveProperty('journaled')
  })

  it('SAVE.7 / DOC.WRITE.14 saved bytes are the content verbatim apart from line-ending normalisation (write, save, save_as; markdown and yaml-workflow)', async () => {
    const samples: Record<string, string> = {
      crlf: 'line one\r\nline two\r\n',
      'lone CR': 'a\rb\rc',
      mixed: 'x\r\ny\nz\r',
      unicode: '# 标题 — テスト\n\u00a0nbsp, e\u0301, 👩‍👩‍👧, שלום, \t tab  \n',
      'no final newline': 'no newline at the end',
      'trailing spaces': 'two spaces  \n  \n',
      empty: '',
    }
    const path = join(ws, 'verbatim.md')
    await writeFile(path, 'start\n')
    const tabId = await openTab(session, path)
    for (const [label, content] of Object.entries(samples)) {
      const expected = content.replace(/\r\n?/g, '\n')
      expect(ok(await session.call('document', { action: 'write', tabId, content })).saved, label).toBe(true)
      expect(await fileText(path), `document.write: ${label}`).toBe(expected)
      ok(await session.call('document', { action: 'write', tabId, content: `${content}+`, save: false }))
      ok(await session.call('workspace', { action: 'save', tabId }))
      expect(await fileText(path), `workspace.save: ${label}`).toBe(`${expected}+`)
    }
    const target = join(ws, 'verbatim-copy.md')
    ok(await session.call('document', { action: 'write', tabId, content: samples.mixed!, save: false }))
    ok(await saveAsApproved(session, tabId, target))
    expect(await fileText(target)).toBe(samples.mixed!.replace(/\r\n?/g, '\n'))

    const workflow = join(ws, '.github', 'workflows', 'ci.yml')
    await writeFile(workflow, 'name: ci\n')
    const wf = await openTab(session, workflow)
    expect(ok(await session.call('document', { action: 'read', tabId: wf })).kind).toBe('yaml-workflow')
    const yaml = '# keep this comment\r\nname: ci # inline\r\non: [push]\r\njobs:\r\n  a:\r\n    runs-on: ubuntu-latest # runner\r\n    steps:\r\n      - run: echo "ok"\r\n'
    expect(ok(await session.call('document', { action: 'write', tabId: wf, content: yaml })).saved).toBe(true)
    expect(await fileText(workflow)).toBe(yaml.replace(/\r\n/g, '\n'))
  })

  it('WS.SAVE_AS.6 save_as onto an existing file that is not the tab\'s own is refused with APPROVAL_REQUIRED; that file keeps its bytes', async () => {
    const mine = join(ws, 'mine.md')
    const theirs = join(ws, 'theirs.md')
    await writeFile(mine, 'mine\n')
    await writeFile(theirs, 'theirs\n')
    const tabId = await openTab(session, mine)
    ok(await session.call('document', { action: 'write', tabId, content: 'mine, edited\n', save: false }))
    const before = await inode(theirs)
    const refused = envelope(await session.call('workspace', { action: 'save_as', tabId, filePath: theirs }), 'APPROVAL_REQUIRED')
    if (typeof refused.approvalId === 'string') {
      await quire(session.home, 'approvals', 'approve', refused.approvalId)
      envelope(await session.call('workspace', { action: 'save_as', tabId, filePath: theirs }), 'APPROVAL_REQUIRED')
    }
    expect(await fileText(theirs)).toBe('theirs\n')
    expect(await inode(theirs)).toBe(before)
    expect(ok(await session.call('document', { action: 'read', tabId })).filePath).toBe(mine)
  })
})

describe('SAVE with injected faults (in-process)', () => {
  let T: string
  let n = 0
  beforeAll(async () => {
    T = await real(await tempDir('quire-save-ip-'))
  })
  afterAll(async () => {
    await rm(T, { recursive: true, force: true })
  })

  async function fresh(options: { autoApproveSaves?: boolean } = {}) {
    const ws = join(T, `ws${++n}`)
    await mkdir(ws)
    await writeFile(join(ws, 'file.md'), 'original\n')
    await symlink(join(ws, 'file.md'), join(ws, 'link.md'))
    const fs = new FaultyFileSystem()
    const session = await launchFaulty({ workspaces: [ws], fs, ...options })
    return { ws, fs, session, file: join(ws, 'file.md'), link: join(ws, 'link.md') }
  }

  it('SAVE.3 a workspace.save overtaken by a later save of the same file writes nothing and answers STALE with current_revision', async () => {
    const { fs, session, file } = await fresh()
    try {
      const tabId = await openTab(session, file)
      ok(await session.call('document', { action: 'write', tabId, content: 'v1 (older)\n', save: false }))
      const held = fs.holdNextBeforeLane()
      const older = session.call('workspace', { action: 'save', tabId })
      await held.reached
      const newer = ok(await session.call('document', { action: 'write', tabId, content: 'v2 (newer)\n' }))
      expect(newer.saved).toBe(true)
      const after = await inode(file)
      held.release()
      const stale = envelope(await older, 'STALE')
      expect(stale.current_revision).toBe(newer.revision)
      expect(await fileText(file)).toBe('v2 (newer)\n')
      expect(await inode(file)).toBe(after)
      expect(fs.writes.filter((write) => write.outcome === 'placed')).toHaveLength(1)
    } finally {
      await session.close()
    }
  })

  it('DOC.WRITE.10 a document.write whose save was overtaken by a later save answers saved: false with save_error (no journaled) and writes nothing', async () => {
    const { fs, session, file } = await fresh()
    try {
      const tabId = await openTab(session, file)
      const held = fs.holdNextBeforeLane()
      const older = session.call('document', { action: 'write', tabId, content: 'v1 (older)\n' })
      await held.reached
      const newer = ok(await session.call('document', { action: 'write', tabId, content: 'v2 (newer)\n' }))
      expect(newer.saved).toBe(true)
      const after = await inode(file)
      held.release()
      const response = ok(await older)
      expect(response).toMatchObject({ applied: true, saved: false })
      expect(response.save_error).toEqual(expect.any(String))
      expect(response).not.toHaveProperty('journaled')
      expect(await fileText(file)).toBe('v2 (newer)\n')
      expect(await inode(file)).toBe(after)
      expect(await readDoc(session, tabId)).toMatchObject({ content: 'v2 (newer)\n', revision: newer.revision })
    } finally {
      await session.close()
    }
  })

  it('SAVE.3 / DOC.WRITE.10 through a symlink: a save asked for through the link is overtaken by a later save of its target (and the reverse); one queue per real file', async () => {
    const { fs, session, file, link } = await fresh()
    try {
      const tabId = await openTab(session, link)
      expect(ok(await session.call('document', { action: 'read', tabId })).filePath).toBe(file)
      // Through the link first, overtaken through the target.
      ok(await session.call('document', { action: 'write', tabId, content: 'via link (older)\n', save: false }))
      const held = fs.holdNextBeforeLane()
      const viaLink = session.call('workspace', { action: 'save_as', tabId, filePath: link })
      await held.reached
      const viaTarget = ok(await session.call('document', { action: 'write', tabId, content: 'via target (newer)\n' }))
      expect(viaTarget.saved).toBe(true)
      const placed = await inode(file)
      held.release()
      envelope(await viaLink, 'STALE')
      expect(await fileText(file)).toBe('via target (newer)\n')
      expect(await inode(file)).toBe(placed)
      expect((await readdir(join(file, '..'))).sort()).toEqual(['file.md', 'link.md'])
      // Through the target first, overtaken through the link.
      ok(await session.call('document', { action: 'write', tabId, content: 'via target (older)\n', save: false }))
      const held2 = fs.holdNextBeforeLane()
      const viaTarget2 = session.call('workspace', { action: 'save', tabId })
      await held2.reached
      ok(await session.call('document', { action: 'write', tabId, content: 'via link (newer)\n', save: false }))
      ok(await session.call('workspace', { action: 'save_as', tabId, filePath: link }))
      const placed2 = await inode(file)
      held2.release()
      envelope(await viaTarget2, 'STALE')
      expect(await fileText(file)).toBe('via link (newer)\n')
      expect(await inode(file)).toBe(placed2)
    } finally {
      await session.close()
    }
  })

  it('DOC.WRITE.8 a disk failure during document.write\'s save (fsync EIO, ENOSPC) answers saved: false with save_error; the file keeps its bytes and no temp file is left', async () => {
    const { ws, fs, session, file } = await fresh()
    try {
      const tabId = await openTab(session, file)
      const before = await inode(file)
      fs.failNextWrite()
      const eio = ok(await session.call('document', { action: 'write', tabId, content: 'never on disk (EIO)\n' }))
      expect(eio).toMatchObject({ applied: true, saved: false })
      expect(eio.save_error).toMatch(/EIO|i\/o/i)
      expect(eio).not.toHaveProperty('journaled')
      expect(await fileText(file)).toBe('original\n')
      expect(await inode(file)).toBe(before)
      fs.faultNextWrite({
        afterTempCreated: () => {
          throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })
        },
      })
      const enospc = ok(await session.call('document', { action: 'write', tabId, content: 'never on disk (ENOSPC)\n' }))
      expect(enospc).toMatchObject({ applied: true, saved: false })
      expect(enospc.save_error).toMatch(/ENOSPC|space/i)
      expect(await fileText(file)).toBe('original\n')
      expect(await inode(file)).toBe(before)
      expect(await tempsIn(ws)).toEqual([])
      // The document holds the write (it was applied); the next save writes it.
      expect(await readDoc(session, tabId)).toMatchObject({ content: 'never on disk (ENOSPC)\n', dirty: true })
      ok(await session.call('workspace', { action: 'save', tabId }))
      expect(await fileText(file)).toBe('never on disk (ENOSPC)\n')
    } finally {
      await session.close()
    }
  })

  it('DOC.WRITE.8 / WS.SAVE.1 workspace.save and save_as with a failing disk answer an error envelope; the file is unchanged, nothing created, no temp file left', async () => {
    const { ws, fs, session, file } = await fresh({ autoApproveSaves: true })
    try {
      const tabId = await openTab(session, file)
      ok(await session.call('document', { action: 'write', tabId, content: 'dirty\n', save: false }))
      const before = await inode(file)
      fs.failNextWrite()
      const failed = await session.call('workspace', { action: 'save', tabId })
      expect(failed.isError, failed.text).toBe(true)
      expect(DOCUMENTED_ENVELOPE_CODES).toContain(failed.structured?.error)
      expect(await fileText(file)).toBe('original\n')
      expect(await inode(file)).toBe(before)
      fs.failNextWrite()
      const target = join(ws, 'new.md')
      const failedAs = await session.call('workspace', { action: 'save_as', tabId, filePath: target })
      expect(failedAs.isError, failedAs.text).toBe(true)
      expect(DOCUMENTED_ENVELOPE_CODES).toContain(failedAs.structured?.error)
      expect(await fileText(target)).toBeNull()
      expect(await tempsIn(ws)).toEqual([])
      expect(ok(await session.call('document', { action: 'read', tabId }))).toMatchObject({ filePath: file, dirty: true })
    } finally {
      await session.close()
    }
  })

  it('WS.SAVE_AS.7 a file created at the target while save_as runs wins: APPROVAL_REQUIRED, its contents kept, the tab keeps its own file', async () => {
    const { ws, fs, session, file } = await fresh({ autoApproveSaves: true })
    try {
      const tabId = await openTab(session, file)
      ok(await session.call('document', { action: 'write', tabId, content: 'mine\n', save: false }))
      // Appears while the temp file is written, just before it is put in place.
      const target = join(ws, 'race.md')
      fs.faultNextWrite({ beforeLink: () => writeFile(target, 'theirs, created mid-save\n') })
      envelope(await session.call('workspace', { action: 'save_as', tabId, filePath: target }), 'APPROVAL_REQUIRED')
      expect(await fileText(target)).toBe('theirs, created mid-save\n')
      // Appears after the request was checked, while the save waits for its turn.
      const target2 = join(ws, 'race2.md')
      const held = fs.holdNextAtTurn()
      const saving = session.call('workspace', { action: 'save_as', tabId, filePath: target2 })
      await held.reached
      await writeFile(target2, 'theirs, created while queued\n')
      held.release()
      envelope(await saving, 'APPROVAL_REQUIRED')
      expect(await fileText(target2)).toBe('theirs, created while queued\n')
      expect(await tempsIn(ws)).toEqual([])
      expect(ok(await session.call('document', { action: 'read', tabId }))).toMatchObject({ filePath: file, content: 'mine\n', dirty: true })
      expect(await fileText(file)).toBe('original\n')
    } finally {
      await session.close()
    }
  })
})
