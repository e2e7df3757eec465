/**
 * Quire's own data is never in scope (issue 11, finding 1): a workspace may contain the data directory (`quire serve
 * --workspace ~` with the default `~/.local/share/quire`), yet nothing inside it — the port file and its token, the
 * log, the lock — can be opened, saved over or created by an agent, directly or through a symlink. Run through the
 * real SDK client against the `quire serve` daemon, with the data directory inside the workspace.
 */
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { envelope, folder, ok, tabsOf } from '../support/conformance.js'
import { launchDaemon, type Daemon, type Session } from '../support/mcpHarness.js'

describe('the data directory inside the workspace', () => {
  let workspace: string
  let home: string
  let daemon: Daemon
  let session: Session

  beforeAll(async () => {
    workspace = await folder('security-data', { 'notes.md': 'my notes\n' })
    home = join(workspace, 'quire-home')
    await mkdir(home)
    daemon = await launchDaemon({ home, workspaces: [workspace] })
    session = await daemon.connect()
    await symlink(join(home, 'port'), join(workspace, 'port-link.md'))
    await symlink(home, join(workspace, 'home-link'))
  })
  afterAll(async () => {
    await session?.close()
    await daemon?.stop()
    await rm(workspace, { recursive: true, force: true })
  })

  const refusedAsQuireData = (result: Awaited<ReturnType<Session['call']>>, label: string): void => {
    const refusal = envelope(result, 'INVALID_PATH')
    expect(refusal.message, label).toMatch(/Quire's own data/)
    expect(result.text, `${label} leaked the token`).not.toContain(daemon.token)
  }

  it('workspace.open of <home>/port, of a symlink to it and through a symlinked folder is INVALID_PATH and opens nothing', async () => {
    const tabsBefore = (await tabsOf(session)).length
    for (const filePath of [
      join(home, 'port'),
      join(workspace, 'port-link.md'),
      join(workspace, 'home-link', 'port'),
      join(home, 'log', 'CURRENT'),
      `${home}/../quire-home/port`,
    ]) {
      refusedAsQuireData(await session.call('workspace', { action: 'open', filePath }), filePath)
    }
    expect((await tabsOf(session)).length).toBe(tabsBefore)
  })

  it('save_as into the data directory (new or existing file, direct or through a symlinked folder) is INVALID_PATH, before any approval', async () => {
    const tabId = ok(await session.call('workspace', { action: 'open', filePath: join(workspace, 'notes.md') })).tabId
    const current = await readFile(join(home, 'log', 'CURRENT'))
    for (const filePath of [join(home, 'log', 'CURRENT'), join(home, 'stolen.md'), join(workspace, 'home-link', 'stolen.md'), join(home, 'log', 'x.ldb')]) {
      refusedAsQuireData(await session.call('workspace', { action: 'save_as', tabId, filePath }), filePath)
    }
    expect(await readFile(join(home, 'log', 'CURRENT'))).toEqual(current)
    await expect(readFile(join(home, 'stolen.md'))).rejects.toThrow()
  })

  it('a temp file of a save is Quire\'s own too: it cannot be opened', async () => {
    const temp = join(workspace, '.quire-save-0123456789abcdef.tmp')
    await writeFile(temp, 'half a save\n')
    refusedAsQuireData(await session.call('workspace', { action: 'open', filePath: temp }), temp)
    await rm(temp)
  })

  it('after all of that the log is intact: the daemon restarts on the same data directory', async () => {
    await session.close()
    await daemon.stop()
    daemon = await launchDaemon({ home, workspaces: [workspace] })
    session = await daemon.connect()
    const tabId = ok(await session.call('workspace', { action: 'open', filePath: join(workspace, 'notes.md') })).tabId
    expect(ok(await session.call('document', { action: 'read', tabId })).content).toBe('my notes\n')
  })
})
