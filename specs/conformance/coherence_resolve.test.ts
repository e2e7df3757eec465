/**
 * `coherence_resolve` (TOOLS.md §11): COHR.GEN.1, COHR.RESOLVE.1–10, APPR.10 and COH.EDGES.5, through the MCP SDK
 * client against the core in this process, several connections at once, each with the principal its agent token
 * would give it (alice, bob, …, and an anonymous one). Grants and revocations are the person's, made through the
 * core's commands as the console and `quire coherence grant` make them: no MCP action can (COHR.RESOLVE.8).
 *
 * Every stale edge is made as in use: an assistant writes an upstream file, reads it, writes a downstream file from
 * it, and another program then changes the upstream on disk (its tab closed, so only `coherence.edges`' scan sees
 * it). A refusal must append nothing: the ledger's bytes and the workspace's `coherence:<root>` stream are compared.
 */
import { readFile, appendFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Services } from '../../adapters/host/services.js'
import { USER } from '../../core/events/actor.js'
import { textContentHash } from '../../core/coherence/hashing.js'
import { revisionId } from '../../core/coherence/revision.js'
import { connectInProcess, launchDaemon, launchStdio, tempDir, toolCaller, type Session, type ToolResult } from '../support/mcpHarness.js'
import { TRANSPORTS, cli, files, folder, inProcess, ok, open, plain, put, read, removeAll, write, type Json, type Transport } from '../support/conformance.js'

/** The person's id on grants, as `git config user.name` would give it. */
const PERSON_ID = 'Ana Person'
const DAY = 24 * 60 * 60 * 1000

interface Connection {
  readonly principal: string | null
  readonly client: Client
  call(tool: string, args: Record<string, unknown>): Promise<ToolResult>
}

function connection(client: Client, principal: string | null): Connection {
  return {
    principal,
    client,
    call: toolCaller(client),
  }
}

/** One Quire in this process with the connections of several agents, a clock the test can move, and held log writes. */
async function world(options: { answerWithinMs?: number; writeWaitMs?: number } = {}) {
  const w = await folder('cohr', {})
  let offset = 0
  let hold: Promise<void> | undefined
  let release: () => void = () => {}
  const session = await inProcess([w], {
    principal: 'alice',
    now: () => Date.now() + offset,
    coherence: { ...(options.answerWithinMs === undefined ? {} : { answerWithinMs: options.answerWithinMs }), writeWaitMs: options.writeWaitMs ?? 3_000 },
    interceptWrite: async (writeBatch) => {
      if (hold !== undefined) await hold
      return writeBatch()
    },
  })
  const services: Services = session.quire.services
  await services.settings.set('trackProvenance', true, USER)
  const alice: Connection = connection(session.client, 'alice')
  const servers: Array<{ close(): Promise<void> }> = []
  let connections = 0
  const connect = async (principal: string | null): Promise<Connection> => {
    connections += 1
    const { client, server } = await connectInProcess(services, `inproc-${principal ?? 'anonymous'}-${connections}`, principal)
    servers.push(server)
    return connection(client, principal)
  }
  const stream = `coherence:${w}`
  let pairs = 0

  return {
    w,
    services,
    alice,
    connect,
    advanceClock: (ms: number) => (offset += ms),
    holdLog: () => (hold = new Promise((resolve) => (release = resolve))),
    releaseLog: () => {
      release()
      hold = undefined
    },
    grant: (delegate: string, scope: Array<'resolve.accept-newer' | 'resolve.waive'>, expiresInMs = 7 * DAY) =>
      services.coherence.grant(w, { delegate, scope, expires: new Date(services.engine.now() + expiresInMs) }, PERSON_ID, USER),
    revoke: (delegation: string) => services.coherence.revoke(w, delegation, PERSON_ID, USER),
    /** The ledger's files and the log's copy of them: what a refusal must leave as it was. */
    async recorded(): Promise<Json> {
      return { ledger: await files(join(w, '.vmark')), logged: (await services.engine.store.streamHead(stream)).version }
    },
    async entries(): Promise<Json[]> {
      const writer = await services.coherence.writer()
      const text = await readFile(join(w, '.vmark/ledger', `${writer}.jsonl`), 'utf8')
      return text.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line))
    },
    async logged(): Promise<string[]> {
      const ids: string[] = []
      for await (const event of services.engine.store.readStream(stream)) ids.push(...(event.data as { entries: string[] }).entries)
      return ids
    },
    async edges(by: Connection = alice): Promise<Json[]> {
      const result = await by.call('coherence', { action: 'edges', workspace_root: w })
      expect(result.isError, result.text).toBe(false)
      return JSON.parse(result.text)
    },
    /** A fresh upstream → downstream pair whose upstream another program then changed: one version-stale edge. */
    async staleEdge(): Promise<Json> {
      pairs += 1
      const upstream = join(w, `sources/source-${pairs}.md`)
      const downstream = join(w, `derived/derived-${pairs}.md`)
      await put(upstream, `# Source ${pairs}\n`)
      await put(downstream, `# Derived ${pairs}\n`)
      const upstreamTab = await open(session, upstream)
      await write(session, upstreamTab, `# Source ${pairs}\n\nThe facts.\n`)
      await read(session, upstreamTab)
      const downstreamTab = await open(session, downstream)
      await write(session, downstreamTab, `# Derived ${pairs}\n\nFrom the facts.\n`)
      ok(await session.call('workspace', { action: 'close', tabId: upstreamTab }))
      ok(await session.call('workspace', { action: 'close', tabId: downstreamTab }))
      await put(upstream, `${await readFile(upstream, 'utf8')}\nA fact changed.\n`)
      const row = (await this.edges()).find((edge) => edge.downstream_path === `derived/derived-${pairs}.md`)
      expect(row, `no edge for derived-${pairs}.md`).toBeDefined()
      expect(row.state).toBe('version-stale')
      return row
    },
    resolve: (by: Connection, row: Json, resolution: 'accept-newer' | 'waive', extra: Record<string, unknown> = {}) =>
      by.call('coherence_resolve', { action: 'resolve', workspace_root: w, txf: row.txf, input: row.input, resolution, ...extra }),
    async close() {
      release()
      for (const server of servers) await server.close()
      await session.close()
      await removeAll(w)
    },
  }
}
type World = Awaited<ReturnType<typeof world>>

