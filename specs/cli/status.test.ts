import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { repoRoot, runCli, type CliResult } from '../support/cli.js'
import { launchDaemon } from '../support/mcpHarness.js'
import { useTempHomes } from '../support/tempHome.js'

/** `quire status`: which process owns the data directory (pid, address, a console link), or plainly that none does. */

const newHome = useTempHomes()

function ok(result: CliResult): string {
  expect({ code: result.code, stderr: result.stderr, timedOut: result.timedOut }).toEqual({ code: 0, stderr: '', timedOut: false })
  return result.stdout
}

const VERSION = (JSON.parse(await readFile(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version
const NOBODY = 'owner: none; no Quire process runs on this directory (start the daemon with `quire serve`)'

describe('quire status', () => {
  it('says plainly that nothing runs on a directory no process owns', async () => {
    const home = await newHome()
    for (const args of [['status'], []]) {
      const lines = ok(await runCli(args, { home })).split('\n')
      expect(lines.slice(0, 3)).toEqual([`data directory: ${home}`, NOBODY, 'log: head position 0, 0 documents'])
    }
  })

  it('names the daemon that owns the directory: its pid, address and a console link that signs a browser in once', async () => {
    const home = await newHome()
    const daemon = await launchDaemon({ home })
    try {
      const printed = ok(await runCli(['status'], { home }))
      const lines = printed.split('\n')
      expect(lines[0]).toBe(`data directory: ${home}`)
      expect(lines[1]).toBe(`owner: process ${daemon.process.pid} (quire ${VERSION}) at ${daemon.url}; MCP at ${daemon.url}/mcp`)
      expect(lines[3]).toMatch(/^log: head position \d+$/)
      // The access token is never printed; the link carries a one-time code the daemon made for this call.
      expect(printed).not.toContain(daemon.token)
      const link = /^console: (\S+)$/.exec(lines[2]!)?.[1]
      expect(link?.startsWith(`${daemon.url}/`), lines[2]).toBe(true)
      const signIn = await fetch(link!, { redirect: 'manual' })
      expect(signIn.status).toBe(303)
      expect(signIn.headers.get('set-cookie')).toMatch(new RegExp(`^quire_session_${daemon.port}=`))
      const again = await fetch(link!, { redirect: 'manual' })
      expect(again.headers.get('set-cookie')).toBeNull()

      // Each call gets its own link.
      const second = /console: (\S+)/.exec(ok(await runCli(['status'], { home })))?.[1]
      expect(second).not.toBe(link)
    } finally {
      await daemon.stop()
    }
    expect(ok(await runCli(['status'], { home })).split('\n')[1]).toBe(NOBODY)
  })

  it('a port file left by a daemon that was killed does not count as an owner', async () => {
    const home = await newHome()
    const daemon = await launchDaemon({ home })
    const exited = new Promise((resolve) => daemon.process.once('exit', resolve))
    daemon.process.kill('SIGKILL')
    await exited
    expect(await readFile(join(home, 'port'), 'utf8')).toMatch(/^\d+:/)
    expect(ok(await runCli(['status'], { home })).split('\n')[1]).toBe(NOBODY)
  })
})
