import { randomBytes } from 'node:crypto'
import { availableParallelism, loadavg } from 'node:os'
import { setTimeout as sleep } from 'node:timers/promises'
import WebSocket from 'ws'
import * as Y from 'yjs'
import { WebsocketProvider } from 'y-websocket'
import { processCpuMs, selfCpuMs } from './mcpSupport.js'
import { postgresCpuReader, startNode, startServer, type Node, type NodeClient } from './nodesCluster.js'
import { fmtMs, fmtRate, fmtRatio, median, now, percentile, printTable, settle, sized, type Benchmark, type RunOptions, type TargetResult } from './util.js'

/**
 * Scale-out of Quire nodes (issue 17): real `quire serve` processes sharing one PostgreSQL log (a throwaway
 * unix-socket cluster, or QUIRE_TEST_POSTGRES), each with its own data directory.
 *
 * 1. Throughput on distinct documents: K MCP clients (QUIRE_BENCH_NODES_CLIENTS, 8), each writing its own document
 *    (`document.write` of a one-line edit to a 20-line text, save: false) as fast as answers come, spread round-robin
 *    over 1, 2 or 3 nodes. Each node count has its own log (a schema of its own) and its own nodes, all started
 *    before the first phase; the phases run in rounds (1, 2, 3 nodes each round), and the ratio judged is the median
 *    of the rounds' 2-node / 1-node ratios. CPU over each phase: the nodes' (/proc/<pid>/stat), PostgreSQL's server
 *    processes' (postmaster and children, /proc), and this process's (the clients: process.cpuUsage), so whatever
 *    stops the scaling on this machine shows beside the rate. Then one more phase on the 2-node log with every
 *    client on node A: node A's CPU per write (taking it) and node B's (only tailing it), PostgreSQL's and the
 *    clients' per write, and from those the CPU ceiling of n nodes on this machine's cores (each write costs one
 *    node the taking and every other node the tailing).
 * 2. Fan-out across nodes: one typist peer (y-websocket) at a fixed rate, M observer peers (1 and 10); cross-node:
 *    typist on node A, observers on node B of the 2-node log (a keystroke reaches B only through the log); single-node:
 *    all on the lone node of the 1-node log. Latency: from just before the typist's edit to the moment an observer's
 *    document holds it (all peers in this process, one clock).
 */

const TYPIST = 1
const NODE_COUNTS = [1, 2, 3] as const
const SCALE_TARGET = 1.4

interface Sizes {
  readonly clients: number
  readonly phaseMs: number
  readonly rounds: number
  readonly rate: number
  readonly fanoutMs: number
  readonly observerCounts: readonly number[]
}

function sizesFor(options: RunOptions): Sizes {
  return {
    clients: sized(options, 'QUIRE_BENCH_NODES_CLIENTS', 8, 8),
    phaseMs: sized(options, 'QUIRE_BENCH_NODES_MS', 6_000, 300),
    rounds: sized(options, 'QUIRE_BENCH_NODES_ROUNDS', 3, 1),
    rate: sized(options, 'QUIRE_BENCH_NODES_RATE', 50, 50),
    fanoutMs: sized(options, 'QUIRE_BENCH_NODES_FANOUT_MS', 5_000, 300),
    observerCounts: [1, 10],
  }
}

interface Cluster {
  readonly nodes: readonly Node[]
}

interface WritePhase {
  readonly nodes: number
  readonly writes: number
  readonly seconds: number
  readonly latencies: number[]
  /** Each node's CPU over the phase, in the cluster's order. */
  readonly nodeCpuS: readonly number[]
  readonly nodesCpuS: number
  readonly postgresCpuS: number
  readonly clientsCpuS: number
  readonly load: number
}

const rate = (phase: WritePhase): number => phase.writes / phase.seconds

/** A 20-line text whose line `n % 20` says `n`: each write changes one line of the one before. */
function textOf(client: number, n: number): string {
  const lines = Array.from({ length: 20 }, (_, line) => `client ${client} line ${line}: some words of a paragraph, ${line === n % 20 ? `edit ${n}` : 'unchanged'}`)
  return `# Document ${client}\n\n${lines.join('\n')}\n`
}

interface Writer {
  readonly client: NodeClient
  readonly tabId: string
  readonly index: number
  written: number
}

