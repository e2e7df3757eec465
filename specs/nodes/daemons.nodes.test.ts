import { randomBytes } from 'node:crypto'
import { afterEach, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { readTrace } from '../../adapters/trace/traceFile.js'
import { traceUpdates } from '../../adapters/trace/tracePeers.js'
import { docIdOfTab, peer, until, type Peer } from '../support/collabPeers.js'
import { FRIENDSFOREVER_TRACE } from '../support/dataFiles.js'
import { launchDaemon, type Daemon, type Session } from '../support/mcpHarness.js'
import { runCli } from '../support/cli.js'
import { usePostgresDatabase } from '../support/postgresServer.js'

/**
 * Real `quire serve` nodes (QUIRE_STORE pointing at one PostgreSQL log, each with its own data directory), reached by
 * the real MCP SDK client and real y-websocket peers, as a load balancer would spread them.
 */
const database = usePostgresDatabase()
const open: { daemons: Daemon[]; sessions: Session[]; peers: Peer[] } = { daemons: [], sessions: [], peers: [] }

afterEach(async () => {
  for (const each of open.peers.splice(0)) each.destroy()
  await Promise.allSettled(open.sessions.splice(0).map((session) => session.close()))
  await Promise.allSettled(open.daemons.splice(0).map((daemon) => daemon.stop()))
})

async function nodes(count: number): Promise<Daemon[]> {
  const store = `${database()}&schema=serve_${randomBytes(6).toString('hex')}`
  const started: Daemon[] = []
  for (let index = 0; index < count; index += 1) started.push(await launchDaemon({ env: { QUIRE_STORE: store } }))
  open.daemons.push(...started)
  return started
}

async function connect(daemon: Daemon): Promise<Session> {
  const session = await daemon.connect()
  open.sessions.push(session)
  return session
}

async function newTab(session: Session): Promise<string> {
  return (await session.call('workspace', { action: 'new' })).structured!.tabId as string
}

async function read(session: Session, tabId: string): Promise<{ content: string; revision: string } | undefined> {
  const result = await session.call('document', { action: 'read', tabId })
  return result.isError ? undefined : (result.structured as { content: string; revision: string })
}

describe('nodes serving one PostgreSQL log', () => {
  it('the friendsforever trace typed by one peer on node A and one on node B converges on both, and in MCP reads on both', async () => {
    const trace = await readTrace(FRIENDSFOREVER_TRACE)
    if (trace.kind !== 'concurrent') throw new Error('friendsforever is a concurrent trace')
    const [a, b] = await nodes(2)
    const onA = await connect(a!)
    const onB = await connect(b!)
    const tabId = await newTab(onA)
    const docId = await docIdOfTab(a!.port, a!.token, tabId)
    await until('node B to know the tab', async () => (await read(onB, tabId)) !== undefined)
    // The same name on both nodes: each node's first connection, so their labels differ only by node.
    const typists = [a!, b!].map((node, agent) => peer(node.port, docId, { token: node.token, clientId: 10 + agent, params: { name: 'typist' } }))
    open.peers.push(...typists)
    await Promise.all(typists.map((each) => each.synced()))
    const updates = [...traceUpdates(trace)]
    // Each agent types its own transactions in order; Yjs holds back what arrives before its dependencies.
    await Promise.all(
      typists.map(async (typist, agent) => {
        let typed = 0
        for (const [index, txn] of trace.txns.entries()) {
          if (txn.agent !== agent) continue
          Y.applyUpdate(typist.doc, updates[index]!)
          if (++typed % 64 === 0) await new Promise((resolve) => setImmediate(resolve))
        }
      }),
    )
    await until('both peers to reach the end content', () => typists.every((each) => each.text.toString() === trace.endContent), 180_000)
    for (const session of [onA, onB]) {
      await until('each node to hold it', async () => (await read(session, tabId))?.content === trace.endContent, 30_000)
    }
  }, 240_000)

  it('MCP writes racing on one revision through two nodes: exactly one is applied, the other answers STALE', async () => {
    const [a, b] = await nodes(2)
    const onA = await connect(a!)
    const onB = await connect(b!)
    const tabId = await newTab(onA)
    for (let round = 0; round < 5; round += 1) {
      const current = (await read(onA, tabId))!.revision
      await until('node B to reach the revision', async () => (await read(onB, tabId))?.revision === current)
      const results = await Promise.all([
        onA.call('document', { action: 'write', tabId, content: `a ${round}\n`, expected_revision: current, save: false }),
        onB.call('document', { action: 'write', tabId, content: `b ${round}\n`, expected_revision: current, save: false }),
      ])
      expect(results.filter((result) => !result.isError)).toHaveLength(1)
      const loser = results.find((result) => result.isError)!
      expect(JSON.parse(loser.text).error).toBe('STALE')
    }
  }, 120_000)

  it('a node killed (SIGKILL) during writes: every write it acknowledged replays exactly on the node left', async () => {
    const [a, b] = await nodes(2)
    const onA = await connect(a!)
    const tabId = await newTab(onA)
    const acknowledged: { revision: string; content: string }[] = []
    let text = ''
    const writing = (async () => {
      for (let n = 0; ; n += 1) {
        text += `line ${n}\n`
        const result = await onA.call('document', { action: 'write', tabId, content: text, save: false }).catch(() => undefined)
        if (!result || result.isError) return
        acknowledged.push({ revision: (result.structured as { revision: string }).revision, content: text })
      }
    })()
    await until('some writes acknowledged', () => acknowledged.length >= 20, 30_000)
    a!.process.kill('SIGKILL')
    await writing
    const docId = await docIdOfTab(b!.port, b!.token, tabId)
    // The last through the CLI as a person would run it; every one through the node's audit route it asks.
    const last = acknowledged[acknowledged.length - 1]!
    const replayed = await runCli(['replay', '--doc', docId, '--at', last.revision], { home: b!.home })
    expect(replayed.code, replayed.stderr).toBe(0)
    expect(replayed.stdout).toBe(last.content)
    for (const { revision, content } of acknowledged) {
      const response = await fetch(`${b!.url}/admin/replay?${new URLSearchParams({ doc: docId, at: revision, cwd: b!.home })}`, { headers: { authorization: `Bearer ${b!.token}` } })
      expect(response.status).toBe(200)
      expect(((await response.json()) as { content: string }).content).toBe(content)
    }
  }, 120_000)
})
