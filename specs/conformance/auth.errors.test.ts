/**
 * Bad tokens get answers (issue 12, item 5). `quire mcp` with a `QUIRE_TOKEN` that is not a live agent token
 * (unknown, or revoked) answers the client's `initialize` with an error saying how to get a token, and exits with
 * status 1, embedded and attached to a daemon alike. Over HTTP a 401 carries `WWW-Authenticate: Bearer` with
 * `error="invalid_token"` and a description, and a JSON body saying the same.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { CLI, launchDaemon, type Daemon } from '../support/mcpHarness.js'
import { testStoreEnv } from '../support/testStore.js'

const quire = (home: string, ...args: string[]) => spawnSync(process.execPath, [CLI, '--home', home, ...args], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, ...testStoreEnv(home) } })

/**
 * The SDK's stdio framing over a `quire mcp` child this test spawned itself, so the test also sees how it exits
 * (the SDK's StdioClientTransport keeps its child to itself).
 */
class ChildStdioTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void
  onclose?: () => void
  onerror?: (error: Error) => void
  readonly exited: Promise<number | null>
  private readonly buffer = new ReadBuffer()

  constructor(private readonly child: ChildProcess) {
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)))
  }

  async start(): Promise<void> {
    this.child.stdout!.on('data', (chunk: Buffer) => {
      this.buffer.append(chunk)
      for (let message = this.buffer.readMessage(); message; message = this.buffer.readMessage()) this.onmessage?.(message)
    })
    this.child.once('close', () => this.onclose?.())
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.child.stdin!.write(serializeMessage(message))
  }

  async close(): Promise<void> {
    this.child.stdin!.end()
  }
}

/** `quire mcp` with `token` as QUIRE_TOKEN, an SDK client's `initialize` sent to it, and how that went. */
async function initializeWith(home: string, token: string): Promise<{ error: unknown; code: number | null; stderr: string }> {
  const { QUIRE_HOME: _home, QUIRE_TOKEN: _token, ...inherited } = process.env
  const child = spawn(process.execPath, [CLI, '--home', home, 'mcp'], { env: { ...inherited, ...testStoreEnv(home), QUIRE_TOKEN: token }, stdio: ['pipe', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const transport = new ChildStdioTransport(child)
  const client = new Client({ name: 'quire-auth-errors', version: '1.0.0' })
  const error = await client.connect(transport).then(
    () => undefined,
    (failure: unknown) => failure,
  )
  // A process that answered and went on serving would hang here: the test then fails on its timeout.
  const code = await transport.exited
  return { error, code, stderr }
}

const BAD_TOKEN_ANSWER = /QUIRE_TOKEN is not a live agent token \(unknown, or revoked\)[\s\S]*`quire agent add NAME`/

function expectRefused(outcome: { error: unknown; code: number | null; stderr: string }): void {
  expect(outcome.error).toBeInstanceOf(Error)
  expect((outcome.error as Error).message).toMatch(BAD_TOKEN_ANSWER)
  expect((outcome.error as Error).message).not.toMatch(/Connection closed|timed out/)
  expect(outcome.code).toBe(1)
  expect(outcome.stderr).toMatch(/QUIRE_TOKEN is not a live agent token/)
}

describe('quire mcp embedded (no daemon): a token that is not live', () => {
  let home: string
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'quire-auth-embedded-'))
  })
  afterAll(async () => {
    await rm(home, { recursive: true, force: true })
  })

  it('an unknown token: initialize is answered with an error, and quire mcp exits with status 1', async () => {
    expectRefused(await initializeWith(home, 'bogus'))
  })

  it('a revoked token: the same, and the data directory is free again for the next quire mcp', async () => {
    const added = quire(home, 'agent', 'add', 'revoked-embedded')
    expect(added.status, added.stderr).toBe(0)
    expect(quire(home, 'agent', 'revoke', 'revoked-embedded').status).toBe(0)
    expectRefused(await initializeWith(home, added.stdout.trim()))
    const live = quire(home, 'agent', 'add', 'live-embedded')
    expect(live.status, live.stderr).toBe(0)
    const outcome = await initializeLive(home, live.stdout.trim())
    expect(outcome).toBe('quire')
  })
})

describe('quire mcp attached to a daemon: a token that is not live', () => {
  let daemon: Daemon
  beforeAll(async () => {
    daemon = await launchDaemon()
  })
  afterAll(async () => {
    await daemon?.stop()
  })

  it('an unknown token: initialize is answered with an error, and quire mcp exits with status 1', async () => {
    expectRefused(await initializeWith(daemon.home, 'bogus'))
  })

  it('a revoked token: the same; a live token of the same daemon still connects', async () => {
    const added = quire(daemon.home, 'agent', 'add', 'revoked-attached')
    expect(added.status, added.stderr).toBe(0)
    expect(quire(daemon.home, 'agent', 'revoke', 'revoked-attached').status).toBe(0)
    expectRefused(await initializeWith(daemon.home, added.stdout.trim()))
    const live = quire(daemon.home, 'agent', 'add', 'live-attached')
    expect(await initializeLive(daemon.home, live.stdout.trim())).toBe('quire')
  })
})