/** The upstream's current head, as the ledger's last revision of it says. */
async function headOf(t: World, object: string): Promise<string> {
  const outputs = (await t.entries()).filter((entry) => entry.kind === 'transformation' && entry.body.outputs[0].object === object)
  return outputs.at(-1).body.outputs[0].revision
}

describe('coherence_resolve', () => {
  let t: World
  let bob: Connection
  let anonymous: Connection

  beforeAll(async () => {
    t = await world({ writeWaitMs: 200 })
    bob = await t.connect('bob')
    anonymous = await t.connect(null)
  })
  afterAll(async () => {
    await t?.close()
  })

  /** The call is refused with a plain string matching `pattern` and the ledger and the log are as they were. */
  async function refusedWithoutTrace(call: () => Promise<ToolResult>, pattern: RegExp): Promise<string> {
    const before = await t.recorded()
    const message = plain(await call(), pattern)
    expect(await t.recorded()).toEqual(before)
    return message
  }

  it('COHR.GEN.1 COHR.RESOLVE.7 COHR.RESOLVE.8 one action, resolve, annotated destructive; no expiry argument, and no tool or action grants a delegation', async () => {
    const { tools } = await t.alice.client.listTools()
    const resolve = tools.find((tool) => tool.name === 'coherence_resolve')!
    expect(resolve.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true })
    const properties = resolve.inputSchema.properties as Record<string, { enum?: string[] }>
    expect(properties.action!.enum).toEqual(['resolve'])
    expect(Object.keys(properties)).toEqual(['action', 'workspace_root', 'txf', 'input', 'resolution', 'reason'])
    expect(properties.resolution!.enum).toEqual(['accept-newer', 'waive'])
    for (const tool of tools) {
      const actions = (tool.inputSchema.properties as Record<string, { enum?: string[] }>).action?.enum ?? []
      for (const action of actions) expect(action, `${tool.name}.${action}`).not.toMatch(/grant|delegat|revoke|extend|permi/i)
    }
    expect(tools.map((tool) => tool.name).filter((name) => /grant|delegat/i.test(name))).toEqual([])
    const row = await t.staleEdge()
    await t.grant('alice', ['resolve.waive'])
    for (const name of ['expires', 'expiry', 'expires_at', 'ttl']) {
      await refusedWithoutTrace(() => t.resolve(t.alice, row, 'waive', { reason: 'fine as it is', [name]: '2099-01-01T00:00:00.000Z' }), new RegExp(`^unknown argument ${name}`))
    }
  })

  it('COHR.RESOLVE.1 COHR.RESOLVE.3 COHR.RESOLVE.6 APPR.10 COH.EDGES.5 a delegated agent resolves an edge named by its row: the receipt, the ledger line against the grant, the log', async () => {
    const row = await t.staleEdge()
    const { delegation } = await t.grant('alice', ['resolve.accept-newer'])
    const receipt = ok(await t.resolve(t.alice, row, 'accept-newer'))
    expect(Object.keys(receipt).sort()).toEqual(['entryId', 'kind', 'resolvedAgainst'])
    expect(receipt.kind).toBe('ratification')
    expect(receipt.resolvedAgainst).toBe(await headOf(t, row.upstream))
    const line = (await t.entries()).find((entry) => entry.id === receipt.entryId)
    expect(line).toMatchObject({
      kind: 'ratification',
      body: { edge: { txf: row.txf, input: row.input }, upstream_object: row.upstream, pinned: row.pinned, resolved_against: receipt.resolvedAgainst, actor: { type: 'agent', id: 'alice' }, delegation },
    })
    expect(await t.logged()).toContain(receipt.entryId)
    // Audit: what the grant authorized (COHR.RESOLVE.6).
    expect((await t.services.coherence.authorizedBy(t.w, delegation)).map((entry) => entry.id)).toContain(receipt.entryId)
    expect((await t.edges()).find((edge) => edge.txf === row.txf && edge.input === row.input)).toBeUndefined()
  })

  it('APPR.10 COHR.RESOLVE.3 COHR.RESOLVE.4 the same call by another agent is refused and appends nothing; no argument can name who resolves', async () => {
    const row = await t.staleEdge()
    await t.grant('alice', ['resolve.accept-newer', 'resolve.waive'])
    await refusedWithoutTrace(() => t.resolve(bob, row, 'accept-newer'), /^no live delegation authorizes "bob" for resolve\.accept-newer/)
    await refusedWithoutTrace(() => t.resolve(bob, row, 'waive', { reason: 'looks fine' }), /^no live delegation authorizes "bob" for resolve\.waive/)
    for (const [name, value] of [['principal', 'alice'], ['actor', { type: 'agent', id: 'alice' }], ['delegation', 'x'], ['agent', 'alice']] as const) {
      await refusedWithoutTrace(() => t.resolve(bob, row, 'accept-newer', { [name]: value }), new RegExp(`^unknown argument ${name}`))
    }
    expect((await t.edges(bob)).find((edge) => edge.txf === row.txf)?.state).toBe('version-stale')
    // The grant's delegate resolves it.
    expect(ok(await t.resolve(t.alice, row, 'accept-newer')).kind).toBe('ratification')
  })

  it('COHR.RESOLVE.3 a grant covers only its scope', async () => {
    const row = await t.staleEdge()
    await t.grant('carol', ['resolve.accept-newer'])
    const carol = await t.connect('carol')
    await refusedWithoutTrace(() => t.resolve(carol, row, 'waive', { reason: 'not needed' }), /^no live delegation authorizes "carol" for resolve\.waive/)
    expect(ok(await t.resolve(carol, row, 'accept-newer')).kind).toBe('ratification')
  })

  it('COHR.RESOLVE.3 APPR.10 an expired grant is refused as expired and appends nothing', async () => {
    const row = await t.staleEdge()
    await t.grant('dave', ['resolve.accept-newer', 'resolve.waive'], 60 * 60 * 1000)
    const dave = await t.connect('dave')
    t.advanceClock(2 * 60 * 60 * 1000)
    await refusedWithoutTrace(() => t.resolve(dave, row, 'accept-newer'), /^the delegation authorizing "dave" for resolve\.accept-newer has expired/)
    await refusedWithoutTrace(() => t.resolve(dave, row, 'waive', { reason: 'r' }), /has expired/)
    const standing = (await t.services.coherence.grants(t.w)).filter((grant) => grant.delegate === 'dave').map((grant) => grant.standing)
    expect(standing).toEqual(['expired'])
  })

  it('COHR.RESOLVE.3 APPR.10 a revoked grant is refused as revoked and appends nothing', async () => {
    const row = await t.staleEdge()
    const { delegation } = await t.grant('erin', ['resolve.accept-newer'])
    const erin = await t.connect('erin')
    await t.revoke(delegation)
    await refusedWithoutTrace(() => t.resolve(erin, row, 'accept-newer'), /^the delegation authorizing "erin" for resolve\.accept-newer was revoked/)
  })

  it('APPR.10 COHR.RESOLVE.4 an anonymous connection never matches a grant, not even one made out to "anonymous"', async () => {
    const row = await t.staleEdge()
    await t.grant('anonymous', ['resolve.accept-newer', 'resolve.waive'])
    await refusedWithoutTrace(() => t.resolve(anonymous, row, 'accept-newer'), /^no live delegation authorizes an anonymous connection/)
    await refusedWithoutTrace(() => t.resolve(anonymous, row, 'waive', { reason: 'x' }), /anonymous connection/)
  })

  it('COHR.RESOLVE.5 an edge that is no longer live is refused: already resolved, fresh, unknown', async () => {
    const row = await t.staleEdge()
    await t.grant('alice', ['resolve.accept-newer', 'resolve.waive'])
    ok(await t.resolve(t.alice, row, 'accept-newer'))
    await refusedWithoutTrace(() => t.resolve(t.alice, row, 'accept-newer'), /is not live/)
    await refusedWithoutTrace(() => t.resolve(t.alice, row, 'waive', { reason: 'again' }), /is not live/)
    await refusedWithoutTrace(() => t.resolve(t.alice, { ...row, input: 1 }, 'accept-newer'), /is not live/)
    await refusedWithoutTrace(() => t.resolve(t.alice, { txf: '0198c0de-0000-7000-8000-00000000abcd', input: 0 }, 'accept-newer'), /is not live/)
    // A fresh edge: the downstream was written from the upstream as it still is.
    const upstream = join(t.w, 'sources/fresh.md')
    await put(upstream, '# Fresh\n')
    await put(join(t.w, 'derived/fresh.md'), '# From fresh\n')
    const session = t.alice
    const tab = ok(await session.call('workspace', { action: 'open', filePath: upstream })).tabId
    ok(await session.call('document', { action: 'write', tabId: tab, content: '# Fresh\n\nStill true.\n' }))
    ok(await session.call('document', { action: 'read', tabId: tab }))
    const derivedTab = ok(await session.call('workspace', { action: 'open', filePath: join(t.w, 'derived/fresh.md') })).tabId
    ok(await session.call('document', { action: 'write', tabId: derivedTab, content: '# From fresh\n\nIt is still true.\n' }))
    const derivedObject = ok(await session.call('document', { action: 'read', tabId: derivedTab })).content.match(/id: ([0-9a-f-]{36})/)[1]
    const fresh = (await t.entries()).filter((entry) => entry.kind === 'transformation' && entry.body.outputs[0].object === derivedObject).at(-1)
    expect(fresh.body.inputs).toHaveLength(1)
    expect((await t.edges()).find((edge) => edge.txf === fresh.id)).toBeUndefined()
    await refusedWithoutTrace(() => t.resolve(t.alice, { txf: fresh.id, input: 0 }, 'accept-newer'), /is not live/)
  })

  it('COHR.RESOLVE.5 an upstream with two live heads cannot be resolved against: diverged-multi-head, refused', async () => {
    const row = await t.staleEdge()
    await t.grant('alice', ['resolve.accept-newer'])
    // Another writer (VMark on a second clone) revised the upstream from the pinned revision too: two heads.
    const other = '0198c0de-0000-7000-8000-0000000000ee'
    const contentHash = textContentHash('# Source, as the other clone has it\n')
    const revision = revisionId(contentHash, [row.pinned])
    const id = '0198c0de-0001-7000-8000-000000000001'
    const entry = {
      format: 0, id, kind: 'transformation', time: new Date(t.services.engine.now()).toISOString(), writer: other, idem: '0198c0de-0001-7000-8000-000000000002',
      body: { inputs: [], outputs: [{ object: row.upstream, revision, content_hash: contentHash, parents: [row.pinned] }], agent: { type: 'human' }, intent: { kind: 'editor-save', summary: 'other clone' }, confidence: 'exact' },
    }
    await appendFile(join(t.w, '.vmark/ledger', `${other}.jsonl`), `${JSON.stringify(entry)}\n`)
    const listed = (await t.edges()).find((edge) => edge.txf === row.txf && edge.input === row.input)
    expect(listed?.state).toBe('diverged-multi-head')
    await refusedWithoutTrace(() => t.resolve(t.alice, row, 'accept-newer'), /^upstream has multiple live heads — no single revision to resolve against/)
  })

  it('COHR.RESOLVE.2 COHR.RESOLVE.7 waive needs a non-blank reason; the waiver carries it and never an expiry', async () => {
    const row = await t.staleEdge()
    const { delegation } = await t.grant('alice', ['resolve.waive'])
    await refusedWithoutTrace(() => t.resolve(t.alice, row, 'waive'), /^reason \(string\) is required when resolution is "waive"$/)
    await refusedWithoutTrace(() => t.resolve(t.alice, row, 'waive', { reason: '   ' }), /reason \(string\) is required/)
    await refusedWithoutTrace(() => t.resolve(t.alice, row, 'waive', { reason: 7 }), /reason/)
    const receipt = ok(await t.resolve(t.alice, row, 'waive', { reason: 'the chapter predates the change on purpose' }))
    expect(receipt.kind).toBe('waiver')
    const line = (await t.entries()).find((entry) => entry.id === receipt.entryId)
    expect(line.body).toMatchObject({ reason: 'the chapter predates the change on purpose', actor: { type: 'agent', id: 'alice' }, delegation })
    expect(line.body).not.toHaveProperty('expires')
    expect((await t.edges()).find((edge) => edge.txf === row.txf && edge.input === row.input)?.state).toBe('waived')
  })

  it('COHR.RESOLVE.1 argument shapes: txf a UUID, input a non-negative integer, resolution one of two, all required; a plain string each', async () => {
    const row = await t.staleEdge()
    const base = { action: 'resolve', workspace_root: t.w, txf: row.txf, input: row.input, resolution: 'accept-newer' }
    const refusals: Array<[Record<string, unknown>, RegExp]> = [
      [{ ...base, txf: undefined }, /needs txf/],
      [{ ...base, input: undefined }, /needs input/],
      [{ ...base, resolution: undefined }, /needs resolution/],
      [{ ...base, txf: 'edge-1' }, /^txf must be a UUID/],
      [{ ...base, txf: 17 }, /txf/],
      [{ ...base, input: -1 }, /input/],
      [{ ...base, input: 0.5 }, /input/],
      [{ ...base, input: '0' }, /input/],
      [{ ...base, resolution: 'ratify' }, /resolution/],
      [{ ...base, workspace_root: undefined }, /^workspace_root \(string\) is required/],
      [{ ...base, workspace_root: 'rel' }, /^workspace_root must be an absolute path/],
    ]
    for (const [args, pattern] of refusals) {
      const clean = Object.fromEntries(Object.entries(args).filter(([, value]) => value !== undefined))
      await refusedWithoutTrace(() => t.alice.call('coherence_resolve', clean), pattern)
    }
  })

  it('COHR.RESOLVE.10 CONC.4 a resolution waiting 3 s (here 200 ms) behind another of the same workspace answers the plain string WRITE_BUSY and appends nothing', async () => {
    const first = await t.staleEdge()
    const second = await t.staleEdge()
    await t.grant('alice', ['resolve.accept-newer'])
    const before = (await t.entries()).length
    t.holdLog()
    const held = t.resolve(t.alice, first, 'accept-newer')
    // The first has its turn once its line is in the ledger (its log copy is what is held).
    while ((await t.entries()).length === before) await new Promise((resolve) => setTimeout(resolve, 20))
    plain(await t.resolve(t.alice, second, 'accept-newer'), /^WRITE_BUSY/)
    plain(await t.resolve(bob, second, 'accept-newer'), /^WRITE_BUSY/)
    t.releaseLog()
    expect(ok(await held).kind).toBe('ratification')
    const entries = await t.entries()
    expect(entries).toHaveLength(before + 1)
    expect(entries.some((entry) => entry.kind === 'ratification' && entry.body.edge.txf === second.txf)).toBe(false)
    expect(ok(await t.resolve(t.alice, second, 'accept-newer')).kind).toBe('ratification')
  })
})

