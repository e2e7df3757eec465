import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { ClassicLevel } from 'classic-level'
import * as Y from 'yjs'
import { openQuire } from '../adapters/host/quire.js'
import { USER } from '../core/events/actor.js'
import { openWorkspaceAsPerson, type Caller } from '../core/workspace/commands.js'
import { fmtInt, fmtMs, fmtRatio, now, percentile, printTable, settle, sized, withTempDir, type Benchmark, type RunOptions, type TargetResult } from './util.js'

/**
 * What recording a read costs (DESIGN §4: the base of a write is in the log). `document.read` records `document.seen`
 * (one small synced append, group-committed) when the text moved since its principal last saw it through the tab, and
 * nothing when it did not. Measured in process on the core's read (FileCommands.read, what the MCP tool calls), on a
 * 10 KB document: reads with nothing changed between them, reads each after a person's keystroke (applied and durable
 * before the read is timed), and a synced put of 100 bytes in a LevelDB of its own (the floor of any durable record),
 * in alternating rounds.
 */
const ROUNDS = 3

async function run(options: RunOptions): Promise<TargetResult[]> {
  const calls = sized(options, 'QUIRE_BENCH_READ_CALLS', 400, 20)
  return withTempDir('read-record', async (root) => {
    await mkdir(join(root, 'ws'))
    const file = join(root, 'ws', 'notes.md')
    await writeFile(file, 'A paragraph of notes that the assistant reads again and again.\n\n'.repeat(160))
    const quire = await openQuire(join(root, 'home'), { watchDisk: false })
    const floor = new ClassicLevel<string, Uint8Array>(join(root, 'floor'), { valueEncoding: 'view' })
    await floor.open()
    try {
      const { services } = quire
      await openWorkspaceAsPerson(services.engine.store, services.engine.views.workspace, join(root, 'ws'), USER)
      const assistant: Caller = { actor: { kind: 'mcp', principal: 'claude', connection: 'bench' }, connection: 'bench', principal: 'claude' }
      const { tabId } = await services.files.open(file, undefined, assistant)
      const docId = services.engine.views.workspace.state.tabs.get(tabId)!.docId
      const typist = new Y.Doc()
      Y.applyUpdate(typist, Y.encodeStateAsUpdate((await services.engine.documents.get(docId))!.ydoc))
      const keystroke = async () => {
        const before = Y.encodeStateVector(typist)
        typist.getText('source').insert(0, 'x')
        const outcome = await services.engine.commands.documents.applyPeerUpdates(docId, [Y.encodeStateAsUpdate(typist, before)], { kind: 'peer', peer: 'bench' })
        await outcome.durable
      }
      const value = new Uint8Array(100)
      let key = 0
      const unchanged: number[] = []
      const moved: number[] = []
      const floorPuts: number[] = []
      const timed = async (into: number[], before: () => Promise<void>, call: () => Promise<unknown>) => {
        for (let n = 0; n < calls; n += 1) {
          await before()
          const started = now()
          await call()
          into.push(now() - started)
        }
      }
      const read = () => services.files.read(tabId, undefined, assistant)
      const nothing = async () => {}
      // Warm-up: JIT, the log's files.
      await timed([], keystroke, read)
      await timed([], nothing, read)
      for (let round = 0; round < ROUNDS; round += 1) {
        await settle()
        await timed(moved, keystroke, read)
        await settle()
        await timed(unchanged, nothing, read)
        await settle()
        await timed(floorPuts, nothing, () => floor.put(`k${key++}`, value, { sync: true }))
      }
      const p50 = (values: number[]) => percentile(values, 50)
      printTable(
        `read-record: document.read (core call) of a 10 KB document, ${fmtInt(calls * ROUNDS)} calls each`,
        ['run', 'p50', 'p99', 'p50 ratio to unchanged'],
        [
          ['read, nothing changed since the last read (records nothing)', fmtMs(p50(unchanged)), fmtMs(percentile(unchanged, 99)), fmtRatio(1)],
          ['read after a keystroke (records document.seen, synced)', fmtMs(p50(moved)), fmtMs(percentile(moved, 99)), fmtRatio(p50(moved) / p50(unchanged))],
          ['floor: one synced 100-byte LevelDB put', fmtMs(p50(floorPuts)), fmtMs(percentile(floorPuts, 99)), fmtRatio(p50(floorPuts) / p50(unchanged))],
        ],
      )
      const overFloor = p50(moved) / (p50(unchanged) + p50(floorPuts))
      return [
        { benchmark: 'read-record', name: 'for context: read that records p50 / read that records nothing p50', ratio: p50(moved) / p50(unchanged), target: 'none', met: null },
        { benchmark: 'read-record', name: 'read that records p50 / (read that records nothing + one synced put) p50', ratio: overFloor, target: '≤ 1.5x', met: overFloor <= 1.5 },
      ]
    } finally {
      await floor.close()
      await quire.close()
    }
  })
}

export const readRecordBenchmark: Benchmark = {
  name: 'read-record',
  description: 'document.read (core call, 10 KB) when it records what its reader saw vs when it records nothing, and a synced put',
  run,
}
