/**
 * The data directory is the person's alone (issue 11, finding 6): under the common umask 022, every directory Quire
 * creates or finds in its data directory is 0700 and every file 0600 — the log's LevelDB files, the port file, the
 * lock — even files an earlier version left world-readable, and the built console bundle likewise. The person's own
 * documents are not Quire's: a saved file keeps its mode, a new one gets 0666 minus the person's umask.
 */
import { chmod, lstat, readdir, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decide, envelope, folder, ok, put } from '../support/conformance.js'
import { launchDaemon, REPO_ROOT, tempDir, type Daemon } from '../support/mcpHarness.js'

/** Every entry under `root` (itself included) that is not `mode` for its kind: `path mode`, for a readable failure. */
async function wrongModes(root: string, directoryMode: number, fileMode: number): Promise<string[]> {
  const wrong: string[] = []
  const visit = async (path: string): Promise<void> => {
    const info = await lstat(path)
    const mode = info.mode & 0o777
    if (info.isDirectory()) {
      if (mode !== directoryMode) wrong.push(`${path} ${mode.toString(8)}`)
      for (const name of await readdir(path)) await visit(join(path, name))
    } else if (info.isFile() && mode !== fileMode) {
      wrong.push(`${path} ${mode.toString(8)}`)
    }
  }
  await visit(root)
  return wrong
}

/** What an earlier version (or a careless umask) left: everything readable by everyone. */
async function loosen(root: string): Promise<void> {
  const info = await lstat(root)
  if (info.isDirectory()) {
    await chmod(root, 0o755)
    for (const name of await readdir(root)) await loosen(join(root, name))
  } else if (info.isFile()) {
    await chmod(root, 0o644)
  }
}

const modeOf = async (path: string): Promise<number> => (await stat(path)).mode & 0o777

describe('file modes under umask 022', () => {
  let umask: number
  let workspace: string
  let homeParent: string
  let home: string

  beforeAll(async () => {
    umask = process.umask(0o022)
    workspace = await folder('security-modes', { 'mine.md': 'mine\n', 'shared.md': 'shared\n' })
    await chmod(join(workspace, 'mine.md'), 0o640)
    homeParent = await tempDir('quire-modes-')
    home = join(homeParent, 'data')
  })
  afterAll(async () => {
    process.umask(umask)
    await rm(workspace, { recursive: true, force: true })
    await rm(homeParent, { recursive: true, force: true })
  })

  /** One daemon run that writes: a save of each existing document, a save_as to a new file. */
  async function runWithWrites(round: number): Promise<void> {
    const daemon: Daemon = await launchDaemon({ home, workspaces: [workspace] })
    try {
      expect(await modeOf(join(home, 'port'))).toBe(0o600)
      const session = await daemon.connect()
      for (const name of ['mine.md', 'shared.md']) {
        const tabId = ok(await session.call('workspace', { action: 'open', filePath: join(workspace, name) })).tabId
        expect(ok(await session.call('document', { action: 'write', tabId, content: `${name} round ${round}\n` })).saved).toBe(true)
        if (name === 'shared.md') {
          const filePath = join(workspace, `new-${round}.md`)
          const asked = envelope(await session.call('workspace', { action: 'save_as', tabId, filePath }), 'APPROVAL_REQUIRED')
          await decide(home, 'approve', asked.approvalId)
          ok(await session.call('workspace', { action: 'save_as', tabId, filePath }))
        }
      }
      await session.close()
    } finally {
      await daemon.stop()
    }
  }

  it('a data directory Quire creates holds only 0700 directories and 0600 files; documents keep their own modes', async () => {
    await runWithWrites(1)
    expect(await wrongModes(home, 0o700, 0o600)).toEqual([])
    expect(await modeOf(join(workspace, 'mine.md'))).toBe(0o640)
    expect(await modeOf(join(workspace, 'shared.md'))).toBe(0o644)
    expect(await modeOf(join(workspace, 'new-1.md'))).toBe(0o644)
  })

  it('a data directory left world-readable (0755/0644) is made private at the next start', async () => {
    await loosen(home)
    expect((await wrongModes(home, 0o700, 0o600)).length).toBeGreaterThan(0)
    await runWithWrites(2)
    expect(await wrongModes(home, 0o700, 0o600)).toEqual([])
    expect(await modeOf(join(workspace, 'new-2.md'))).toBe(0o644)
  })

  it('the built console bundle is 0600 in a 0700 folder', async () => {
    expect(await wrongModes(join(REPO_ROOT, 'dist', 'web'), 0o700, 0o600)).toEqual([])
  })
})
