/**
 * Path scope (TOOLS.md §12.5 SCOPE.1–5, WS.GEN.2, WS.OPEN.3) and the MCP filesystem server's two CVEs
 * (research/mcp-and-browser.md §2.2): every escape is refused with INVALID_PATH, and nothing outside the workspace
 * is read into a tab or written. Rules reachable from outside run through the real SDK client over stdio and HTTP;
 * races (a save waiting in its queue, a symlink swapped in between check and write) run in-process with a
 * fault-injecting file-system port.
 */
import { execFileSync } from 'node:child_process'
import { mkdir, rename, rm, symlink, unlink, writeFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { USER } from '../../core/events/actor.js'
import { appendToView } from '../../core/streams/foldedStream.js'
import { FaultyFileSystem } from '../support/faultFs.js'
import {
  buildTree, envelope, fileText, launchFaulty, ok, openTab, readDoc, real, SECRET, snapshot, tabCount, approve, within, type Tree,
} from '../support/faultSession.js'
import { launch, tempDir, type Session, type Transport } from '../support/mcpHarness.js'

/** Paths that must never open: each names a file outside the workspace that exists and holds SECRET. */
function escapingReads(tree: Tree): Record<string, string> {
  const { T, ws, out } = tree
  return {
    'outside, absolute': join(out, 'secret.md'),
    'prefix sibling /ws_evil for /ws (CVE-2025-53110)': join(T, 'ws_evil', 'secret.md'),
    'prefix sibling, same name as an inside file': join(T, 'ws_evil', 'a.md'),
    'symlink inside to an outside file (CVE-2025-53109)': join(ws, 'link-out-file'),
    'symlink inside to an outside folder': join(ws, 'link-out-dir', 'secret.md'),
    'relative symlink inside to an outside folder': join(ws, 'rel-up', 'secret.md'),
    '.. escaping the root': `${ws}/../out/secret.md`,
    '.. escaping from a subfolder': `${ws}/sub/../../out/secret.md`,
    '.. escaping into the prefix sibling': `${ws}/../ws_evil/a.md`,
    '.. after a symlinked folder': `${ws}/link-out-dir/../out/secret.md`,
    'relative, inside-looking': 'a.md',
    'relative with ./': './ws/a.md',
    'relative to the outside file from the server cwd': relative(process.cwd(), join(out, 'secret.md')),
    'relative with ..': '../out/secret.md',
    'NUL at the end': `${ws}/a.md\0`,
    'NUL then .. to outside': `${ws}/a.md\0/../../out/secret.md`,
    'NUL inside the root name': `${ws}\0/../out/secret.md`,
    'dangling symlink to outside': join(ws, 'dangling-out'),
    'file: URL': `file://${join(out, 'secret.md')}`,
    'home-relative': '~/secret.md',
  }
}

/** Targets save_as must never create or replace; each would land outside the workspace (or nowhere sane). */
function escapingWrites(tree: Tree): Record<string, string> {
  const { T, ws, out } = tree
  return {
    'outside, absolute, new': join(out, 'new.md'),
    'outside, absolute, existing': join(out, 'secret.md'),
    'prefix sibling /ws_evil for /ws, new (CVE-2025-53110)': join(T, 'ws_evil', 'new.md'),
    'prefix sibling, existing': join(T, 'ws_evil', 'secret.md'),
    'symlink inside to an outside file (CVE-2025-53109)': join(ws, 'link-out-file'),
    'new file through a symlinked outside folder': join(ws, 'link-out-dir', 'new.md'),
    'new file through a relative symlink to outside': join(ws, 'rel-up', 'new.md'),
    'dangling symlink to outside (would create T/out/nope.md)': join(ws, 'dangling-out'),
    '.. escaping the root': `${ws}/../out/new.md`,
    '.. escaping from a subfolder': `${ws}/sub/../../out/new.md`,
    '.. into the prefix sibling': `${ws}/../ws_evil/new.md`,
    'relative': 'new.md',
    'relative with ..': '../out/new.md',
    'relative to outside from the server cwd': relative(process.cwd(), join(out, 'new.md')),
    'NUL at the end': `${ws}/new.md\0`,
    'NUL then .. to outside': `${ws}/new.md\0/../../out/new.md`,
  }
}

describe.each<Transport>(['stdio', 'http'])('SCOPE over %s', (transport) => {
  let tree: Tree
  let session: Session
  let ws2: string
  let sideRoot: string

  beforeAll(async () => {
    const T = await real(await tempDir('quire-scope-'))
    tree = await buildTree(T)
    ws2 = join(T, 'ws2')
    await mkdir(ws2)
    await writeFile(join(ws2, 'a.md'), 'ws2 a\n')
    sideRoot = join(T, 'approved')
    await mkdir(sideRoot)
    await writeFile(join(sideRoot, 'x.md'), 'approved x\n')
    session = await launch(transport, { workspaces: [tree.ws, ws2] })
  })
  afterAll(async () => {
    await session?.close()
    if (tree) await rm(tree.T, { recursive: true, force: true })
  })

  const outsideNow = async () => ({ out: await snapshot(tree.out), evil: await snapshot(tree.wsEvil) })

  it('SCOPE.1 / WS.GEN.2 workspace.open, save and save_as work on files inside an open workspace root', async () => {
    const tabId = await openTab(session, join(tree.ws, 'sub', 'b.md'))
    expect(await readDoc(session, tabId)).toMatchObject({ content: 'inside b\n' })
    ok(await session.call('document', { action: 'write', tabId, content: 'inside b, edited\n', save: false }))
    const saved = ok(await session.call('workspace', { action: 'save', tabId }))
    expect(saved.filePath).toBe(join(tree.ws, 'sub', 'b.md'))
    expect(await fileText(join(tree.ws, 'sub', 'b.md'))).toBe('inside b, edited\n')
    // save_as into the workspace: asks the person first (WS.SAVE_AS.3), then saves once approved.
    const first = envelope(await session.call('workspace', { action: 'save_as', tabId, filePath: join(tree.ws, 'sub', 'copy.md') }), 'APPROVAL_REQUIRED')
    await approve(session.home, first.approvalId)
    ok(await session.call('workspace', { action: 'save_as', tabId, filePath: join(tree.ws, 'sub', 'copy.md') }))
    expect(await fileText(join(tree.ws, 'sub', 'copy.md'))).toBe('inside b, edited\n')
    // A symlink that stays inside is fine, and names the same document as its target.
    const viaLink = await openTab(session, join(tree.ws, 'link-in-file'))
    expect(await readDoc(session, viaLink)).toMatchObject({ content: 'inside a\n' })
    expect(viaLink).toBe(await openTab(session, join(tree.ws, 'a.md')))
  })

  it('SCOPE.2 / WS.OPEN.3 workspace.open refuses every escape (prefix sibling, symlinks to outside files and folders, .., relative, NUL, dangling) with INVALID_PATH and reads nothing', async () => {
    const tabsBefore = await tabCount(session)
    const before = await outsideNow()
    for (const [label, filePath] of Object.entries(escapingReads(tree))) {
      const result = await session.call('workspace', { action: 'open', filePath })
      expect(result.isError, `${label}: ${JSON.stringify(filePath)} was opened: ${result.text}`).toBe(true)
      envelope(result, 'INVALID_PATH')
      expect(result.text, label).not.toContain('SECRET')
    }
    expect(await tabCount(session)).toBe(tabsBefore)
    expect(await outsideNow()).toEqual(before)
  })

  it('WS.OPEN.3 a path inside the scope that cannot be read as text (a folder, a FIFO, invalid UTF-8, missing) is refused with INVALID_PATH, without hanging', async () => {
    const fifo = join(tree.ws, 'pipe.md')
    execFileSync('mkfifo', [fifo])
    await writeFile(join(tree.ws, 'binary.md'), Buffer.from([0x66, 0x6f, 0xff, 0xfe, 0x00, 0x80]))
    const tabsBefore = await tabCount(session)
    for (const filePath of [join(tree.ws, 'sub'), tree.ws, fifo, join(tree.ws, 'binary.md'), join(tree.ws, 'missing.md')]) {
      envelope(await within(5_000, `workspace.open ${filePath}`, session.call('workspace', { action: 'open', filePath })), 'INVALID_PATH')
    }
    expect(await tabCount(session)).toBe(tabsBefore)
    await unlink(fifo)
    await unlink(join(tree.ws, 'binary.md'))
  })

  it('SCOPE.2 / WS.GEN.2 workspace.save_as refuses every escape with INVALID_PATH (before any approval) and writes nothing anywhere', async () => {
    const tabId = await openTab(session, join(tree.ws, 'a.md'))
    const before = await outsideNow()
    const inside = await snapshot(tree.ws)
    for (const [label, filePath] of Object.entries(escapingWrites(tree))) {
      const result = await session.call('workspace', { action: 'save_as', tabId, filePath })
      expect(result.isError, `${label}: save_as ${JSON.stringify(filePath)} succeeded`).toBe(true)
      envelope(result, 'INVALID_PATH')
    }
    expect(await outsideNow()).toEqual(before)
    expect(await snapshot(tree.ws)).toEqual(inside)
    expect(ok(await session.call('document', { action: 'read', tabId })).filePath).toBe(join(tree.ws, 'a.md'))
  })

  it('SCOPE.2 document.write\'s save to a tab whose file was replaced by a symlink to an outside file writes nothing outside (saved: false, save_error)', async () => {
    const victim = join(tree.ws, 'victim.md')
    await writeFile(victim, 'victim\n')
    const tabId = await openTab(session, victim)
    await unlink(victim)
    await symlink(join(tree.out, 'secret.md'), victim)
    const before = await outsideNow()
    const written = ok(await session.call('document', { action: 'write', tabId, content: 'overwrite the secret?\n' }))
    expect(written).toMatchObject({ applied: true, saved: false })
    expect(typeof written.save_error).toBe('string')
    expect(written.journaled).toBeUndefined()
    expect(await outsideNow()).toEqual(before)
    expect((await snapshot(tree.ws))['victim.md']).toBe(`link -> ${join(tree.out, 'secret.md')}`)
    // workspace.save of the same tab: the INVALID_PATH envelope itself.
    envelope(await session.call('workspace', { action: 'save', tabId }), 'INVALID_PATH')
    expect(await outsideNow()).toEqual(before)
  })

  it('SCOPE.2 document.write\'s save to a tab whose folder was replaced by a symlink to an outside folder writes nothing outside', async () => {
    const folder = join(tree.ws, 'swapped')
    await mkdir(folder)
    await writeFile(join(folder, 'b.md'), 'swapped b\n')
    const tabId = await openTab(session, join(folder, 'b.md'))
    await rename(folder, `${folder}-old`)
    await symlink(tree.out, folder)
    const before = await outsideNow()
    const written = ok(await session.call('document', { action: 'write', tabId, content: 'overwrite out/b.md?\n' }))
    expect(written).toMatchObject({ applied: true, saved: false })
    expect(typeof written.save_error).toBe('string')
    envelope(await session.call('workspace', { action: 'save', tabId }), 'INVALID_PATH')
    expect(await outsideNow()).toEqual(before)
    expect(await fileText(join(`${folder}-old`, 'b.md'))).toBe('swapped b\n')
  })

  it('SCOPE.2 an open tab never takes in a file outside the workspace when its folder is swapped for a symlink to an outside folder (disk watcher)', async () => {
    const folder = join(tree.ws, 'watched')
    await mkdir(folder)
    await writeFile(join(folder, 'a.md'), 'watched a\n')
    const tabId = await openTab(session, join(folder, 'a.md'))
    await rename(folder, `${folder}-old`)
    await symlink(tree.out, folder) // T/out/a.md holds SECRET
    const seen = new Set<string>()
    const deadline = Date.now() + 2_500
    while (Date.now() < deadline) {
      seen.add((await readDoc(session, tabId)).content)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect([...seen], 'the document took in T/out/a.md through the swapped folder').not.toContain(SECRET)
  })

  it('SCOPE.2 a workspace root swapped for a symlink to an outside folder does not bring that folder into scope (workspace.open)', async () => {
    const tabsBefore = await tabCount(session)
    await rename(ws2, `${ws2}-old`)
    await symlink(tree.out, ws2) // T/out/a.md holds SECRET
    const result = await session.call('workspace', { action: 'open', filePath: join(ws2, 'a.md') })
    expect(result.text, 'T/out/a.md was opened through the swapped root').not.toContain('tabId')
    envelope(result, 'INVALID_PATH')
    expect(await tabCount(session)).toBe(tabsBefore)
  })

  it('SCOPE.4 / WS.OPEN_WORKSPACE.3 open_workspace is not bound by the scope: it asks for approval, and once approved its files open', async () => {
    const outsideFile = join(sideRoot, 'x.md')
    envelope(await session.call('workspace', { action: 'open', filePath: outsideFile }), 'INVALID_PATH')
    const asked = ok(await session.call('workspace', { action: 'open_workspace', folderPath: sideRoot }))
    expect(asked).toMatchObject({ needsApproval: true, folderPath: sideRoot })
    await approve(session.home, asked.approvalId)
    expect(ok(await session.call('workspace', { action: 'open_workspace', folderPath: sideRoot }))).toMatchObject({ opened: true })
    const tabId = await openTab(session, outsideFile)
    expect(await readDoc(session, tabId)).toMatchObject({ content: 'approved x\n' })
  })
})

describe.each<Transport>(['stdio', 'http'])('SCOPE.3 over %s', (transport) => {
  it('SCOPE.3 with no workspace and no open document every file operation is refused with INVALID_PATH', async () => {
    const T = await real(await tempDir('quire-noscope-'))
    const tree = await buildTree(T)
    const session = await launch(transport)
    try {
      const before = await snapshot(T)
      for (const filePath of [join(tree.ws, 'a.md'), join(tree.out, 'secret.md'), '/etc/hostname', '/']) {
        envelope(await session.call('workspace', { action: 'open', filePath }), 'INVALID_PATH')
      }
      expect(await tabCount(session)).toBe(0)
      const { tabId } = ok(await session.call('workspace', { action: 'new' }))
      ok(await session.call('document', { action: 'write', tabId, content: 'untitled text\n' }))
      for (const filePath of [join(tree.ws, 'new.md'), join(tree.out, 'new.md'), join(T, 'new.md')]) {
        envelope(await session.call('workspace', { action: 'save_as', tabId, filePath }), 'INVALID_PATH')
      }
      expect(await snapshot(T)).toEqual(before)
    } finally {
      await session.close()
      await rm(T, { recursive: true, force: true })
    }
  })
})

describe('SCOPE in-process (the person closes workspaces; saves paused in their queue)', () => {
  let tree: Tree
  beforeAll(async () => {
    tree = await buildTree(await real(await tempDir('quire-scope-ip-')))
  })
  afterAll(async () => {
    await rm(tree.T, { recursive: true, force: true })
  })

  /** A fresh copy of the workspace for one test (so moving or swapping it does not disturb the others). */
  async function freshWorkspace(name: string): Promise<string> {
    const ws = join(tree.T, name)
    await mkdir(join(ws, 'sub'), { recursive: true })
    await writeFile(join(ws, 'a.md'), `${name} a\n`)
    await writeFile(join(ws, 'sub', 'b.md'), `${name} b\n`)
    await writeFile(join(ws, 'sub', 'c.md'), `${name} c\n`)
    return ws
  }

  async function closeWorkspaces(session: Awaited<ReturnType<typeof launchFaulty>>): Promise<void> {
    const { engine } = session.quire.services
    for (const instanceId of [...engine.views.workspace.state.instances.keys()]) {
      await appendToView(engine.store, engine.views.workspace, [{ type: 'workspace.closed', actor: USER, data: { instanceId } }])
    }
  }

  it('SCOPE.1 / SCOPE.3 the folders of open documents stay in scope after their workspace closes; with nothing open, nothing is', async () => {
    const ws = await freshWorkspace('docs-scope')
    const session = await launchFaulty({ workspaces: [ws], autoApproveSaves: true })
    try {
      const b = await openTab(session, join(ws, 'sub', 'b.md'))
      await closeWorkspaces(session)
      const c = await openTab(session, join(ws, 'sub', 'c.md'))
      expect(await readDoc(session, c)).toMatchObject({ content: 'docs-scope c\n' })
      envelope(await session.call('workspace', { action: 'open', filePath: join(ws, 'a.md') }), 'INVALID_PATH')
      envelope(await session.call('workspace', { action: 'save_as', tabId: b, filePath: join(ws, 'new.md') }), 'INVALID_PATH')
      expect(await fileText(join(ws, 'new.md'))).toBeNull()
      ok(await session.call('workspace', { action: 'save_as', tabId: b, filePath: join(ws, 'sub', 'b2.md') }))
      for (const tabId of [b, c]) ok(await session.call('workspace', { action: 'close', tabId, force: true }))
      // Closed tabs leave no scope behind (SCOPE.3).
      envelope(await session.call('workspace', { action: 'open', filePath: join(ws, 'sub', 'c.md') }), 'INVALID_PATH')
    } finally {
      await session.close()
    }
  })

  it('SCOPE.5 / SAVE.2 a save waiting in its queue while the only root is moved away fails with INVALID_PATH and writes nothing', async () => {
    const ws = await freshWorkspace('moved-away')
    const fs = new FaultyFileSystem()
    const session = await launchFaulty({ workspaces: [ws], fs })
    try {
      const tabId = await openTab(session, join(ws, 'a.md'))
      ok(await session.call('document', { action: 'write', tabId, content: 'unsaved change\n', save: false }))
      const held = fs.holdNextAtTurn()
      const saving = session.call('workspace', { action: 'save', tabId })
      await held.reached
      await rename(ws, `${ws}-gone`)
      const snap = await snapshot(`${ws}-gone`)
      held.release()
      envelope(await saving, 'INVALID_PATH')
      expect(await snapshot(`${ws}-gone`)).toEqual(snap)
      expect(await fileText(join(ws, 'a.md'))).toBeNull()
      // document.write's save is refused the same way, reported in save_error.
      const held2 = fs.holdNextAtTurn()
      const writing = session.call('document', { action: 'write', tabId, content: 'second change\n' })
      await held2.reached
      held2.release()
      const written = ok(await writing)
      expect(written).toMatchObject({ applied: true, saved: false })
      expect(written.save_error).toEqual(expect.any(String))
      expect(await fileText(join(ws, 'a.md'))).toBeNull()
      expect(fs.writes).toEqual([])
    } finally {
      await session.close()
    }
  })

  it('SCOPE.5 / SAVE.2 a save_as waiting in its queue while the person closes the workspace fails with INVALID_PATH and creates nothing', async () => {
    const ws = await freshWorkspace('closed-meanwhile')
    const fs = new FaultyFileSystem()
    const session = await launchFaulty({ workspaces: [ws], fs, autoApproveSaves: true })
    try {
      const tabId = await openTab(session, join(ws, 'sub', 'b.md'))
      const held = fs.holdNextAtTurn()
      const saving = session.call('workspace', { action: 'save_as', tabId, filePath: join(ws, 'new.md') })
      await held.reached
      await closeWorkspaces(session)
      held.release()
      envelope(await saving, 'INVALID_PATH')
      expect(await fileText(join(ws, 'new.md'))).toBeNull()
      expect(fs.writes).toEqual([])
      expect(ok(await session.call('document', { action: 'read', tabId })).filePath).toBe(join(ws, 'sub', 'b.md'))
    } finally {
      await session.close()
    }
  })

  it('SCOPE.5 a save waiting in its queue while the root is swapped for a symlink to an outside folder writes nothing outside (INVALID_PATH)', async () => {
    const ws = await freshWorkspace('swapped-root')
    const fs = new FaultyFileSystem()
    const session = await launchFaulty({ workspaces: [ws], fs })
    try {
      const tabId = await openTab(session, join(ws, 'a.md'))
      ok(await session.call('document', { action: 'write', tabId, content: 'would land outside\n', save: false }))
      const before = await snapshot(tree.out)
      const held = fs.holdNextAtTurn()
      const saving = session.call('workspace', { action: 'save', tabId })
      await held.reached
      await rename(ws, `${ws}-old`)
      await symlink(tree.out, ws)
      held.release()
      envelope(await saving, 'INVALID_PATH')
      expect(await snapshot(tree.out)).toEqual(before)
      expect(await fileText(join(`${ws}-old`, 'a.md'))).toBe('swapped-root a\n')
    } finally {
      await session.close()
    }
  })
})

describe('SCOPE.2 a symlink swapped in between the check and the read or write (fault-injected port)', () => {
  let tree: Tree
  let n = 0
  beforeAll(async () => {
    tree = await buildTree(await real(await tempDir('quire-toctou-')))
  })
  afterAll(async () => {
    await rm(tree.T, { recursive: true, force: true })
  })

  async function fresh(): Promise<{ ws: string; session: Awaited<ReturnType<typeof launchFaulty>>; fs: FaultyFileSystem }> {
    const ws = join(tree.T, `ws${++n}`)
    await mkdir(join(ws, 'sub'), { recursive: true })
    await writeFile(join(ws, 'a.md'), 'inside a\n')
    await writeFile(join(ws, 'sub', 'b.md'), 'inside b\n')
    const fs = new FaultyFileSystem()
    const session = await launchFaulty({ workspaces: [ws], fs, autoApproveSaves: true })
    return { ws, session, fs }
  }

  const swapFileForLink = async (path: string, target: string) => {
    await unlink(path)
    await symlink(target, path)
  }
  const swapDirForLink = async (path: string, target: string) => {
    await rename(path, `${path}-old-${Math.random().toString(36).slice(2)}`)
    await symlink(target, path)
  }

  it('SCOPE.2 workspace.open: the file swapped for a symlink to an outside file after the check is refused with INVALID_PATH, nothing read', async () => {
    const { ws, session, fs } = await fresh()
    try {
      const held = fs.holdNextRead()
      const opening = session.call('workspace', { action: 'open', filePath: join(ws, 'a.md') })
      await held.reached
      await swapFileForLink(join(ws, 'a.md'), join(tree.out, 'secret.md'))
      held.release()
      const result = await opening
      expect(result.text).not.toContain('tabId')
      envelope(result, 'INVALID_PATH')
      expect(await tabCount(session)).toBe(0)
    } finally {
      await session.close()
    }
  })

  it('SCOPE.2 workspace.open: the folder swapped for a symlink to an outside folder after the check is refused with INVALID_PATH, nothing read', async () => {
    const { ws, session, fs } = await fresh()
    try {
      const held = fs.holdNextRead()
      const opening = session.call('workspace', { action: 'open', filePath: join(ws, 'sub', 'b.md') })
      await held.reached
      await swapDirForLink(join(ws, 'sub'), tree.out) // T/out/b.md holds SECRET
      held.release()
      const result = await opening
      const opened = result.isError ? undefined : (result.structured?.tabId as string)
      const content = opened ? (await readDoc(session, opened)).content : ''
      expect(content, 'workspace.open read T/out/b.md through the swapped folder').not.toBe(SECRET)
      envelope(result, 'INVALID_PATH')
    } finally {
      await session.close()
    }
  })

  it('SCOPE.2 document.write save: the file swapped for a symlink just before the rename is replaced, never followed: nothing written outside', async () => {
    const { ws, session, fs } = await fresh()
    try {
      const tabId = await openTab(session, join(ws, 'a.md'))
      const before = await snapshot(tree.out)
      fs.faultNextWrite({ beforeRename: ({ target }) => swapFileForLink(target, join(tree.out, 'secret.md')) })
      const written = ok(await session.call('document', { action: 'write', tabId, content: 'new inside a\n' }))
      expect(await snapshot(tree.out)).toEqual(before)
      // Either refused, or the link itself was replaced by the new file (rename does not follow it).
      if (written.saved) expect((await snapshot(ws))['a.md']).toMatch(/^file /)
      else expect(written.save_error).toEqual(expect.any(String))
    } finally {
      await session.close()
    }
  })

  it('SCOPE.2 document.write / workspace.save: the folder swapped for a symlink to outside just before the rename is refused (INVALID_PATH), nothing written outside', async () => {
    const { ws, session, fs } = await fresh()
    try {
      const tabId = await openTab(session, join(ws, 'sub', 'b.md'))
      const before = await snapshot(tree.out)
      fs.faultNextWrite({ beforeRename: () => swapDirForLink(join(ws, 'sub'), tree.out) })
      const written = ok(await session.call('document', { action: 'write', tabId, content: 'would be out/b.md\n' }))
      expect(written).toMatchObject({ applied: true, saved: false })
      expect(written.save_error).toEqual(expect.any(String))
      expect(await snapshot(tree.out)).toEqual(before)
      // The same swap under workspace.save: an INVALID_PATH envelope (the link is still there).
      envelope(await session.call('workspace', { action: 'save', tabId }), 'INVALID_PATH')
      expect(await snapshot(tree.out)).toEqual(before)
    } finally {
      await session.close()
    }
  })

  it('SCOPE.2 workspace.save: the folder swapped after the check but before the queue turn is refused by the re-check (INVALID_PATH)', async () => {
    const { ws, session, fs } = await fresh()
    try {
      const tabId = await openTab(session, join(ws, 'sub', 'b.md'))
      ok(await session.call('document', { action: 'write', tabId, content: 'dirty b\n', save: false }))
      const before = await snapshot(tree.out)
      const held = fs.holdNextAtTurn()
      const saving = session.call('workspace', { action: 'save', tabId })
      await held.reached
      await swapDirForLink(join(ws, 'sub'), tree.out)
      held.release()
      envelope(await saving, 'INVALID_PATH')
      expect(await snapshot(tree.out)).toEqual(before)
    } finally {
      await session.close()
    }
  })

  it('SCOPE.2 / WS.SAVE_AS.7 save_as: a symlink to outside appearing at the new target before the link step is never followed; the save is refused', async () => {
    const { ws, session, fs } = await fresh()
    try {
      const tabId = await openTab(session, join(ws, 'a.md'))
      const before = await snapshot(tree.out)
      const target = join(ws, 'new.md')
      fs.faultNextWrite({ beforeLink: () => symlink(join(tree.out, 'nope.md'), target) })
      const result = await session.call('workspace', { action: 'save_as', tabId, filePath: target })
      expect(result.isError, 'save_as wrote through a symlink that appeared at its target').toBe(true)
      expect(['INVALID_PATH', 'APPROVAL_REQUIRED']).toContain(result.structured?.error)
      expect(await snapshot(tree.out)).toEqual(before)
      expect((await snapshot(ws))['new.md']).toBe(`link -> ${join(tree.out, 'nope.md')}`)
    } finally {
      await session.close()
    }
  })

  it('SCOPE.2 save_as: the folder of the new target swapped for a symlink to outside before the link step is refused with INVALID_PATH, nothing created outside', async () => {
    const { ws, session, fs } = await fresh()
    try {
      const tabId = await openTab(session, join(ws, 'a.md'))
      const before = await snapshot(tree.out)
      fs.faultNextWrite({ beforeLink: () => swapDirForLink(join(ws, 'sub'), tree.out) })
      envelope(await session.call('workspace', { action: 'save_as', tabId, filePath: join(ws, 'sub', 'new.md') }), 'INVALID_PATH')
      expect(await snapshot(tree.out)).toEqual(before)
      expect(ok(await session.call('document', { action: 'read', tabId })).filePath).toBe(join(ws, 'a.md'))
    } finally {
      await session.close()
    }
  })
})
