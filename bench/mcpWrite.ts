import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { ClassicLevel } from 'classic-level'
import { durableWrite, floorKey, floorWrite } from './floorWrite.js'
import {
  cpuPerOp, describeEdit, EDIT_KINDS, launchProtocolFloorStdio, launchQuireStdio, MarkdownText, p50, p99, pooled, REVIEW_BACKLOG_NOTE,
  timeLoop, type EditKind, type McpConnection, type Series,
} from './mcpSupport.js'
import { fmtInt, fmtMs, fmtRate, fmtRatio, printTable, settle, sized, withTempDir, type Benchmark, type RunOptions, type TargetResult } from './util.js'

/**
 * `document.write` round trip through the MCP SDK client over stdio (`quire mcp --workspace DIR`, embedded core) on a
 * 10 KB Markdown file opened with workspace.open, each call with `expected_revision` and the default `save: true`,
 * so every answer is durable and saved; against the raw floor of the same durability measured in the same run: an
 * atomic file write (temp file in the same directory, write, fsync, rename, fsync the directory) plus one synced
 * classic-level put, of the same size, one after the other. The floor runs before and after the writes, pooled.
 *
 * Beside it, the protocol floor, also before and after the writes and pooled: the same floor's work done by a minimal
 * MCP server (bench/mcpFloorServer.ts: the SDK's McpServer and StdioServerTransport, one zod-strict tool) in a child
 * process launched as Quire's is, called the way Quire's writes are (the whole 10 KB text per call). What any MCP
 * server with this durability pays on this machine; issue 16 asks for the limit that stops a target in the same run.
 * And the same server's second tool doing Quire's durability sequence (the one "durability alone" does with raw
 * calls), called the same way: the least any MCP server that waits for what a saved document.write waits for pays,
 * the measured limit for the 2x target. Both run in one server process, mirrored around the writes (floor, protocol
 * floor, protocol + durability before; protocol + durability, protocol floor, floor after).
 *
 * What a write pays beyond that floor is the protocol (JSON-RPC over a pipe, schema validation), the minimal diff and
 * the Yjs transaction, and two more synced appends: a write is journaled (synced), applied (synced), saved
 * atomically (two fsyncs) and recorded as saved (synced). Three kinds of change are measured, since the diff's cost
 * depends on what changed (see describeEdit).
 *
 * Every document takes hundreds of writes and nobody reviews them, so the data directory's review backlog limit is
 * raised before the server starts (see BENCH_REVIEW_BACKLOG_LIMIT).
 */

interface Sizes {
  readonly phaseMs: number
  readonly floorMs: number
  readonly warmupMs: number
  readonly minCalls: number
}

function sizesFor(options: RunOptions): Sizes {
  const phaseMs = sized(options, 'QUIRE_BENCH_MCP_MS', 3_000, 200)
  return { phaseMs, floorMs: Math.round(phaseMs * 0.67), warmupMs: sized(options, undefined, 400, 100), minCalls: sized(options, undefined, 10, 3) }
}

const SIZE = 10 * 1024
/** Issue 16: p50 within 2x the floor for an edit or a paragraph, 2.5x for a whole new text. */
const TARGETS: Readonly<Record<EditKind, number>> = { edit: 2, paragraph: 2, 'new-text': 2.5 }
/** Issue 16: the server's CPU per write within 2x the floor's own CPU per call. */
const CPU_TARGET = 2

/** The floor: one synced LevelDB put and one atomic fsync'd file write of the same bytes, as a durable save needs. */
function floorLoop(label: string, ms: number, minCalls: number, db: ClassicLevel<string, Uint8Array>, path: string, text: MarkdownText, counter: { n: number }): Promise<Series> {
  return timeLoop(label, ms, minCalls, undefined, async () => {
    const bytes = Buffer.from(text.change('paragraph'), 'utf8')
    await floorWrite(db, floorKey(counter.n++), path, bytes)
  })
}

/** The protocol floor: the floor's work as one MCP tool call, the whole text sent as Quire's writes send it. */
function protocolFloorLoop(label: string, ms: number, minCalls: number, server: McpConnection, text: MarkdownText, written: { path: string }): Promise<Series> {
  return timeLoop(label, ms, minCalls, server.pid, async () => {
    const content = text.change('edit')
    const answer = await server.call('floor_write', { content })
    if (answer.durable !== true || answer.bytes !== Buffer.byteLength(content, 'utf8')) {
      throw new Error(`floor_write did not answer durable with the bytes sent: ${JSON.stringify(answer)}`)
    }
    written.path = answer.path as string
  })
}

