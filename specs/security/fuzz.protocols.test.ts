/**
 * Random input at the two protocol endpoints (issue 11): WebSocket frames on `/collab` and JSON-RPC bodies on
 * `/mcp`, with random HTTP methods and headers. Invariants:
 *
 * - the daemon stays up: every request gets an answer below 500, and `/admin/status` answers afterwards;
 * - a refusal changes nothing: when a frame closes its connection, or an MCP request is answered with an HTTP error,
 *   a JSON-RPC error or a tool error, the log's head has not moved;
 * - a read-only connection (an agent's, or `readonly=1`) never moves the log, whatever it sends.
 *
 * Seeded through specs/support/fuzz.ts (fixed seed unless QUIRE_FUZZ=1); run counts are bounded.
 */
import fc from 'fast-check'
import * as encoding from 'lib0/encoding'
import * as Y from 'yjs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { USER } from '../../core/events/actor.js'
import { rawClient, type RawClient } from '../support/collabPeers.js'
import { fuzzParameters } from '../support/fuzz.js'
import { insertUpdate, varUint } from '../support/collabFrames.js'
import { initialize, postMcp, startSecurityServer, within, type McpAnswer, type SecurityServer } from './sessionsRig.js'

const withLength = (bytes: Uint8Array): number[] => [...varUint(bytes.length), ...bytes]

/** A SyncStep1 for an empty document: the server answers it with a SyncStep2 once it has handled what came before. */
function syncStep1(): Uint8Array {
  const encoder = encoding.createEncoder()
  encoding.writeVarUint(encoder, 0)
  encoding.writeVarUint(encoder, 0)
  encoding.writeVarUint8Array(encoder, Y.encodeStateVector(new Y.Doc()))
  return encoding.toUint8Array(encoder)
}

type Frame = { readonly text: string } | { readonly binary: Uint8Array }

const bytes = fc.uint8Array({ maxLength: 96 })
const frame: fc.Arbitrary<Frame> = fc.oneof(
  // Anything at all.
  bytes.map((binary) => ({ binary })),
  // A known or unknown message type before random bytes.
  fc.tuple(fc.constantFrom(0, 1, 2, 3, 4, 100, 127, 128), bytes).map(([type, body]) => ({ binary: Uint8Array.from([type, ...body]) })),
  // Well-framed sync messages with random or real payloads, and wrong sub-types.
  fc.tuple(fc.constantFrom(0, 1, 2, 3, 9), fc.oneof(bytes, fc.string({ maxLength: 40 }).map(insertUpdate)))
    .map(([step, payload]) => ({ binary: Uint8Array.from([0, step, ...withLength(payload)]) })),
  // Well-framed awareness with random client ids, clocks and (often invalid) JSON; lengths that lie.
  fc.tuple(
    fc.array(fc.tuple(fc.nat(), fc.nat(), fc.oneof(fc.json({ maxDepth: 2 }), fc.string({ maxLength: 30 }))), { maxLength: 12 }),
    fc.integer({ min: -3, max: 3 }),
  ).map(([entries, lie]) => {
    const body = [...varUint(entries.length), ...entries.flatMap(([id, clock, json]) => [...varUint(id), ...varUint(clock), ...withLength(new TextEncoder().encode(json))])]
    return { binary: Uint8Array.from([1, ...varUint(Math.max(0, body.length + lie)), ...body]) }
  }),
  // Text frames, which the binary protocol refuses.
  fc.string({ maxLength: 40 }).map((text) => ({ text })),
)

/** Codes the endpoint closes with when it refuses what a peer sent. */
const REFUSALS = new Set([1002, 1003, 1009, 4413, 4429])

