import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { rm } from 'node:fs/promises'
import * as Y from 'yjs'
import { readTrace, type Trace } from '../../adapters/trace/traceFile.js'
import { agentClientId, traceUpdates } from '../../adapters/trace/tracePeers.js'
import { launchDaemon, tempDir, type Daemon, type Session } from '../support/mcpHarness.js'
import { runCli } from '../support/cli.js'
import { docIdOfTab, peer, until, type Peer } from '../support/collabPeers.js'
import { FRIENDSFOREVER_TRACE } from '../support/dataFiles.js'

const TRACE = FRIENDSFOREVER_TRACE

/**
 * For each transaction, the clock each agent's client must have reached in the typing agent's document first: the
 * ends of that agent's transactions in the transaction's history. A peer types a transaction only once the server
 * has brought it everything the transaction was made on top of, as a person's editor would have shown it.
 */
function requirements(trace: Extract<Trace, { kind: 'concurrent' }>, updates: readonly Uint8Array[]): number[][] {
  const clock = new Array<number>(trace.numAgents).fill(0)
  const ends: number[] = []
  const needs: number[][] = []
  trace.txns.forEach((txn, index) => {
    const to = Y.parseUpdateMeta(updates[index]!).to.get(agentClientId(txn.agent))
    clock[txn.agent] = Math.max(clock[txn.agent]!, to ?? 0)
    ends.push(clock[txn.agent]!)
    const need = new Array<number>(trace.numAgents).fill(0)
    for (const parent of txn.parents) {
      const agent = trace.txns[parent]!.agent
      need[agent] = Math.max(need[agent]!, ends[parent]!)
      needs[parent]!.forEach((value, other) => (need[other] = Math.max(need[other]!, value)))
    }
    needs.push(need)
  })
  return needs
}

function covers(doc: Y.Doc, need: readonly number[], except: number): boolean {
  const vector = Y.decodeStateVector(Y.encodeStateVector(doc))
  return need.every((clock, agent) => agent === except || clock === 0 || (vector.get(agentClientId(agent)) ?? 0) >= clock)
}

describe('the friendsforever trace typed by two real y-websocket peers through the daemon', () => {
  let daemon: Daemon
  let mcp: Session
  const peers: Peer[] = []

  let home: string
  beforeAll(async () => {
    // Our own data directory: it must outlive the daemon, for `quire replay` on the stopped directory.
    home = await tempDir('quire-collab-trace-')
    daemon = await launchDaemon({ home })
    mcp = await daemon.connect()
  })
  afterAll(async () => {
    for (const each of peers) each.destroy()
    await mcp?.close().catch(() => {})
    await daemon?.stop()
    if (home) await rm(home, { recursive: true, force: true })
  })

  it('ends at the trace end content on both peers, in the live document and in `quire replay`', async () => {
    const trace = await readTrace(TRACE)
    if (trace.kind !== 'concurrent') throw new Error('friendsforever is a concurrent trace')
    const updates = [...traceUpdates(trace)]
    const needs = requirements(trace, updates)

    const tabId = (await mcp.call('workspace', { action: 'new' })).structured!.tabId as string
    const docId = await docIdOfTab(daemon.port, daemon.token, tabId)
    // The peers' own client ids stay clear of the agents' (1000 + agent), which carry the trace's tie-break.
    const agents = Array.from({ length: trace.numAgents }, (_, agent) => peer(daemon.port, docId, { token: daemon.token, clientId: 10 + agent, params: { name: `agent${agent}` } }))
    peers.push(...agents)
    await Promise.all(agents.map((each) => each.synced()))

    // Both agents type at once, each waiting only for what its next transaction was made on top of.
    const byAgent = trace.txns.map((txn, index) => ({ agent: txn.agent, index }))
    await Promise.all(
      agents.map(async (typist, agent) => {
        for (const { index } of byAgent.filter((txn) => txn.agent === agent)) {
          if (!covers(typist.doc, needs[index]!, agent)) {
            await new Promise<void>((resolve) => {
              const check = () => {
                if (!covers(typist.doc, needs[index]!, agent)) return
                typist.doc.off('update', check)
                resolve()
              }
              typist.doc.on('update', check)
            })
          }
          Y.applyUpdate(typist.doc, updates[index]!)
          // Yield now and then, so the socket carries the updates while the other agent types.
          if (index % 64 === 0) await new Promise((resolve) => setImmediate(resolve))
        }
      }),
    )

    await until('both peers to reach the end content', () => agents.every((each) => each.text.toString() === trace.endContent), 45_000)
    await until('the live document to reach it', async () => {
      const read = await mcp.call('document', { action: 'read', tabId })
      return (read.structured as { content: string }).content === trace.endContent
    })
    await mcp.close()
    for (const each of agents) each.provider.disconnect()
    await daemon.stop()
    const replayed = await runCli(['replay', '--doc', docId], { home })
    expect(replayed.code, replayed.stderr).toBe(0)
    expect(replayed.stdout === trace.endContent).toBe(true)
  })
})
