import { spawn, spawnSync } from 'node:child_process'
import { chmod, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { repoRoot, runCli, type CliResult } from '../support/cli.js'
import { folder, ok, put, removeAll } from '../support/conformance.js'
import { launchStdio } from '../support/mcpHarness.js'
import { useTempHomes } from '../support/tempHome.js'

/** Issue 24 item 10: small things a person meets in the first hour. */

const newDir = useTempHomes()

function succeeded(result: CliResult): string {
  expect({ code: result.code, stderr: result.stderr, timedOut: result.timedOut }).toEqual({ code: 0, stderr: '', timedOut: false })
  return result.stdout
}

describe('npm start -- --home DIR (issue 24 item 10)', () => {
  it("npm hands --home to quire serve, which owns that data directory (the README's way to pass it)", async () => {
    const home = await newDir()
    const tools = await newDir()
    // npm runs a script through its script shell: this one records the command line instead of running it, so the
    // build step (a full build on a fresh dist/) is not run here; the serve step then runs exactly as npm wrote it.
    const shell = join(tools, 'record-shell')
    await writeFile(shell, `#!/bin/sh\nprintf '%s' "$2" > '${join(tools, 'command')}'\n`)
    await chmod(shell, 0o755)
    const npm = spawnSync('npm', ['start', `--script-shell=${shell}`, '--', '--home', home], { cwd: repoRoot, encoding: 'utf8' })
    expect(npm.status, npm.stderr).toBe(0)
    const [build, serve, ...more] = (await readFile(join(tools, 'command'), 'utf8')).split(' && ')
    expect({ build, more }).toEqual({ build: 'node scripts/buildIfChanged.mjs', more: [] })
    expect(serve).toBe(`node dist/adapters/cli/main.js serve --home ${home}`)

    const { QUIRE_HOME: _ignored, ...env } = process.env
    const daemon = spawn('sh', ['-c', `exec ${serve}`], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] })
    try {
      let port: string | undefined
      for (let waited = 0; waited < 15_000 && port === undefined; waited += 50) {
        port = await readFile(join(home, 'port'), 'utf8').catch(() => undefined)
        if (port === undefined) await sleep(50)
      }
      expect(port).toMatch(/^\d+:\S+\n?$/)
      expect(succeeded(await runCli(['status'], { home }))).toContain(`owner: process ${daemon.pid} `)
    } finally {
      daemon.kill('SIGTERM')
      await new Promise((resolve) => daemon.once('exit', resolve))
    }
  }, 60_000)
})

describe('a mistyped command (issue 24 item 10)', () => {
  it('answers one line naming the closest command, exit 2, no usage', async () => {
    const home = await newDir()
    const cases: [string, string][] = [
      ['histroy', 'unknown command "histroy"; did you mean "history"? (quire help lists them)'],
      ['stauts', 'unknown command "stauts"; did you mean "status"? (quire help lists them)'],
      ['approval', 'unknown command "approval"; did you mean "approvals"? (quire help lists them)'],
      ['rplay', 'unknown command "rplay"; did you mean "replay"? (quire help lists them)'],
      ['ingest', 'unknown command "ingest"; did you mean "ingest-trace"? (quire help lists them)'],
      ['frobnicate', 'unknown command "frobnicate" (quire help lists them)'],
    ]
    for (const [command, message] of cases) {
      const result = await runCli([command, 'notes.md'], { home })
      expect({ command, code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({ command, code: 2, stdout: '', stderr: `quire: ${message}\n` })
    }
  })
})

describe('quire log columns (issue 24 item 10)', () => {
  it('stay aligned when an agent has a long name', async () => {
    const home = await newDir()
    const ws = await folder('log-columns')
    try {
      const agent = `a-very-long-agent-name-${'x'.repeat(40)}`
      const token = succeeded(await runCli(['agent', 'add', agent], { home })).trim()
      await put(join(ws, 'notes.md'), '# Notes\n')
      const mcp = await launchStdio({ home, workspaces: [ws], env: { QUIRE_TOKEN: token } })
      try {
        const tabId = ok(await mcp.call('workspace', { action: 'open', filePath: join(ws, 'notes.md') })).tabId as string
        ok(await mcp.call('document', { action: 'write', tabId, content: '# Notes\n\nwritten\n' }))
      } finally {
        await mcp.close()
      }
      const events = succeeded(await runCli(['log', '--json'], { home })).trim().split('\n').map((line) => JSON.parse(line) as { type: string; stream: string; actor: { kind: string; principal?: string } })
      expect(events.some((event) => event.actor.principal === agent)).toBe(true)
      const lines = succeeded(await runCli(['log'], { home })).trimEnd().split('\n')
      expect(lines).toHaveLength(events.length)
      // Where each line's type and stream start: one column each, whatever the actor before them.
      const typeColumns = new Set(lines.map((line, i) => line.indexOf(`  ${events[i]!.type} `) + 2))
      const streamColumns = new Set(lines.map((line, i) => line.indexOf(` ${events[i]!.stream}  `, typeColumns.values().next().value) + 1))
      expect({ typeColumns: [...typeColumns], streamColumns: [...streamColumns] }).toEqual({
        typeColumns: [expect.any(Number)], streamColumns: [expect.any(Number)],
      })
      expect(lines.filter((line) => line.includes(`  mcp:${agent}/stdio-`)).length).toBeGreaterThan(0)
    } finally {
      await removeAll(ws)
    }
  }, 60_000)
})