/** K clients, client i on node i mod n of `spread`, each with its own new tab written once. */
async function writers(spread: readonly Node[], count: number): Promise<Writer[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, index) => {
      const node = spread[index % spread.length]!
      const client = await node.connect(`writer-${index}`)
      const { tabId } = (await client.call('workspace', { action: 'new' })) as { tabId: string }
      const writer: Writer = { client, tabId, index, written: 0 }
      await write(writer)
      return writer
    }),
  )
}

async function write(writer: Writer): Promise<void> {
  await writer.client.call('document', { action: 'write', tabId: writer.tabId, content: textOf(writer.index, ++writer.written), save: false })
}

async function writePhase(cluster: Cluster, clients: readonly Writer[], ms: number, postgresCpu: (() => number) | undefined): Promise<WritePhase> {
  const latencies: number[] = []
  const nodesBefore = cluster.nodes.map((node) => processCpuMs(node.pid))
  const postgresBefore = postgresCpu?.() ?? Number.NaN
  const selfBefore = selfCpuMs()
  const started = now()
  const deadline = started + ms
  await Promise.all(
    clients.map(async (writer) => {
      for (let t = now(); t < deadline; ) {
        await write(writer)
        const end = now()
        latencies.push(end - t)
        t = end
      }
    }),
  )
  const seconds = (now() - started) / 1000
  const nodeCpuS = cluster.nodes.map((node, index) => (processCpuMs(node.pid) - nodesBefore[index]!) / 1000)
  return {
    nodes: cluster.nodes.length,
    writes: latencies.length,
    seconds,
    latencies,
    nodeCpuS,
    nodesCpuS: nodeCpuS.reduce((sum, value) => sum + value, 0),
    postgresCpuS: ((postgresCpu?.() ?? Number.NaN) - postgresBefore) / 1000,
    clientsCpuS: (selfCpuMs() - selfBefore) / 1000,
    load: loadavg()[0]!,
  }
}

interface Peer {
  readonly doc: Y.Doc
  readonly provider: WebsocketProvider
}

function peer(node: Node, docId: string, clientId?: number): Peer {
  const doc = new Y.Doc()
  if (clientId !== undefined) doc.clientID = clientId
  const provider = new WebsocketProvider(`ws://127.0.0.1:${node.port}/collab`, docId, doc, {
    params: { token: node.token },
    WebSocketPolyfill: WebSocket as unknown as typeof globalThis.WebSocket,
    disableBc: true,
  })
  return { doc, provider }
}

function synced(each: Peer, timeoutMs = 20_000): Promise<void> {
  if (each.provider.synced) return Promise.resolve()
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('a peer did not sync in 20 s')), timeoutMs)
    each.provider.once('sync', () => {
      clearTimeout(timer)
      resolve()
    })
  })
}

interface FanoutPhase {
  readonly edits: number
  readonly latencies: number[]
}

/** One typist on `typistNode`, `observers` peers on `observerNode`, typing at `rate` edits/s for `ms`. */
async function fanoutPhase(typistNode: Node, observerNode: Node, observers: number, rate: number, ms: number): Promise<FanoutPhase> {
  const mcp = await typistNode.connect('fanout')
  const peers: Peer[] = []
  try {
    const { tabId } = (await mcp.call('workspace', { action: 'new' })) as { tabId: string }
    const docId = await typistNode.docIdOf(tabId)
    // The observers' node learns of the document from the log; wait until it lists it.
    const known = now() + 20_000
    while (!(await observerNode.docIdOf(tabId).then(() => true, () => false))) {
      if (now() > known) throw new Error(`node ${observerNode.label} did not learn of tab ${tabId} in 20 s`)
      await sleep(20)
    }
    const typist = peer(typistNode, docId, TYPIST)
    peers.push(typist)
    for (let index = 0; index < observers; index++) peers.push(peer(observerNode, docId))
    await Promise.all(peers.map((each) => synced(each)))
    await sleep(200)
    const watchers = peers.slice(1)
    const sent: { t0: number; clock: number }[] = []
    const latencies: number[] = []
    const arrived = watchers.map(() => 0)
    watchers.forEach((watcher, index) => {
      watcher.doc.on('update', () => {
        const clock = Y.getState(watcher.doc.store, TYPIST)
        const t = now()
        let next = arrived[index]!
        while (next < sent.length && sent[next]!.clock <= clock) latencies.push(t - sent[next++]!.t0)
        arrived[index] = next
      })
    })
    const text = typist.doc.getText('source')
    const count = Math.max(1, Math.round((ms / 1000) * rate))
    const start = now()
    for (let index = 0; index < count; index++) {
      const wait = start + (index * 1000) / rate - now()
      if (wait > 1) await sleep(wait)
      const t0 = now()
      text.insert(text.length, index % 10 === 9 ? ' ' : String.fromCharCode(97 + (index % 26)))
      sent.push({ t0, clock: Y.getState(typist.doc.store, TYPIST) })
    }
    const deadline = now() + 30_000
    while (arrived.some((value) => value < sent.length) && now() < deadline) await sleep(5)
    if (arrived.some((value) => value < sent.length)) throw new Error(`not every observer on node ${observerNode.label} got every edit within 30 s`)
    const expected = text.toString()
    if (watchers.some((watcher) => watcher.doc.getText('source').toString() !== expected)) throw new Error('an observer ended with other text')
    return { edits: count, latencies }
  } finally {
    for (const each of peers) {
      each.provider.destroy()
      each.doc.destroy()
    }
    await mcp.close()
  }
}


