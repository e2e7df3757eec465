/**
 * Temp files of a killed save do not linger (issue 11, finding 12). A save's temp file carries its owner's pid
 * (adapters/fs/saveTemp.ts); one whose owner is dead is removed at once — when a document of its folder is opened,
 * and when the daemon starts, for the folders of the documents in its log — instead of after ten minutes. A temp of
 * a live process (a save in progress) or of an earlier version (no owner in its name) keeps the age rule.
 */
import { spawn } from 'node:child_process'
import { readdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { folder, ok, put } from '../support/conformance.js'
import { launchDaemon, tempDir } from '../support/mcpHarness.js'

/** The pid of a process that has exited (a save killed mid-way leaves its temp behind with this owner). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' })
  await new Promise((resolve) => child.once('exit', resolve))
  return child.pid!
}

const temps = async (directory: string): Promise<string[]> => (await readdir(directory)).filter((name) => name.startsWith('.quire-save-')).sort()

describe('temp files left by killed saves', () => {
  let workspace: string
  let homeParent: string
  let home: string

  beforeAll(async () => {
    workspace = await folder('security-temps', { 'open/doc.md': 'doc\n', 'known/doc.md': 'known\n' })
    homeParent = await tempDir('quire-temps-home-')
    home = join(homeParent, 'data')
  })
  afterAll(async () => {
    await rm(workspace, { recursive: true, force: true })
    await rm(homeParent, { recursive: true, force: true })
  })

  it('opening a document removes the temps of dead owners in its folder at once, and no others', async () => {
    const directory = join(workspace, 'open')
    const dead = `.quire-save-${await deadPid()}-0123456789abcdef.tmp`
    const live = `.quire-save-${process.pid}-fedcba9876543210.tmp`
    const legacy = '.quire-save-00112233445566ff.tmp'
    for (const name of [dead, live, legacy]) await writeFile(join(directory, name), 'half a save of a secret\n')
    const daemon = await launchDaemon({ home, workspaces: [workspace] })
    try {
      const session = await daemon.connect()
      ok(await session.call('workspace', { action: 'open', filePath: join(directory, 'doc.md') }))
      expect(await temps(directory)).toEqual([live, legacy].sort())
      await session.close()
    } finally {
      await daemon.stop()
    }
    for (const name of [live, legacy]) await rm(join(directory, name))
  })

  it('at start-up the daemon removes the dead owners\' temps in the folders of the documents it knows', async () => {
    const directory = join(workspace, 'known')
    let daemon = await launchDaemon({ home, workspaces: [workspace] })
    const session = await daemon.connect()
    ok(await session.call('workspace', { action: 'open', filePath: join(directory, 'doc.md') }))
    await session.close()
    await daemon.stop()
    // The next run's saves were killed: their temps stay behind while nothing runs.
    const dead = `.quire-save-${await deadPid()}-0123456789abcdef.tmp`
    await put(join(directory, dead), 'half a save of a secret\n')
    daemon = await launchDaemon({ home, workspaces: [workspace] })
    try {
      // launchDaemon returns once the port file exists: start-up, sweep included, is done.
      expect(await temps(directory)).toEqual([])
    } finally {
      await daemon.stop()
    }
  })
})