describe('coherence_resolve TIMEOUT (the log\'s writes held)', () => {
  it('COHR.RESOLVE.9 a resolution not done in time answers the plain string TIMEOUT and still lands', async () => {
    const t = await world({ answerWithinMs: 300 })
    try {
      const row = await t.staleEdge()
      await t.grant('alice', ['resolve.accept-newer'])
      t.holdLog()
      plain(await t.resolve(t.alice, row, 'accept-newer'), /^TIMEOUT: coherence_resolve\.resolve did not finish/)
      t.releaseLog()
      // It keeps running: the ratification reaches the ledger and the log, and the edge is no longer listed.
      const deadline = Date.now() + 10_000
      let landed: Json | undefined
      while (landed === undefined && Date.now() < deadline) {
        const ids = await t.logged()
        landed = (await t.entries()).find((entry) => entry.kind === 'ratification' && ids.includes(entry.id))
        if (landed === undefined) await new Promise((resolve) => setTimeout(resolve, 20))
      }
      expect(landed).toMatchObject({ body: { edge: { txf: row.txf, input: row.input }, actor: { type: 'agent', id: 'alice' } } })
      expect((await t.edges()).find((edge) => edge.txf === row.txf)).toBeUndefined()
    } finally {
      await t.close()
    }
  })
})

