import { openEmbeddedEngine } from '../adapters/leveldb/embeddedEngine.js'
import type { Actor } from '../core/events/actor.js'
import { ReadModels } from '../adapters/host/readModels.js'
import { auditIndex } from '../projections/audit/auditIndex.js'
import { queryAudit, type AuditFilter } from '../projections/audit/auditQuery.js'
import { MemoryReadModelStores } from '../projections/readModel/memoryStore.js'
import { fmtRatio, now, percentile, printTable, sized, withTempDir, type Benchmark, type TargetResult } from './util.js'

const ACTORS: readonly Actor[] = [
  { kind: 'mcp', principal: 'claude', connection: 'c-1' },
  { kind: 'mcp', principal: 'codex', connection: 'c-2' },
  { kind: 'peer', peer: 'console-1' },
  { kind: 'system' },
]
const DOCUMENTS = 200
const APPEND = 1_000
const QUERIES = 40
const PAGE = 100
const TARGET_MS = 100

/**
 * The audit index on a large log: `events` events (document events of 200 documents and settings, by two assistants,
 * the person and the system) appended to a fresh data directory; then, in the same run, a plain read of the whole log
 * against the index catching up on it from nothing (LevelDB store, as the data directory keeps it; and in memory), and
 * the p50 of a page (100 entries) of the queries `quire log` makes: by actor, by document, by time range.
 * QUIRE_BENCH_AUDIT_EVENTS sets the log's size (default 1,000,000; a smoke run 5,000).
 */
export const auditBenchmark: Benchmark = {
  name: 'audit',
  description: 'audit index: catch-up vs a plain read of the log; p50 of queries by actor, document, time range',
  async run(options) {
    const events = sized(options, 'QUIRE_BENCH_AUDIT_EVENTS', 1_000_000, 5_000)
    return withTempDir('audit', async (home) => {
      const engine = await openEmbeddedEngine(home)
      try {
        const started = Date.now()
        for (let done = 0; done < events; done += APPEND) {
          const count = Math.min(APPEND, events - done)
          const batch = Array.from({ length: count }, (_, i) => done + i)
          const documentEvents = batch.filter((n) => n % 3 !== 0)
          const settings = batch.filter((n) => n % 3 === 0)
          const doc = (done / APPEND) % DOCUMENTS
          const appends = [
            ...(documentEvents.length > 0 ? [{ stream: `doc:d-${doc}`, events: documentEvents.map((n) => ({ type: 'review.marked', actor: ACTORS[n % ACTORS.length]!, data: { upToPosition: n } })) }] : []),
            ...(settings.length > 0 ? [{ stream: 'settings', events: settings.map((n) => ({ type: 'setting.changed', actor: ACTORS[n % ACTORS.length]!, data: { key: 'cjkFormatting.quoteStyle', value: n % 2 === 0 ? 'corner' : 'straight' } })) }] : []),
          ]
          await (await engine.store.append(appends)).durable
        }
        const ended = Date.now()

        let t = now()
        let read = 0
        for await (const _ of engine.store.readAll(0)) read++
        const plainMs = now() - t

        t = now()
        const onDisk = await ReadModels.start(home, engine.store, [auditIndex])
        await onDisk.current('audit')
        const levelMs = now() - t
        t = now()
        const inMemory = await ReadModels.start(home, engine.store, [auditIndex], new MemoryReadModelStores())
        await inMemory.current('audit')
        const memoryMs = now() - t
        await inMemory.close()

        const store = await onDisk.current('audit')
        const pick = (n: number) => Math.floor(((n * 7_919) % 1_000) / 1_000 * events)
        const page = async (filter: AuditFilter) => {
          const t0 = now()
          let found = 0
          for await (const _ of queryAudit(store, { ...filter, limit: PAGE })) found++
          return { ms: now() - t0, found }
        }
        const timings: Record<string, number[]> = { actor: [], document: [], time: [] }
        let found = 0
        for (let n = 0; n < QUERIES; n++) {
          const after = pick(n)
          const actor = await page({ actor: n % 2 === 0 ? 'claude' : 'person', after })
          const document = await page({ docIds: [`d-${n % DOCUMENTS}`], after: pick(n + 1) })
          const from = started + ((ended - started) * pick(n)) / events
          const time = await page({ since: from, until: from + (ended - started) / 20 })
          timings.actor!.push(actor.ms)
          timings.document!.push(document.ms)
          timings.time!.push(time.ms)
          found += actor.found + document.found + time.found
        }
        await onDisk.close()

        const rate = (ms: number) => `${Math.round((read / ms) * 1_000).toLocaleString('en')} events/s`
        printTable(`audit: ${read.toLocaleString('en')} events`, ['phase', 'time', 'rate'], [
          ['plain read of the log', `${plainMs.toFixed(0)} ms`, rate(plainMs)],
          ['audit index catch-up (LevelDB)', `${levelMs.toFixed(0)} ms`, rate(levelMs)],
          ['audit index catch-up (memory)', `${memoryMs.toFixed(0)} ms`, rate(memoryMs)],
        ])
        printTable(`audit: p50 of ${QUERIES} queries, a page of ${PAGE} (${found.toLocaleString('en')} entries listed)`, ['query', 'p50', 'p95'], Object.entries(timings).map(([name, values]) => [name, `${percentile(values, 50).toFixed(2)} ms`, `${percentile(values, 95).toFixed(2)} ms`]))
        const targets: TargetResult[] = [
          ...Object.entries(timings).map(([name, values]) => ({ benchmark: 'audit', name: `query by ${name}: p50 / ${TARGET_MS} ms`, ratio: percentile(values, 50) / TARGET_MS, target: '≤ 1x', met: percentile(values, 50) <= TARGET_MS })),
          { benchmark: 'audit', name: 'catch-up (LevelDB) time / plain read time', ratio: levelMs / plainMs, target: 'recorded', met: null },
        ]
        console.log(`catch-up is ${fmtRatio(levelMs / plainMs)} a plain read's time`)
        return targets
      } finally {
        await engine.close()
      }
    })
  },
}
