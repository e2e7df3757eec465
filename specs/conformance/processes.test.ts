import { spawnSync } from 'node:child_process'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { CLI, launchDaemon, launchStdio } from '../support/mcpHarness.js'
import { testStoreEnv } from '../support/testStore.js'

const quire = (home: string, ...args: string[]) => spawnSync(process.execPath, [CLI, '--home', home, ...args], { encoding: 'utf8', timeout: 30_000, env: { ...process.env, ...testStoreEnv(home) } })

describe('processes and identity (the MCP issue, item 1)', () => {
  it('quire mcp attaches to the daemon that owns the data directory: both see one state', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'quire-attach-'))
    await writeFile(join(folder, 'a.md'), 'shared\n')
    const daemon = await launchDaemon({ workspaces: [folder] })
    try {
      const stdio = await launchStdio({ home: daemon.home })
      const opened = await stdio.call('workspace', { action: 'open', filePath: join(folder, 'a.md') })
      expect(opened.isError).toBe(false)
      const http = await daemon.connect()
      const state = await http.call('session', { action: 'get_state' })
      const tabs = (state.structured!.windows as { tabs: { id: string }[] }[])[0]!.tabs
      expect(tabs.map((tab) => tab.id)).toContain(opened.structured!.tabId)
      await stdio.close()
      await http.close()
    } finally {
      await daemon.stop()
    }
  })

  it('two quire mcp started at the same moment on one data directory: one owns it, the other attaches', async () => {
    const home = await mkdtemp(join(tmpdir(), 'quire-twin-'))
    const [first, second] = await Promise.all([launchStdio({ home }), launchStdio({ home })])
    try {
      const created = await first.call('workspace', { action: 'new' })
      expect(created.isError).toBe(false)
      const state = await second.call('session', { action: 'get_state' })
      const tabs = (state.structured!.windows as { tabs: { id: string }[] }[])[0]!.tabs
      expect(tabs.map((tab) => tab.id)).toContain(created.structured!.tabId)
    } finally {
      await second.close()
      await first.close()
    }
  })

  it('an agent token makes its name the principal on every event it causes; other tokens are refused', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'quire-agent-'))
    await writeFile(join(folder, 'a.md'), 'one\n')
    // Our own data directory: the harness removes one it made when the daemon stops, and the log is read after.
    const daemon = await launchDaemon({ workspaces: [folder], home: await mkdtemp(join(tmpdir(), 'quire-agent-home-')) })
    try {
      const added = quire(daemon.home, 'agent', 'add', 'claude')
      expect(added.status).toBe(0)
      const token = added.stdout.trim()
      expect(token).toMatch(/^qa_[A-Za-z0-9_-]{20,}$/)
      const agent = await daemon.connect(token)
      const { structured } = await agent.call('workspace', { action: 'open', filePath: join(folder, 'a.md') })
      const written = await agent.call('document', { action: 'write', tabId: structured!.tabId, content: 'two\n' })
      expect(written.isError).toBe(false)
      await agent.close()
      await expect(daemon.connect('qa_not-a-token')).rejects.toThrow()
      const admin = await fetch(`${daemon.url}/admin/approvals`, { headers: { authorization: `Bearer ${token}` } })
      expect(admin.status).toBe(401)
      const anonymous = await fetch(`${daemon.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
      expect(anonymous.status).toBe(401)
    } finally {
      await daemon.stop()
    }
    const log = quire(daemon.home, 'log', '--json')
    const events = log.stdout.trim().split('\n').map((line) => JSON.parse(line) as { type: string; actor: { kind: string; principal?: string } })
    const byAgent = events.filter((event) => event.actor.kind === 'mcp')
    expect(byAgent.map((event) => event.type)).toEqual(expect.arrayContaining(['tab.opened', 'journal.recorded', 'document.changed', 'document.saved']))
    for (const event of byAgent) expect(event.actor.principal).toBe('claude')
  })

  it('quire mcp refuses to start with a QUIRE_TOKEN that is not a live agent token', async () => {
    const home = await mkdtemp(join(tmpdir(), 'quire-badtoken-'))
    const result = spawnSync(process.execPath, [CLI, '--home', home, 'mcp'], {
      encoding: 'utf8', env: { ...process.env, QUIRE_TOKEN: 'qa_wrong', QUIRE_HOME: '' }, input: '', timeout: 30_000,
    })
    expect(result.status).toBe(1)
    expect(result.stderr).toMatch(/QUIRE_TOKEN is not a live agent token/)
    expect(result.stdout).toBe('')
  })

  it('the port file is private to the person (0600) and names the daemon; it is removed when the daemon stops', async () => {
    const daemon = await launchDaemon()
    const { stat, readFile } = await import('node:fs/promises')
    const info = await stat(join(daemon.home, 'port'))
    expect(info.mode & 0o777).toBe(0o600)
    expect((await readFile(join(daemon.home, 'port'), 'utf8')).trim()).toBe(`${daemon.port}:${daemon.token}`)
    await daemon.stop()
    await expect(stat(join(daemon.home, 'port'))).rejects.toThrow()
  })
})