describe('protocol fuzz', () => {
  let server: SecurityServer
  let docId: string
  let agentToken: string
  const head = () => server.quire.services.engine.store.headPosition
  const alive = async () => {
    const response = await fetch(`http://127.0.0.1:${server.port}/admin/status`, { headers: { authorization: `Bearer ${server.token}` } })
    expect(response.status).toBe(200)
    await response.body?.cancel()
  }

  beforeAll(async () => {
    // Caps well above the run counts: every run opens its own connection, and closed ones leave asynchronously.
    server = await startSecurityServer({ collab: { maxConnectionsPerAgent: 1_000, maxConnectionsPerPerson: 1_000 }, mcpSessions: { perAgent: 1_000, perPerson: 1_000 } })
    agentToken = await server.quire.services.agents.add('fuzzer', USER)
    const { docId: created } = await server.quire.services.engine.commands.documents.create({
      kind: 'markdown', content: 'fuzz target\n', path: null, title: 'fuzz', origin: 'untitled', actor: USER,
    })
    docId = created
  })
  afterAll(async () => {
    await server?.close()
  })

  /**
   * Sends `frames` on a fresh connection, then a SyncStep1; resolves with the close the server sent, or undefined
   * once its SyncStep2 answer shows every frame was handled without a refusal.
   */
  async function send(token: string, params: string, frames: readonly Frame[]): Promise<{ code: number; reason: string } | undefined> {
    const client: RawClient = rawClient(server.port, `/collab/${docId}?token=${token}${params}`)
    let settled = false
    try {
      await within(10_000, 'the connection to open', client.opened)
      for (const each of frames) client.ws.send('text' in each ? each.text : each.binary)
      const seen = client.received.length
      client.ws.send(syncStep1())
      const answered = (async () => {
        while (!settled) {
          if (client.received.slice(seen).some((message) => message[0] === 0 && message[1] === 1)) return undefined
          await new Promise((resolve) => setTimeout(resolve, 5))
        }
        return undefined
      })()
      // A random frame may itself be a SyncStep1, answered first: it was handled, and so was everything before it.
      const outcome = await within(10_000, 'the server to answer or close', Promise.race([client.closed, answered]))
      return outcome
    } finally {
      settled = true
      client.ws.terminate()
    }
  }

  it('random frames from read-only connections never move the log, and the daemon stays up', async () => {
    const before = head()
    await fc.assert(
      fc.asyncProperty(fc.array(frame, { minLength: 1, maxLength: 6 }), fc.boolean(), async (frames, asAgent) => {
        const outcome = await send(asAgent ? agentToken : server.token, asAgent ? '' : '&readonly=1', frames)
        if (outcome) expect(REFUSALS.has(outcome.code) || outcome.code === 1006, JSON.stringify(outcome)).toBe(true)
        expect(head()).toBe(before)
      }),
      fuzzParameters({ numRuns: 60 }),
    )
    await alive()
  })

  it("a frame the person's connection sends is either handled or refused with a close; a refusal moves nothing", async () => {
    await fc.assert(
      fc.asyncProperty(frame, async (one) => {
        const before = head()
        const outcome = await send(server.token, '', [one])
        if (outcome) {
          expect(REFUSALS.has(outcome.code), JSON.stringify(outcome)).toBe(true)
          expect(head()).toBe(before)
        }
      }),
      fuzzParameters({ numRuns: 80 }),
    )
    await alive()
  })

  const jsonRpcBody: fc.Arbitrary<unknown> = fc.oneof(
    fc.string({ maxLength: 60 }),
    fc.json({ maxDepth: 3 }),
    fc.anything({ maxDepth: 2 }).map((value) => {
      try {
        return JSON.stringify(value) ?? 'undefined'
      } catch {
        return '{}'
      }
    }),
    fc.record(
      {
        jsonrpc: fc.oneof(fc.constant('2.0'), fc.constant('1.0'), fc.integer()),
        id: fc.oneof(fc.integer(), fc.string({ maxLength: 10 }), fc.constant(null), fc.double()),
        method: fc.oneof(
          fc.constantFrom('tools/call', 'tools/list', 'initialize', 'ping', 'resources/list', 'prompts/get', 'notifications/cancelled', 'logging/setLevel', 'completion/complete'),
          fc.string({ maxLength: 20 }),
        ),
        params: fc.oneof(
          fc.record({ name: fc.oneof(fc.constantFrom('session', 'document', 'workspace', 'comments', 'nope'), fc.string({ maxLength: 12 })), arguments: fc.anything({ maxDepth: 2 }) }, { requiredKeys: [] }),
          fc.anything({ maxDepth: 2 }),
        ),
        result: fc.anything({ maxDepth: 1 }),
        error: fc.record({ code: fc.integer(), message: fc.string({ maxLength: 10 }) }),
      },
      { requiredKeys: [] },
    ),
  )
  // Well-formed calls with random arguments, so tools themselves answer (and refuse), not only the JSON-RPC layer.
  const toolCall: fc.Arbitrary<unknown> = fc.record({
    jsonrpc: fc.constant('2.0'),
    id: fc.nat(),
    method: fc.constant('tools/call'),
    params: fc.record({
      name: fc.constantFrom('session', 'document', 'workspace', 'selection', 'comments', 'workflow'),
      arguments: fc.oneof(
        fc.record(
          {
            action: fc.oneof(
              fc.constantFrom('get_state', 'read', 'write', 'transform', 'new', 'open', 'save', 'close', 'switch_tab', 'get', 'set', 'list', 'reply', 'mark_addressed', 'apply_patch'),
              fc.string({ maxLength: 12 }),
            ),
            tabId: fc.oneof(fc.string({ maxLength: 12 }), fc.integer(), fc.constant(null)),
            content: fc.oneof(fc.string({ maxLength: 40 }), fc.integer()),
            path: fc.oneof(fc.constantFrom('/etc/passwd', '../x.md', 'a.md', '', '\u0000'), fc.string({ maxLength: 20 })),
            expected_revision: fc.string({ maxLength: 12 }),
            addresses: fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 }),
          },
          { requiredKeys: ['action'] },
        ),
        fc.anything({ maxDepth: 2 }),
      ),
    }),
  })
  const batch = fc.array(fc.oneof(jsonRpcBody, toolCall), { maxLength: 4 })

  /** A refusal: an HTTP error, a JSON-RPC error, or a tool result that is an error. */
  const refused = (answer: McpAnswer): boolean =>
    answer.status >= 400 || answer.message?.error !== undefined || answer.message?.result?.isError === true

  it('random JSON-RPC bodies on an MCP session: never a 5xx; a refusal moves nothing', async () => {
    const opened = await initialize(server.port, agentToken)
    expect(opened.status).toBe(200)
    const sessionId = opened.sessionId!
    await fc.assert(
      fc.asyncProperty(fc.oneof(jsonRpcBody, toolCall, batch), async (body) => {
        const before = head()
        const answer = await postMcp(server.port, agentToken, body, sessionId)
        expect(answer.status, answer.text).toBeLessThan(500)
        // Approval requests are refusals that, by design, record the request for the person to decide.
        if (refused(answer) && !answer.text.includes('APPROVAL_REQUIRED')) expect(head(), answer.text).toBe(before)
      }),
      fuzzParameters({ numRuns: 150 }),
    )
    await alive()
  })

  it('random methods, headers and session ids on /mcp: answered below 500, and no refusal moves the log', async () => {
    const otherToken = await server.quire.services.agents.add('other-fuzzer', USER)
    const someone = await initialize(server.port, otherToken)
    const request = fc.record({
      method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'),
      // Never the session owner's own token: whatever the others send with its session id, it must survive.
      token: fc.constantFrom(agentToken, server.token, 'qa_not-a-token', ''),
      session: fc.oneof(fc.constant(undefined), fc.constant(someone.sessionId!), fc.uuid(), fc.string({ maxLength: 40 })),
      contentType: fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', ''),
      accept: fc.constantFrom('application/json, text/event-stream', 'text/event-stream', 'application/json', '*/*', ''),
      protocolVersion: fc.constantFrom(undefined, '2025-06-18', '2024-11-05', '1999-01-01', 'x'),
      body: fc.oneof(jsonRpcBody, fc.constant(undefined)),
    })
    await fc.assert(
      fc.asyncProperty(request, async (each) => {
        const before = head()
        const headers: Record<string, string> = {}
        if (each.token) headers.authorization = `Bearer ${each.token}`
        if (each.contentType) headers['content-type'] = each.contentType
        if (each.accept) headers.accept = each.accept
        if (each.protocolVersion) headers['mcp-protocol-version'] = each.protocolVersion
        // Header values must be ByteStrings; random text that is not one would fail in fetch, not in Quire.
        if (each.session !== undefined && /^[\x20-\x7e]*$/.test(each.session)) headers['mcp-session-id'] = each.session
        const hasBody = each.body !== undefined && each.method !== 'GET' && each.method !== 'HEAD'
        const controller = new AbortController()
        const response = await fetch(`http://127.0.0.1:${server.port}/mcp`, {
          method: each.method,
          headers,
          body: hasBody ? (typeof each.body === 'string' ? each.body : JSON.stringify(each.body)) : undefined,
          signal: controller.signal,
        })
        expect(response.status).toBeLessThan(500)
        // A GET that opened an SSE stream stays open by design: read nothing, end it.
        const text = response.headers.get('content-type')?.includes('text/event-stream') && each.method === 'GET' ? '' : await response.text()
        controller.abort()
        if (response.status >= 400 || /"error"/.test(text)) {
          if (!text.includes('APPROVAL_REQUIRED')) expect(head(), text).toBe(before)
        }
      }),
      fuzzParameters({ numRuns: 150 }),
    )
    await alive()
    // The session the others aimed at is still its agent's, and still open.
    expect((await postMcp(server.port, otherToken, { jsonrpc: '2.0', id: 9, method: 'tools/list' }, someone.sessionId!)).status).toBe(200)
  })
})