/**
 * What a saved document.write waits for on the disk, done with raw calls in this process: its synced appends in their
 * order (the journal entry holding the text, the applied change, the save's record) around the same atomic file
 * write. No CPU of Quire's in it: its ratio to the floor is the most a write can come down to on this disk, with the
 * journal semantics as they are (JRNL.1: the entry is on disk before the document changes; the change is on disk
 * before the answer says durable; the file is on disk before its record says so).
 */
function durabilityLoop(label: string, ms: number, minCalls: number, db: ClassicLevel<string, Uint8Array>, path: string, text: MarkdownText, counter: { n: number }): Promise<Series> {
  return timeLoop(label, ms, minCalls, undefined, async () => {
    await durableWrite(db, counter, path, Buffer.from(text.change('paragraph'), 'utf8'))
  })
}

/**
 * Protocol + Quire's durability: durabilityLoop's work (the same durableWrite) as the minimal MCP server's
 * `durable_write`, called as Quire's writes are (the whole text per call). Quire's write minus the editor.
 */
function protocolDurableLoop(label: string, ms: number, minCalls: number, server: McpConnection, text: MarkdownText, written: { path: string }): Promise<Series> {
  return timeLoop(label, ms, minCalls, server.pid, async () => {
    const content = text.change('edit')
    const answer = await server.call('durable_write', { content })
    if (answer.durable !== true || answer.bytes !== Buffer.byteLength(content, 'utf8')) {
      throw new Error(`durable_write did not answer durable with the bytes sent: ${JSON.stringify(answer)}`)
    }
    written.path = answer.path as string
  })
}

interface Document {
  readonly kind: EditKind
  readonly path: string
  readonly tabId: string
  readonly text: MarkdownText
  revision: string
}

async function writeLoop(label: string, ms: number, minCalls: number, quire: McpConnection, document: Document): Promise<Series> {
  return timeLoop(label, ms, minCalls, quire.pid, async () => {
    const content = document.text.change(document.kind)
    const answer = await quire.call('document', { action: 'write', tabId: document.tabId, content, expected_revision: document.revision })
    if (answer.applied !== true || answer.durable !== true || answer.saved !== true || answer.journaled !== 'yes') {
      throw new Error(`document.write did not answer applied, durable, saved and journaled: ${JSON.stringify(answer)}`)
    }
    document.revision = answer.revision as string
  })
}