describe('a token revoked while quire mcp uses it', () => {
  it('embedded: quire mcp ends with status 1', async () => {
    const home = await mkdtemp(join(tmpdir(), 'quire-auth-revoke-'))
    try {
      const added = quire(home, 'agent', 'add', 'soon-revoked')
      const { client, transport } = await connectStdio(home, added.stdout.trim())
      expect((await client.callTool({ name: 'session', arguments: { action: 'get_state' } })).isError).not.toBe(true)
      // The embedded quire mcp owns the directory: the revoke goes to it.
      expect(quire(home, 'agent', 'revoke', 'soon-revoked').status).toBe(0)
      expect(await transport.exited).toBe(1)
    } finally {
      await rm(home, { recursive: true, force: true })
    }
  })

  it('attached: the next call is answered with the error, and quire mcp ends with status 1', async () => {
    const daemon = await launchDaemon()
    try {
      const added = quire(daemon.home, 'agent', 'add', 'soon-revoked')
      const { client, transport } = await connectStdio(daemon.home, added.stdout.trim())
      expect((await client.callTool({ name: 'session', arguments: { action: 'get_state' } })).isError).not.toBe(true)
      expect(quire(daemon.home, 'agent', 'revoke', 'soon-revoked').status).toBe(0)
      await expect(client.callTool({ name: 'session', arguments: { action: 'get_state' } })).rejects.toThrow(BAD_TOKEN_ANSWER)
      expect(await transport.exited).toBe(1)
    } finally {
      await daemon.stop()
    }
  })
})

async function connectStdio(home: string, token: string): Promise<{ client: Client; transport: ChildStdioTransport }> {
  const { QUIRE_HOME: _home, QUIRE_TOKEN: _token, ...inherited } = process.env
  const child = spawn(process.execPath, [CLI, '--home', home, 'mcp'], { env: { ...inherited, ...testStoreEnv(home), QUIRE_TOKEN: token }, stdio: ['pipe', 'pipe', 'pipe'] })
  const transport = new ChildStdioTransport(child)
  const client = new Client({ name: 'quire-auth-errors', version: '1.0.0' })
  await client.connect(transport)
  return { client, transport }
}

/** A live token's `initialize` succeeds: the server's name, with the client then closed. */
async function initializeLive(home: string, token: string): Promise<string | undefined> {
  const { client, transport } = await connectStdio(home, token)
  const name = client.getServerVersion()?.name
  await client.close()
  expect(await transport.exited).toBe(0)
  return name
}

describe('HTTP 401s say how to get a token', () => {
  let daemon: Daemon
  beforeAll(async () => {
    daemon = await launchDaemon()
  })
  afterAll(async () => {
    await daemon?.stop()
  })

  const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } })
  const post = (headers: Record<string, string>) =>
    fetch(`${daemon.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: initialize })

  for (const [what, headers] of [
    ['no Authorization header', {}],
    ['a token that is not one', { authorization: 'Bearer bogus' }],
    ['a scheme other than Bearer', { authorization: 'Basic dXNlcjpwYXNz' }],
  ] as const) {
    it(`/mcp with ${what}: 401, WWW-Authenticate: Bearer with invalid_token and a description, and a JSON body`, async () => {
      const response = await post(headers)
      expect(response.status).toBe(401)
      const challenge = response.headers.get('www-authenticate') ?? ''
      expect(challenge).toMatch(/^Bearer realm="quire", error="invalid_token", error_description="[^"\\]*`quire agent add NAME`[^"\\]*"$/)
      expect(challenge).toMatch(/^[\x20-\x7e]*$/)
      const body = (await response.json()) as { error: string; message: string }
      expect(body).toEqual({ error: 'UNAUTHORIZED', message: expect.stringContaining('`quire agent add NAME`') })
      expect(challenge).toContain(body.message)
    })
  }

  it('a revoked agent token: 401 saying it is unknown or revoked', async () => {
    const added = quire(daemon.home, 'agent', 'add', 'http-revoked')
    expect(quire(daemon.home, 'agent', 'revoke', 'http-revoked').status).toBe(0)
    const response = await post({ authorization: `Bearer ${added.stdout.trim()}` })
    expect(response.status).toBe(401)
    expect(response.headers.get('www-authenticate')).toMatch(/error="invalid_token", error_description="unknown or revoked token: /)
  })

  it("/admin with an agent's token: 401 with WWW-Authenticate: Bearer naming the port file's token", async () => {
    const added = quire(daemon.home, 'agent', 'add', 'http-admin')
    const response = await fetch(`${daemon.url}/admin/approvals`, { headers: { authorization: `Bearer ${added.stdout.trim()}` } })
    expect(response.status).toBe(401)
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer realm="quire", error="invalid_token", error_description="[^"\\]*port file[^"\\]*"$/)
    expect(((await response.json()) as { error: string }).error).toBe('UNAUTHORIZED')
  })

  it('the SDK client over HTTP with a bad token fails with 401 and the advice, not an OAuth attempt', async () => {
    const transport = new StreamableHTTPClientTransport(new URL('/mcp', daemon.url), { requestInit: { headers: { authorization: 'Bearer bogus' } } })
    const client = new Client({ name: 'quire-auth-errors', version: '1.0.0' })
    await expect(client.connect(transport)).rejects.toMatchObject({ code: 401, message: expect.stringContaining('quire agent add NAME') })
  })
})
