import { spawn } from 'node:child_process'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { describe, expect, it } from 'vitest'
import { cliPath } from '../support/cli.js'
import { launchDaemon } from '../support/mcpHarness.js'
import { useTempHomes } from '../support/tempHome.js'

/** `quire mcp` attached to a daemon ends without noise: no "SSE stream disconnected" when it or the daemon stops. */

const newHome = useTempHomes()

async function attach(home: string): Promise<{ client: Client; transport: StdioClientTransport; stderr: () => string }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [cliPath, '--home', home, 'mcp'], stderr: 'pipe' })
  let stderr = ''
  transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const client = new Client({ name: 'quiet-exit', version: '1.0.0' })
  await client.connect(transport)
  expect((await client.listTools()).tools.length).toBeGreaterThan(0)
  return { client, transport, stderr: () => stderr }
}

describe('quire mcp attached to the daemon, on normal exits', () => {
  it('the AI client closes it: the bridge says it attached, and nothing else', async () => {
    const home = await newHome()
    const daemon = await launchDaemon({ home })
    try {
      const { client, transport, stderr } = await attach(home)
      const bridge = (transport as unknown as { _process: ReturnType<typeof spawn> })._process
      const exited = new Promise((resolve) => bridge.once('exit', resolve))
      await client.close()
      await exited
      expect(stderr()).toBe(`quire mcp: attached to the daemon at ${daemon.url}\n`)
    } finally {
      await daemon.stop()
    }
  })

  it('the daemon stops: the bridge says so once and ends, so the AI client sees its server go away', async () => {
    const home = await newHome()
    const daemon = await launchDaemon({ home })
    const { client, stderr } = await attach(home)
    const gone = new Promise<void>((resolve) => (client.onclose = resolve))
    await daemon.stop()
    await gone
    expect(stderr()).toBe(`quire mcp: attached to the daemon at ${daemon.url}\nquire mcp: the daemon stopped; exiting\n`)
    expect(stderr()).not.toContain('SSE stream disconnected')
  })
})