/**
 * The same rule end to end: `quire serve` over HTTP or `quire mcp` over stdio, two agents with real tokens
 * (`quire agent add`), the person granting with `quire coherence grant`. The principal is the token's agent.
 */
describe.each<Transport>(TRANSPORTS)('coherence_resolve with agent tokens over %s', (transport) => {
  let home: string
  let w: string
  let alice: Session
  let bob: Session
  let stop: () => Promise<void>

  beforeAll(async () => {
    home = await tempDir('quire-cohr-home-')
    w = await folder('cohr-e2e', { 'elena.md': '# Elena\n', 'chapter.md': '# Chapter\n' })
    const tokens: Record<string, string> = {}
    for (const name of ['alice', 'bob']) {
      const added = await cli(home, 'agent', 'add', name)
      expect(added.code, added.stderr).toBe(0)
      tokens[name] = added.stdout.trim().split('\n').at(-1)!.trim()
    }
    for (const [key, value] of [['trackProvenance', 'on']]) expect((await cli(home, 'settings', 'set', key!, value!)).code).toBe(0)
    if (transport === 'http') {
      const daemon = await launchDaemon({ home, workspaces: [w] })
      alice = await daemon.connect(tokens.alice)
      bob = await daemon.connect(tokens.bob)
      stop = async () => {
        await alice.close()
        await bob.close()
        await daemon.stop()
      }
    } else {
      alice = await launchStdio({ home, workspaces: [w], env: { QUIRE_TOKEN: tokens.alice! } })
      bob = await launchStdio({ home, env: { QUIRE_TOKEN: tokens.bob! } })
      stop = async () => {
        await bob.close()
        await alice.close()
      }
    }
  })
  afterAll(async () => {
    await stop?.()
    await removeAll(home, w)
  })

  it('APPR.10 COHR.RESOLVE.1 COHR.RESOLVE.3 COHR.RESOLVE.4 the grant names alice: bob\'s identical call is refused and appends nothing, alice\'s resolves as alice', async () => {
    const elena = await open(alice, join(w, 'elena.md'))
    await write(alice, elena, '# Elena\n\nBrave.\n')
    await read(alice, elena)
    await write(alice, await open(alice, join(w, 'chapter.md')), '# Chapter\n\nElena is brave.\n')
    ok(await alice.call('workspace', { action: 'close', tabId: elena }))
    await put(join(w, 'elena.md'), `${await readFile(join(w, 'elena.md'), 'utf8')}\nAfraid of water.\n`)
    const listed = await alice.call('coherence', { action: 'edges', workspace_root: w })
    const [row] = JSON.parse(listed.text)
    expect(row).toMatchObject({ upstream_path: 'elena.md', downstream_path: 'chapter.md', state: 'version-stale' })

    const granted = await cli(home, 'coherence', 'grant', 'alice', '--scope', 'accept-newer', '--root', w)
    expect(granted.code, granted.stderr).toBe(0)
    const delegation = granted.stdout.trim().split(':')[0]!
    const args = { action: 'resolve', workspace_root: w, txf: row.txf, input: row.input, resolution: 'accept-newer' }
    const before = await files(join(w, '.vmark'))
    plain(await bob.call('coherence_resolve', args), /^no live delegation authorizes "bob" for resolve\.accept-newer/)
    plain(await bob.call('coherence_resolve', { ...args, principal: 'alice' }), /^unknown argument principal/)
    expect(await files(join(w, '.vmark'))).toEqual(before)

    const receipt = ok(await alice.call('coherence_resolve', args))
    expect(receipt.kind).toBe('ratification')
    const writer = (await readFile(join(home, 'coherence-writer-id'), 'utf8')).trim()
    const lines = (await readFile(join(w, '.vmark/ledger', `${writer}.jsonl`), 'utf8')).split('\n').filter((line) => line !== '').map((line) => JSON.parse(line))
    expect(lines.find((entry) => entry.id === receipt.entryId)).toMatchObject({ kind: 'ratification', body: { actor: { type: 'agent', id: 'alice' }, delegation } })
    expect(JSON.parse((await bob.call('coherence', { action: 'edges', workspace_root: w })).text)).toEqual([])
  })
})
