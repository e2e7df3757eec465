/**
 * Big inputs get answers (issue 12, item 5). A message over the MCP message limit (the setting
 * `mcpMessageLimitBytes`, 4 MiB by default) sent to `quire mcp` over stdio is answered, not dropped: a `tools/call`
 * gets an `isError` result naming the limit and how to raise it, and the connection stays usable (a normal call
 * afterwards succeeds). Both ways `quire mcp` runs: embedded (no daemon) and attached to a daemon (`quire serve`),
 * through the real SDK client and its stdio framing.
 */
import { spawnSync } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CLI, launchDaemon, launchStdio, type Daemon, type Session } from '../support/mcpHarness.js'
import { testStoreEnv } from '../support/testStore.js'

const MIB = 1024 * 1024
const DEFAULT_LIMIT = 4 * MIB
/** Far longer than any answer takes: a missing answer fails the test instead of passing by luck. */
const ANSWER_TIMEOUT_MS = 240_000

const quire = (home: string, ...args: string[]) => spawnSync(process.execPath, [CLI, '--home', home, ...args], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, ...testStoreEnv(home) } })

type Mode = 'embedded' | 'attached'

describe.each<Mode>(['embedded', 'attached'])('quire mcp (%s): a message over the limit gets an answer', (mode) => {
  let daemon: Daemon | undefined
  let session: Session
  let tabId: string

  beforeAll(async () => {
    daemon = mode === 'attached' ? await launchDaemon() : undefined
    session = await launchStdio(daemon ? { home: daemon.home } : {})
    const created = await session.call('workspace', { action: 'new' })
    expect(created.isError).toBe(false)
    tabId = created.structured!.tabId as string
  })

  afterAll(async () => {
    await session?.close()
    await daemon?.stop()
  })

  const write = async (content: string) => {
    const raw = await session.client.callTool({ name: 'document', arguments: { action: 'write', tabId, content } }, undefined, { timeout: ANSWER_TIMEOUT_MS })
    const first = (raw.content as { type: string; text?: string }[])[0]
    return { isError: raw.isError === true, text: first?.text ?? '' }
  }

  for (const mib of [4, 8, 20]) {
    it(`a document.write of ${mib} MiB is answered with an error naming the limit, then a small write succeeds`, async () => {
      const refused = await write('x'.repeat(mib * MIB))
      expect(refused.isError).toBe(true)
      expect(refused.text).toContain(`${DEFAULT_LIMIT} bytes`)
      expect(refused.text).toContain('quire settings set mcpMessageLimitBytes')
      const small = await write(`after ${mib} MiB\n`)
      expect(small.isError).toBe(false)
      const read = await session.call('document', { action: 'read', tabId })
      expect(read.isError).toBe(false)
      expect(JSON.stringify(read.structured)).toContain(`after ${mib} MiB`)
    }, ANSWER_TIMEOUT_MS + 60_000)
  }

  it('a message just under the limit is taken', async () => {
    const content = 'y'.repeat(DEFAULT_LIMIT - 64 * 1024)
    const taken = await write(content)
    expect(taken.text).not.toContain('mcpMessageLimitBytes')
    expect(taken.isError).toBe(false)
  }, ANSWER_TIMEOUT_MS + 60_000)

  it('the limit is the setting mcpMessageLimitBytes: lowered, a smaller message is refused and names the new limit', async () => {
    const lowered = quire(session.home, 'settings', 'set', 'mcpMessageLimitBytes', String(MIB))
    expect(lowered.status, lowered.stderr).toBe(0)
    try {
      expect(quire(session.home, 'settings').stdout).toMatch(/mcpMessageLimitBytes\s+1048576/)
      const refused = await write('z'.repeat(2 * MIB))
      expect(refused.isError).toBe(true)
      expect(refused.text).toContain(`${MIB} bytes`)
      expect((await write('fine\n')).isError).toBe(false)
    } finally {
      expect(quire(session.home, 'settings', 'set', 'mcpMessageLimitBytes', String(DEFAULT_LIMIT)).status).toBe(0)
    }
  }, ANSWER_TIMEOUT_MS + 60_000)
})

describe('/mcp over HTTP: a body over the limit', () => {
  let daemon: Daemon
  beforeAll(async () => {
    daemon = await launchDaemon()
  })
  afterAll(async () => {
    await daemon?.stop()
  })

  it('gets 413 with a JSON-RPC error naming the limit and the setting; the session goes on', async () => {
    const session = await daemon.connect()
    try {
      const created = await session.call('workspace', { action: 'new' })
      const tabId = created.structured!.tabId as string
      const refused = session.client.callTool({ name: 'document', arguments: { action: 'write', tabId, content: 'x'.repeat(5 * MIB) } }, undefined, {
        timeout: ANSWER_TIMEOUT_MS,
      })
      await expect(refused).rejects.toMatchObject({ code: 413, message: expect.stringMatching(/4194304 bytes[\s\S]*quire settings set mcpMessageLimitBytes/) })
      expect((await session.call('document', { action: 'write', tabId, content: 'small\n' })).isError).toBe(false)
    } finally {
      await session.close()
    }
  }, ANSWER_TIMEOUT_MS + 60_000)

  it('a body streamed without Content-Length is cut off at the limit', async () => {
    const session = await daemon.connect()
    await session.close()
    const chunk = new Uint8Array(MIB).fill(0x20)
    let sent = 0
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 6) controller.enqueue(chunk)
        else controller.close()
      },
    })
    const response = await fetch(`${daemon.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body,
      duplex: 'half',
    } as RequestInit)
    expect(response.status).toBe(413)
    const answer = (await response.json()) as { error: { message: string } }
    expect(answer.error.message).toMatch(/larger than the message limit of 4194304 bytes/)
  })
})
