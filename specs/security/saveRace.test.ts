/**
 * A save never creates a byte outside the workspace (issue 11, finding 7): while another process swaps a workspace
 * folder for a symlink to an outside folder and back, as fast as it can, an agent saves a document of that folder
 * again and again (`workspace.save`). Each save either lands in the real folder or is refused; the outside folder stays empty (before
 * the fix, `.quire-save-*.tmp` files holding the document's text piled up there).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { lstat, mkdir, readdir, rename, rm, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { folder, ok, put } from '../support/conformance.js'
import { launchDaemon, type Daemon, type Session } from '../support/mcpHarness.js'

const SAVES = 300

/** Swaps `folder` for a symlink to `outside` and back, in a loop, until killed. */
function startSwapping(folderPath: string, outside: string): ChildProcess {
  const script = `
    const { renameSync, symlinkSync, unlinkSync } = require('node:fs')
    const [folder, aside, outside] = process.argv.slice(1)
    for (;;) {
      try { renameSync(folder, aside); symlinkSync(outside, folder); unlinkSync(folder); renameSync(aside, folder) } catch {}
    }`
  return spawn(process.execPath, ['-e', script, folderPath, `${folderPath}-aside`, outside], { stdio: 'ignore' })
}

async function stopSwapping(swapper: ChildProcess, folderPath: string): Promise<void> {
  if (swapper.exitCode === null && swapper.signalCode === null) {
    swapper.kill('SIGKILL')
    await new Promise((resolve) => swapper.once('exit', resolve))
  }
  // Killed anywhere in the loop: put the real folder back.
  const isLink = await lstat(folderPath).then((stats) => stats.isSymbolicLink(), () => false)
  if (isLink) await unlink(folderPath)
  const aside = await lstat(`${folderPath}-aside`).then(() => true, () => false)
  if (aside) await rename(`${folderPath}-aside`, folderPath)
}

describe('saves while a workspace folder is swapped for a symlink to an outside folder', () => {
  let root: string
  let workspace: string
  let outside: string
  let daemon: Daemon
  let session: Session

  beforeAll(async () => {
    root = await folder('security-race')
    workspace = join(root, 'ws')
    outside = join(root, 'outside')
    await mkdir(outside)
    await put(join(workspace, 'sub', 'doc.md'), 'the first version\n')
    daemon = await launchDaemon({ workspaces: [workspace] })
    session = await daemon.connect()
  })
  afterAll(async () => {
    await session?.close()
    await daemon?.stop()
    await rm(root, { recursive: true, force: true })
  })

  it(`${SAVES} saves create nothing at all in the outside folder`, async () => {
    const folderPath = join(workspace, 'sub')
    const tabId = ok(await session.call('workspace', { action: 'open', filePath: join(folderPath, 'doc.md') })).tabId
    ok(await session.call('document', { action: 'write', tabId, content: 'the secret version\n', save: false }))
    const swapper = startSwapping(folderPath, outside)
    let saved = 0
    try {
      // workspace.save writes the file every time, changed or not: each is one more chance to land outside.
      for (let i = 0; i < SAVES; i++) if (!(await session.call('workspace', { action: 'save', tabId })).isError) saved++
    } finally {
      await stopSwapping(swapper, folderPath)
    }
    expect(await readdir(outside), `${saved} of ${SAVES} saves went through; the outside folder must stay empty`).toEqual([])
    expect((await readdir(root)).sort()).toEqual(['outside', 'ws'])
    // And no refused save left its temp file behind inside either.
    expect((await readdir(folderPath)).filter((name) => name.startsWith('.quire-save-'))).toEqual([])
  })
})