/** CPU seconds over wall seconds: how many of the machine's cores a side kept busy. */
const cores = (cpuS: number, wallS: number): string => (Number.isNaN(cpuS) ? 'n/a' : `${(cpuS / wallS).toFixed(2)}`)

export const nodesBenchmark: Benchmark = {
  name: 'nodes',
  description: 'scale-out on PostgreSQL: MCP writes/s on 1, 2, 3 nodes (with nodes\', PostgreSQL\'s, clients\' CPU); cross-node vs single-node fan-out p99',
  async run(options: RunOptions): Promise<TargetResult[]> {
    const sizes = sizesFor(options)
    // Every WebsocketProvider adds a process 'exit' listener in Node; a phase opens eleven.
    process.setMaxListeners(Math.max(process.getMaxListeners(), 100))
    const server = await startServer()
    if (typeof server === 'string') {
      console.log(`skipped: ${server}`)
      return []
    }
    const clusters: Cluster[] = []
    // Every node started, whether or not its log's others started too: all are stopped at the end.
    const started: Node[] = []
    const start = async (store: string, label: string) => {
      const node = await startNode(store, label)
      started.push(node)
      return node
    }
    try {
      const database = await server.createDatabase()
      const postgresCpu = postgresCpuReader(server.connectionString)
      if (!postgresCpu) console.log('PostgreSQL is not a throwaway cluster of this machine (QUIRE_TEST_POSTGRES): its CPU is not measured')
      const storeOf = (nodes: number) => `${database}&schema=nodes${nodes}_${randomBytes(4).toString('hex')}`
      // The logs side by side; within one, its first node migrates the schema alone, then the others start.
      const label = (count: number, index: number) => `${count}${String.fromCharCode(65 + index)}`
      clusters.push(
        ...(await Promise.all(
          NODE_COUNTS.map(async (count) => {
            const store = storeOf(count)
            const first = await start(store, label(count, 0))
            const rest = await Promise.all(Array.from({ length: count - 1 }, (_, index) => start(store, label(count, index + 1))))
            return { nodes: [first, ...rest] }
          }),
        )),
      )
      console.log(`${clusters.flatMap((cluster) => cluster.nodes).length} nodes started on ${NODE_COUNTS.length} logs; ${sizes.clients} clients per phase, ${sizes.rounds} round(s) of ${sizes.phaseMs} ms`)

      const phases = new Map<number, WritePhase[]>(NODE_COUNTS.map((count) => [count, []]))
      const pools = await Promise.all(clusters.map((cluster) => writers(cluster.nodes, sizes.clients)))
      // Warm-up: connections, plans, JIT of every node.
      for (const [index, cluster] of clusters.entries()) await writePhase(cluster, pools[index]!, Math.min(sizes.phaseMs, 500), undefined)
      for (let round = 0; round < sizes.rounds; round++) {
        for (const [index, cluster] of clusters.entries()) {
          await settle()
          phases.get(cluster.nodes.length)!.push(await writePhase(cluster, pools[index]!, sizes.phaseMs, postgresCpu))
        }
      }
      await Promise.all(pools.flat().map((writer) => writer.client.close()))
      // What a write costs a node that did not take it (it tails the log) beside one that did: every client on node A
      // of the 2-node log, node B idle but for the log.
      const pair = clusters[1]!
      const onA = await writers([pair.nodes[0]!], sizes.clients)
      await settle()
      const tailing = await writePhase(pair, onA, sizes.phaseMs, postgresCpu)
      await Promise.all(onA.map((writer) => writer.client.close()))

      const all = NODE_COUNTS.flatMap((count) => phases.get(count)!)
      printTable(
        `nodes: ${sizes.clients} MCP clients writing their own documents, round-robin over the nodes (CPU as cores busy: CPU s / wall s)`,
        ['round', 'nodes', 'writes/s', 'p50', 'p99', 'each node\'s CPU', 'PostgreSQL CPU', 'clients CPU', 'sum', 'load'],
        all.map((phase) => {
          const round = phases.get(phase.nodes)!.indexOf(phase) + 1
          return [
            String(round),
            String(phase.nodes),
            fmtRate(rate(phase)),
            fmtMs(percentile(phase.latencies, 50)),
            fmtMs(percentile(phase.latencies, 99)),
            phase.nodeCpuS.map((cpu) => cores(cpu, phase.seconds)).join(' + '),
            cores(phase.postgresCpuS, phase.seconds),
            cores(phase.clientsCpuS, phase.seconds),
            cores(phase.nodesCpuS + phase.postgresCpuS + phase.clientsCpuS, phase.seconds),
            phase.load.toFixed(2),
          ]
        }),
      )
      printTable('nodes: CPU per write (ms)', ['nodes', 'writes/s (median)', 'nodes', 'PostgreSQL', 'clients'], NODE_COUNTS.map((count) => {
        const list = phases.get(count)!
        const writes = list.reduce((sum, phase) => sum + phase.writes, 0)
        const per = (pick: (phase: WritePhase) => number) => {
          const total = list.reduce((sum, phase) => sum + pick(phase), 0)
          return Number.isNaN(total) ? 'n/a' : ((total * 1000) / writes).toFixed(2)
        }
        return [String(count), fmtRate(median(list.map(rate))), per((phase) => phase.nodesCpuS), per((phase) => phase.postgresCpuS), per((phase) => phase.clientsCpuS)]
      }))
      const msPerWrite = (cpuS: number, writes: number) => (cpuS * 1000) / writes
      const taking = msPerWrite(tailing.nodeCpuS[0]!, tailing.writes)
      const tail = msPerWrite(tailing.nodeCpuS[1]!, tailing.writes)
      const alone = phases.get(1)!
      const aloneWrites = alone.reduce((sum, phase) => sum + phase.writes, 0)
      const postgresPer = msPerWrite(alone.reduce((sum, phase) => sum + phase.postgresCpuS, 0), aloneWrites)
      const clientPer = msPerWrite(alone.reduce((sum, phase) => sum + phase.clientsCpuS, 0), aloneWrites)
      const core = availableParallelism()
      // Every write is taken by one node and tailed by each of the others, so n nodes spend taking + (n-1)·tail on it.
      const perWrite = (count: number) => taking + (count - 1) * tail + (Number.isNaN(postgresPer) ? 0 : postgresPer) + clientPer
      // Three bounds, whichever is lowest: the machine's cores for all of it; one core for each node's JavaScript (a node
      // spends taking + (n-1)·tail per write of the log on one main thread, a write in n taken by it); one core for the
      // clients, which all run in this one process.
      const bounds = (count: number, machine = core) => ({
        cores: (machine * 1000) / perWrite(count),
        'a node\'s one thread': (count * 1000) / (taking + (count - 1) * tail),
        'the clients\' one thread': 1000 / clientPer,
      })
      const ceiling = (count: number, machine = core) => Math.min(...Object.values(bounds(count, machine)))
      const binding = (count: number, machine = core) => Object.entries(bounds(count, machine)).reduce((low, entry) => (entry[1] < low[1] ? entry : low))[0]
      console.log(
        `\nper write (2-node log, all ${sizes.clients} clients on node A, ${fmtRate(rate(tailing))}): the node taking it ${taking.toFixed(2)} ms CPU, ` +
          `the node tailing it ${tail.toFixed(2)} ms; PostgreSQL ${Number.isNaN(postgresPer) ? 'n/a' : `${postgresPer.toFixed(2)} ms`} and the client ${clientPer.toFixed(2)} ms (1-node phases)`,
      )
      console.log(
        `CPU ceiling on ${core} cores, if nothing else ran: ${NODE_COUNTS.map((count) => `${count} node(s) ${fmtRate(ceiling(count))} (${binding(count)})`).join(', ')}; ` +
          `2 nodes / 1 node at most ${fmtRatio(ceiling(2) / ceiling(1))}`,
      )
      // The same costs on a machine with more cores: where the nodes' own threads, not the machine, bind.
      const wider = Math.max(4, core * 2)
      console.log(
        `the same per-write costs on ${wider} cores: ${NODE_COUNTS.map((count) => `${count} node(s) ${fmtRate(ceiling(count, wider))} (${binding(count, wider)})`).join(', ')}; ` +
          `2 nodes / 1 node at most ${fmtRatio(ceiling(2, wider) / ceiling(1, wider))}`,
      )
      const perRound = (over: number) => median(Array.from({ length: sizes.rounds }, (_, round) => rate(phases.get(over)![round]!) / rate(phases.get(1)![round]!)))
      const twoOverOne = perRound(2)
      const threeOverOne = perRound(3)
      console.log(`2 nodes / 1 node: ${fmtRatio(twoOverOne)}; 3 nodes / 1 node: ${fmtRatio(threeOverOne)} (medians of the rounds' ratios)`)

      const fanout: { observers: number; cross: FanoutPhase; single: FanoutPhase }[] = []
      const lone = clusters[0]!.nodes[0]!
      const [a, b] = clusters[1]!.nodes as [Node, Node]
      for (const observers of sizes.observerCounts) {
        await settle()
        const single = await fanoutPhase(lone, lone, observers, sizes.rate, sizes.fanoutMs)
        await settle()
        const cross = await fanoutPhase(a, b, observers, sizes.rate, sizes.fanoutMs)
        fanout.push({ observers, cross, single })
      }
      printTable(
        `nodes: fan-out, one typist at ${sizes.rate} edits/s for ${sizes.fanoutMs / 1000} s, keystroke to observer`,
        ['observers', 'where', 'edits', 'p50', 'p99'],
        fanout.flatMap(({ observers, cross, single }) => [
          [String(observers), 'single node', String(single.edits), fmtMs(percentile(single.latencies, 50)), fmtMs(percentile(single.latencies, 99))],
          [String(observers), 'typist on A, observers on B', String(cross.edits), fmtMs(percentile(cross.latencies, 50)), fmtMs(percentile(cross.latencies, 99))],
        ]),
      )

      return [
        { benchmark: 'nodes', name: '2 nodes / 1 node, writes/s on distinct documents', ratio: twoOverOne, target: `≥ ${SCALE_TARGET}x (or the CPU limit shown)`, met: twoOverOne >= SCALE_TARGET },
        { benchmark: 'nodes', name: '3 nodes / 1 node, writes/s on distinct documents', ratio: threeOverOne, target: 'record', met: null },
        { benchmark: 'nodes', name: `CPU ceiling on ${core} cores, 2 nodes / 1 node`, ratio: ceiling(2) / ceiling(1), target: 'record (the limit)', met: null },
        { benchmark: 'nodes', name: 'CPU of a tailing node / the taking node, per write', ratio: tail / taking, target: 'record', met: null },
        // Both nodes taking writes hand the log's one writer lease back and forth; one node taking them all does not.
        { benchmark: 'nodes', name: '2-node log: all clients on node A / round-robin, writes/s', ratio: rate(tailing) / median(phases.get(2)!.map(rate)), target: 'record', met: null },
        ...fanout.flatMap(({ observers, cross, single }) => [
          { benchmark: 'nodes', name: `fan-out p50, ${observers} observer(s): cross-node / single node`, ratio: percentile(cross.latencies, 50) / percentile(single.latencies, 50), target: 'record', met: null },
          { benchmark: 'nodes', name: `fan-out p99, ${observers} observer(s): cross-node / single node`, ratio: percentile(cross.latencies, 99) / percentile(single.latencies, 99), target: 'record', met: null },
        ]),
      ]
    } finally {
      await Promise.allSettled(started.map((node) => node.stop()))
      await server.stop()
    }
  },
}