async function run(options: RunOptions): Promise<TargetResult[]> {
  const { phaseMs, floorMs, warmupMs, minCalls } = sizesFor(options)
  console.log(`a ${fmtInt(SIZE)}-byte Markdown file; writes ${phaseMs} ms per kind (at least ${minCalls} calls), floor ${floorMs} ms before and after`)
  console.log(REVIEW_BACKLOG_NOTE)
  return withTempDir('mcp-write', async (root) => {
    const workspace = join(root, 'workspace')
    const floorDir = join(root, 'floor')
    await mkdir(workspace)
    await mkdir(floorDir)
    const documents: Document[] = []
    for (const [index, kind] of EDIT_KINDS.entries()) {
      const text = new MarkdownText(SIZE, 11 + index)
      const path = join(workspace, `${kind}.md`)
      await writeFile(path, text.text)
      documents.push({ kind, path, tabId: '', text, revision: '' })
    }
    const db = new ClassicLevel<string, Uint8Array>(join(floorDir, 'db'), { valueEncoding: 'view' })
    await db.open()
    const floorPath = join(floorDir, 'floor.md')
    const floorText = new MarkdownText(SIZE, 7)
    await writeFile(floorPath, floorText.text)
    const protocolDir = join(root, 'protocol-floor')
    await mkdir(protocolDir)
    const protocolText = new MarkdownText(SIZE, 9)
    const protocolWritten = { path: '' }
    const durableText = new MarkdownText(SIZE, 8)
    const durableWritten = { path: '' }
    const quire = await launchQuireStdio(join(root, 'home'), workspace)
    let protocol: McpConnection | undefined
    try {
      protocol = await launchProtocolFloorStdio(protocolDir)
      const protocolServer = protocol
      await quire.client.listTools()
      await protocolServer.client.listTools()
      for (const document of documents) {
        const opened = await quire.call('workspace', { action: 'open', filePath: document.path })
        const tabId = opened.tabId as string
        const read = await quire.call('document', { action: 'read', tabId })
        Object.assign(document, { tabId, revision: read.revision as string })
      }
      const counter = { n: 0 }
      // Warm-ups: JIT on both sides, LevelDB files, the disk's write path.
      await floorLoop('warm-up', warmupMs, minCalls, db, floorPath, floorText, counter)
      await protocolFloorLoop('warm-up', warmupMs, minCalls, protocolServer, protocolText, protocolWritten)
      await protocolDurableLoop('warm-up', warmupMs, minCalls, protocolServer, durableText, durableWritten)
      for (const document of documents) await writeLoop('warm-up', warmupMs, 3, quire, document)
      await settle()

      const floorBefore = await floorLoop('floor before', floorMs, minCalls, db, floorPath, floorText, counter)
      await settle()
      const protocolBefore = await protocolFloorLoop('protocol floor before', floorMs, minCalls, protocolServer, protocolText, protocolWritten)
      await settle()
      const durableBefore = await protocolDurableLoop("protocol + Quire's durability before", floorMs, minCalls, protocolServer, durableText, durableWritten)
      await settle()
      const durability = await durabilityLoop('durability alone (raw calls)', floorMs, minCalls, db, floorPath, floorText, counter)
      await settle()
      const writes: Series[] = []
      for (const document of documents) {
        writes.push(await writeLoop(`document.write: ${document.kind}`, phaseMs, minCalls, quire, document))
        const onDisk = await readFile(document.path, 'utf8')
        if (onDisk !== document.text.text) throw new Error(`${document.path} does not hold the last text written`)
        await settle()
      }
      // The server is stopped first, so its background work (LevelDB compaction of the journaled texts) does not
      // slow the floor down.
      await quire.close()
      const durableAfter = await protocolDurableLoop("protocol + Quire's durability after", floorMs, minCalls, protocolServer, durableText, durableWritten)
      if ((await readFile(durableWritten.path, 'utf8')) !== durableText.text) throw new Error(`${durableWritten.path} does not hold the last text written`)
      await settle()
      const protocolAfter = await protocolFloorLoop('protocol floor after', floorMs, minCalls, protocolServer, protocolText, protocolWritten)
      if ((await readFile(protocolWritten.path, 'utf8')) !== protocolText.text) throw new Error(`${protocolWritten.path} does not hold the last text written`)
      // Stopped before the floor's last run for the same reason as Quire: its LevelDB compacts what it was sent.
      await protocolServer.close()
      await settle()
      const floorAfter = await floorLoop('floor after', floorMs, minCalls, db, floorPath, floorText, counter)
      const floor = pooled('floor (pooled)', [floorBefore, floorAfter])
      const floorP50 = p50(floor)
      const floorP99 = p99(floor)
      const protocolFloor = pooled('protocol floor (minimal MCP server, same durability)', [protocolBefore, protocolAfter])
      const protocolDurable = pooled("protocol + Quire's durability (minimal MCP server)", [durableBefore, durableAfter])

      const row = (series: Series, isFloor: boolean) => [
        series.label,
        fmtInt(series.latencies.length),
        fmtRate((series.latencies.length / series.milliseconds) * 1000),
        fmtMs(p50(series)),
        fmtMs(p99(series)),
        fmtRatio(p50(series) / floorP50),
        fmtRatio(p99(series) / floorP99),
        isFloor ? '-' : cpuPerOp(series.serverCpuMs, series.latencies.length),
        cpuPerOp(series.clientCpuMs, series.latencies.length),
      ]
      printTable(
        `mcp-write: document.write of ${fmtInt(SIZE)} bytes over stdio (save: true) vs the floor (synced LevelDB put + fsync'd atomic file write)`,
        ['run', 'calls', 'calls/s', 'p50', 'p99', 'p50 vs floor', 'p99 vs floor', 'server CPU/call', 'bench CPU/call'],
        [
          row(floorBefore, true), row(floorAfter, true), row(floor, true), row(durability, true),
          row(protocolBefore, false), row(protocolAfter, false), row(protocolFloor, false),
          row(durableBefore, false), row(durableAfter, false), row(protocolDurable, false),
          ...writes.map((series) => row(series, false)),
        ],
      )
      for (const kind of EDIT_KINDS) console.log(`  ${kind}: each call sends the whole ${fmtInt(SIZE)}-byte text with ${describeEdit[kind]}`)
      console.log(
        '  floor: one-at-a-time db.put(key, 10 KB, {sync: true}) on classic-level, then temp file + write + fsync + rename + ' +
          'fsync(dir), in this process\n' +
          '  document.write: one MCP call per write from this process (MCP SDK client) to `quire mcp`; it journals the text ' +
          '(synced), applies it as a minimal diff (synced), saves the file atomically (fsync file and directory) and records ' +
          'the save (synced) before answering. server CPU/call: the server process (all threads, /proc); bench CPU/call: this ' +
          'process (the MCP client, or the floor itself).\n' +
          '  durability alone: that sequence with raw calls in this process (synced put of the text, of 64 bytes, the atomic ' +
          'write, synced put of 200 bytes): the disk\'s share of a write, with no CPU of Quire\'s.\n' +
          '  protocol floor: the floor\'s work (the same put and atomic write) as the one tool of a minimal MCP server ' +
          '(the SDK\'s McpServer + StdioServerTransport, zod-strict { content }, JSON answer) in a child process, one call ' +
          'per write with the whole text: what any MCP server of this durability pays here. server CPU/call as for Quire.\n' +
          '  protocol + Quire\'s durability: the same server\'s second tool, durable_write (same input), doing durability ' +
          'alone\'s sequence (the same code), called the same way: Quire\'s write minus the editor. Both tools in one ' +
          'server process; run order mirrored around the writes: floor, protocol floor, protocol + durability, ' +
          '(durability alone), the writes, then protocol + durability, protocol floor, floor.',
      )
      const targets: TargetResult[] = writes.map((series, index) => {
        const ratio = p50(series) / floorP50
        const target = TARGETS[EDIT_KINDS[index]!]
        return {
          benchmark: 'mcp-write',
          name: `document.write p50 / floor p50 (10 KB, ${EDIT_KINDS[index]})`,
          ratio,
          target: `≤ ${target}x`,
          met: ratio <= target,
        }
      })
      // The floor's own CPU (this process, doing the floor's calls) against the server's per write.
      const floorCpu = (floor.clientCpuMs ?? Number.NaN) / floor.latencies.length
      const editCpu = (writes[0]!.serverCpuMs ?? Number.NaN) / writes[0]!.latencies.length
      targets.push({
        benchmark: 'mcp-write',
        name: 'server CPU per write / the floor\'s CPU per call (10 KB, edit)',
        ratio: editCpu / floorCpu,
        target: `≤ ${CPU_TARGET}x`,
        met: editCpu / floorCpu <= CPU_TARGET,
      })
      targets.push({
        benchmark: 'mcp-write',
        name: 'for context: durability alone (raw calls) p50 / floor p50, 10 KB',
        ratio: p50(durability) / floorP50,
        target: 'none',
        met: null,
      })
      const protocolP50 = p50(protocolFloor)
      const protocolCpu = (protocolFloor.serverCpuMs ?? Number.NaN) / protocolFloor.latencies.length
      const context = (name: string, ratio: number): TargetResult => ({ benchmark: 'mcp-write', name: `for context: ${name}`, ratio, target: 'none', met: null })
      targets.push(
        context('protocol floor (minimal MCP server) p50 / floor p50, 10 KB', protocolP50 / floorP50),
        context("protocol floor's server CPU per call / the floor's CPU per call", protocolCpu / floorCpu),
        context('document.write p50 / protocol floor p50 (10 KB, edit)', p50(writes[0]!) / protocolP50),
        context("server CPU per write / the protocol floor's server CPU per call (10 KB, edit)", editCpu / protocolCpu),
      )
      const durableP50 = p50(protocolDurable)
      const durableCpu = (protocolDurable.serverCpuMs ?? Number.NaN) / protocolDurable.latencies.length
      targets.push(
        context("protocol + Quire's durability (minimal MCP server) p50 / floor p50, 10 KB", durableP50 / floorP50),
        context("protocol + Quire's durability: server CPU per call / the floor's CPU per call", durableCpu / floorCpu),
        context("document.write p50 / protocol + Quire's durability p50 (10 KB, edit)", p50(writes[0]!) / durableP50),
        context("server CPU per write / protocol + Quire's durability's server CPU per call (10 KB, edit)", editCpu / durableCpu),
      )
      return targets
    } finally {
      await quire.close()
      await protocol?.close()
      await db.close()
    }
  })
}

export const mcpWriteBenchmark: Benchmark = {
  name: 'mcp-write',
  description: 'document.write round trip over stdio MCP (10 KB, saved; review limit raised) vs an fsync\'d atomic file write + synced LevelDB put',
  run,
}
