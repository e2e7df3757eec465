import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { runCli, supportScript, type CliResult } from '../support/cli.js'
import { launchDaemon } from '../support/mcpHarness.js'
import { testStoreEnv } from '../support/testStore.js'
import { useTempHomes } from '../support/tempHome.js'

/**
 * What `quire` loads before it answers. The core, the HTTP server and the MCP server take most of a second to load:
 * help, a usage error and every command the running daemon answers (`quire mcp` attaching among them, which AI
 * clients start for each session) must not wait for them.
 */

const newDir = useTempHomes()

/** Runs `quire args` and answers its result with the repository files it loaded (paths under dist/). */
async function loadsOf(args: string[], home: string): Promise<{ result: CliResult; loaded: string[] }> {
  const loads = join(await newDir(), 'loads')
  const { QUIRE_HOME: _ignored, ...inherited } = process.env
  const env = {
    ...inherited,
    ...testStoreEnv(home),
    NODE_OPTIONS: `--import=${pathToFileURL(supportScript('recordLoads')).href}`,
    QUIRE_TEST_LOADS: loads,
  }
  const result = await runCli(args, { home, env })
  const urls = (await readFile(loads, 'utf8').catch(() => '')).split('\n')
  const loaded = urls.flatMap((url) => {
    const at = url.indexOf('/dist/')
    return at >= 0 && !url.includes('/node_modules/') ? [url.slice(at + '/dist/'.length)] : []
  })
  return { result, loaded }
}

const HEAVY = ['core/engine.js', 'adapters/host/quire.js', 'adapters/http/daemon.js', 'adapters/mcp/server.js']
const heavyIn = (loaded: readonly string[]) => HEAVY.filter((file) => loaded.includes(file))

describe('what quire loads before it answers', () => {
  it('help and a usage error load no command, and not the core', async () => {
    const home = await newDir()
    const help = await loadsOf(['help'], home)
    expect(help.result.code).toBe(0)
    expect(help.loaded).toContain('adapters/cli/main.js')
    expect(help.loaded.filter((file) => file.startsWith('adapters/cli/commands/'))).toEqual([])
    expect(heavyIn(help.loaded)).toEqual([])
    const wrong = await loadsOf(['no-such-command'], home)
    expect(wrong.result.code).toBe(2)
    expect(heavyIn(wrong.loaded)).toEqual([])
  })

  it('a command with no daemon to answer it opens the directory itself, loading the core (and the host, which starts the read models quire log answers from), never a server', async () => {
    const home = await newDir()
    const { result, loaded } = await loadsOf(['log'], home)
    expect(result.code).toBe(0)
    expect(heavyIn(loaded)).toEqual(['core/engine.js', 'adapters/host/quire.js'])
  })

  it('commands the daemon answers, and quire mcp attaching to it, load neither the core nor any server', async () => {
    const daemon = await launchDaemon({ home: await newDir() })
    try {
      for (const args of [['log'], ['status'], ['approvals'], ['agent', 'list'], ['settings'], ['mcp']]) {
        const { result, loaded } = await loadsOf(args, daemon.home)
        expect({ args, code: result.code, stderr: args[0] === 'mcp' ? '' : result.stderr }).toEqual({ args, code: 0, stderr: '' })
        if (args[0] === 'mcp') expect(result.stderr).toContain('attached to the daemon')
        expect({ args, heavy: heavyIn(loaded) }).toEqual({ args, heavy: [] })
      }
    } finally {
      await daemon.stop()
    }
  })
})
