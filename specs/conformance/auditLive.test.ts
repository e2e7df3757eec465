import { spawnSync } from 'node:child_process'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { CLI, launchDaemon } from '../support/mcpHarness.js'
import { testStoreEnv } from '../support/testStore.js'

const quire = (home: string, ...args: string[]) => spawnSync(process.execPath, [CLI, '--home', home, ...args], { encoding: 'utf8', timeout: 30_000, env: { ...process.env, ...testStoreEnv(home) } })

describe('auditing a running daemon', () => {
  it('log, replay and verify work while the daemon owns the data directory, answering what they would answer offline', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'quire-audit-'))
    const file = join(folder, 'a.md')
    await writeFile(file, 'one\n')
    const daemon = await launchDaemon({ workspaces: [folder], home: await mkdtemp(join(tmpdir(), 'quire-audit-home-')) })
    let live: { log: string; replay: string; replayAt: string; verify: string }
    let firstRevision: string
    try {
      const session = await daemon.connect()
      const { structured } = await session.call('workspace', { action: 'open', filePath: file })
      firstRevision = (await session.call('document', { action: 'read', tabId: structured!.tabId })).structured!.revision as string
      await session.call('document', { action: 'write', tabId: structured!.tabId, content: 'two\n' })
      await session.close()
      const log = quire(daemon.home, 'log', '--json')
      const replay = quire(daemon.home, 'replay', '--doc', file)
      const replayAt = quire(daemon.home, 'replay', '--doc', file, '--at', firstRevision)
      const verified = quire(daemon.home, 'verify')
      for (const result of [log, replay, replayAt, verified]) expect(result.status, result.stderr).toBe(0)
      live = { log: log.stdout, replay: replay.stdout, replayAt: replayAt.stdout, verify: verified.stdout }
    } finally {
      await daemon.stop()
    }
    expect(live.replay).toBe('two\n')
    expect(live.replayAt).toBe('one\n')
    expect(live.verify).toMatch(/^ok: /m)
    const types = live.log.trim().split('\n').map((line) => (JSON.parse(line) as { type: string }).type)
    expect(types).toEqual(expect.arrayContaining(['workspace.opened', 'document.created', 'journal.recorded', 'document.changed', 'document.saved']))
    // Offline, the same directory gives the same answers.
    expect(quire(daemon.home, 'log', '--json').stdout).toBe(live.log)
    expect(quire(daemon.home, 'replay', '--doc', file, '--at', firstRevision).stdout).toBe('one\n')
  })
})
