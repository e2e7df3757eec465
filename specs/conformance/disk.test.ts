import { spawnSync } from 'node:child_process'
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { CLI, launchDaemon, type Session } from '../support/mcpHarness.js'
import { testStoreEnv } from '../support/testStore.js'

/** Waits until `read` returns something `done` accepts (the watcher debounces, so changes arrive ~50 ms late). */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 5_000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await read()
    if (done(value) || Date.now() > deadline) return value
    await sleep(25)
  }
}

const readDoc = async (session: Session, tabId: unknown) =>
  (await session.call('document', { action: 'read', tabId })).structured as { content: string; dirty: boolean; revision: string }

describe('the disk as a participant (the MCP issue, item 4)', () => {
  it('a clean tab follows changes other programs make; a dirty one diverges until the person decides', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'quire-disk-'))
    const file = join(folder, 'notes.md')
    await writeFile(file, 'first\n')
    const daemon = await launchDaemon({ workspaces: [folder] })
    const session = await daemon.connect()
    try {
      const { structured } = await session.call('workspace', { action: 'open', filePath: file })
      const tabId = structured!.tabId
      const opened = await readDoc(session, tabId)

      await sleep(100)
      await writeFile(file, 'edited elsewhere\n')
      const followed = await until(() => readDoc(session, tabId), (doc) => doc.content === 'edited elsewhere\n')
      expect(followed).toMatchObject({ content: 'edited elsewhere\n', dirty: false })
      expect(followed.revision).not.toBe(opened.revision)

      const mine = await session.call('document', { action: 'write', tabId, content: 'my unsaved text\n', save: false })
      expect(mine.structured).toMatchObject({ saved: false, save_skipped: 'opt_out' })
      await writeFile(file, 'their text\n')
      const refused = await until(
        () => session.call('workspace', { action: 'close', tabId }),
        (result) => (result.structured as { reason?: string }).reason === 'DIVERGENT',
      )
      expect(refused.structured).toEqual({ closed: false, reason: 'DIVERGENT' })
      // Nobody chose yet: saving would silently destroy the other program's text, so it is refused.
      const save = await session.call('workspace', { action: 'save', tabId })
      expect(save.isError).toBe(true)
      expect(save.structured).toMatchObject({ error: 'STALE' })
      expect(await readFile(file, 'utf8')).toBe('their text\n')
      expect((await readDoc(session, tabId)).content).toBe('my unsaved text\n')

      const kept = spawnSync(process.execPath, [CLI, '--home', daemon.home, 'divergence', 'keep', file], { encoding: 'utf8', env: { ...process.env, ...testStoreEnv(daemon.home) } })
      expect(kept.status, kept.stderr).toBe(0)
      expect((await session.call('workspace', { action: 'close', tabId })).structured).toEqual({ closed: false, reason: 'DIVERGENT' })
      const saved = await session.call('workspace', { action: 'save', tabId })
      expect(saved.isError).toBe(false)
      expect(await readFile(file, 'utf8')).toBe('my unsaved text\n')

      await session.call('document', { action: 'write', tabId, content: 'unsaved again\n', save: false })
      await writeFile(file, 'theirs again\n')
      await until(() => session.call('workspace', { action: 'close', tabId }), (result) => (result.structured as { reason?: string }).reason === 'DIVERGENT')
      const reloaded = spawnSync(process.execPath, [CLI, '--home', daemon.home, 'divergence', 'reload', file], { encoding: 'utf8', env: { ...process.env, ...testStoreEnv(daemon.home) } })
      expect(reloaded.status, reloaded.stderr).toBe(0)
      expect(await readDoc(session, tabId)).toMatchObject({ content: 'theirs again\n', dirty: false })
      expect((await session.call('workspace', { action: 'close', tabId })).structured).toEqual({ closed: true })
    } finally {
      await session.close()
      await daemon.stop()
    }
  })
})
