/**
 * `quire mcp`, the stdio server an AI client launches, ends when its agent's token is revoked (issue 11, finding 3),
 * in both of its modes: attached to a daemon (the daemon ends the HTTP session; the bridge sees 401 and exits) and
 * embedded (it owns the core and watches the agents itself). Spawns the compiled CLI (dist/).
 */
import { readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterEach, describe, expect, it } from 'vitest'
import { runCli } from '../support/cli.js'
import { CLI, launchDaemon, tempDir, type Daemon } from '../support/mcpHarness.js'
import { within } from './sessionsRig.js'

/** The environment of an AI client's `quire mcp`: this process's, with the agent's token and no other data directory. */
function clientEnv(token: string): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && key !== 'QUIRE_HOME' && key !== 'QUIRE_TOKEN') env[key] = value
  return { ...env, QUIRE_TOKEN: token }
}

async function stdioClient(home: string, token: string): Promise<{ client: Client; closed: Promise<void> }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, '--home', home, 'mcp'], env: clientEnv(token), stderr: 'pipe' })
  const client = new Client({ name: 'quire-security', version: '1.0.0' })
  const closed = new Promise<void>((resolve) => (client.onclose = () => resolve()))
  await client.connect(transport)
  return { client, closed }
}

/** Revokes through the console's Agents panel, as the person does. */
async function revoke(port: number | string, accessToken: string, name: string): Promise<void> {
  const response = await fetch(`http://127.0.0.1:${port}/console/api/panels/agents/${name}/revoke`, {
    method: 'POST',
    headers: { authorization: `Bearer ${accessToken}` },
  })
  expect(response.status).toBe(200)
}

describe('quire mcp ends when its agent is revoked', () => {
  const cleanups: (() => Promise<void>)[] = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })

  it('attached to a daemon: the next request is refused and the bridge exits', async () => {
    const daemon: Daemon = await launchDaemon()
    cleanups.push(() => daemon.stop())
    const added = await runCli(['agent', 'add', 'bridged'], { home: daemon.home })
    expect(added.code, added.stderr).toBe(0)
    const token = added.stdout.trim()
    const { client, closed } = await stdioClient(daemon.home, token)
    cleanups.push(() => client.close().catch(() => {}))
    expect((await client.listTools()).tools.length).toBeGreaterThan(0)

    await revoke(daemon.port, daemon.token, 'bridged')
    // Whatever the client sends next cannot be answered; the server process ends instead of leaving it waiting.
    void client.listTools().catch(() => {})
    await within(15_000, "the bridge to exit after the agent's revocation", closed)
  })

  it('embedded: revoking from its own console ends the stdio session', async () => {
    const home = await tempDir('quire-embedded-revoke-')
    cleanups.push(() => rm(home, { recursive: true, force: true }))
    const added = await runCli(['agent', 'add', 'embedded'], { home })
    expect(added.code, added.stderr).toBe(0)
    const { client, closed } = await stdioClient(home, added.stdout.trim())
    cleanups.push(() => client.close().catch(() => {}))
    expect((await client.listTools()).tools.length).toBeGreaterThan(0)

    const [port, accessToken] = (await readFile(join(home, 'port'), 'utf8')).trim().split(':') as [string, string]
    await revoke(port, accessToken, 'embedded')
    await within(15_000, 'the embedded server to end the session', closed)
  })
})
