import { spawn } from 'node:child_process'
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { gzipSync } from 'node:zlib'
import { openEngine } from '../../core/engine.js'
import { openEmbeddedEngine } from '../../adapters/leveldb/embeddedEngine.js'
import { ingestTrace } from '../../adapters/trace/ingestTrace.js'
import { CLI } from '../mcpSupport.js'
import { syntheticTrace } from '../trace.js'
import { fmtInt, fmtMs, fmtRatio, median, now, runChild, withTempDir, type TargetResult } from '../util.js'
import { logLogPlot, publish, tableText } from './plot.js'
import type { StartupSample } from './startupChild.js'

/**
 * Daemon start-up against the log's size. One data directory grows through the checkpoints: each step ingests the
 * same synthetic editing trace into new documents (one `document.changed` event per keystroke, snapshotted every
 * 5,000 events and when the engine closes), until the log holds the checkpoint's number of events. At each
 * checkpoint, alternating, in fresh processes:
 * - `quire serve`: from spawn until its port file appears (it listens), then stopped with SIGTERM;
 * - the engine alone: openEngine plus loading the last document (snapshot + tail), timed inside the child;
 * - the reference: a process that reads every raw record of the same LevelDB log (keys and values), spawn to exit.
 * The target: start-up at the largest log within 1.2x of start-up at the smallest.
 */

export interface StartupSizes {
  readonly traceEdits: number
  readonly checkpoints: readonly number[]
  readonly runs: number
}

interface Point {
  readonly events: number
  readonly documents: number
  readonly daemonMs: number
  readonly rawWallMs: number
  readonly rawReadMs: number
  readonly engineOpenMs: number
  readonly documentLoadMs: number
  readonly records: number
  readonly logBytes: number
  readonly daemonMinMs: number
  readonly walBytes: number
}

/** Bytes in LevelDB's write-ahead log files (`*.log`): what LevelDB replays into a memtable when it opens. */
async function walBytes(logDir: string): Promise<number> {
  let total = 0
  for (const name of await readdir(logDir)) if (name.endsWith('.log')) total += (await stat(join(logDir, name))).size
  return total
}

/** `quire serve` from spawn until it has written its port file (it writes it once it listens), then SIGTERM. */
async function daemonStartup(home: string, workspace: string): Promise<number> {
  await rm(join(home, 'port'), { force: true })
  const started = now()
  const child = spawn(process.execPath, [CLI, '--home', home, 'serve', '--workspace', workspace], { stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000)
  })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  try {
    while (true) {
      const port = await readFile(join(home, 'port'), 'utf8').catch(() => '')
      if (port.includes(':')) return now() - started
      if (child.exitCode !== null) throw new Error(`quire serve exited with ${child.exitCode}: ${stderr}`)
      if (now() - started > 60_000) throw new Error(`quire serve wrote no port file in 60 s: ${stderr}`)
      await sleep(2)
    }
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    await exited
  }
}

async function timedChild(args: readonly string[]): Promise<{ sample: StartupSample; wallMs: number }> {
  const started = now()
  const sample = await runChild<StartupSample>('scaling/startupChild.js', args)
  return { sample, wallMs: now() - started }
}

export async function startupCurve(sizes: StartupSizes, write: boolean): Promise<TargetResult[]> {
  return withTempDir('scaling-startup', async (root) => {
    const home = join(root, 'home')
    const workspace = join(root, 'workspace')
    await mkdir(workspace)
    const trace = syntheticTrace(sizes.traceEdits, 5)
    const tracePath = join(root, 'trace.json.gz')
    await writeFile(tracePath, gzipSync(JSON.stringify(trace)))
    console.log(`start-up: one data directory grown by ingesting a ${fmtInt(sizes.traceEdits)}-keystroke synthetic trace into new documents, up to ${fmtInt(sizes.checkpoints.at(-1)!)} events; ${sizes.runs} runs per checkpoint`)
    const points: Point[] = []
    let documents = 0
    let lastDocId = ''
    let generationMs = 0
    for (const checkpoint of sizes.checkpoints) {
      const generating = now()
      const engine = await openEmbeddedEngine(home)
      try {
        while (engine.store.headPosition < checkpoint) {
          const result = await ingestTrace(engine, tracePath)
          if (!result.matchesEndContent) throw new Error('the ingested document differs from the trace end content')
          lastDocId = result.docId
          documents++
        }
      } finally {
        await engine.close()
      }
      generationMs += now() - generating
      // Before the first start-up of this checkpoint: each open replays the WAL into a table, leaving a short one.
      const wal = await walBytes(join(home, 'log'))
      const daemon: number[] = []
      const rawWall: number[] = []
      const rawRead: number[] = []
      const engineOpen: number[] = []
      const documentLoad: number[] = []
      let records = 0
      let logBytes = 0
      let events = 0
      for (let run = 0; run < sizes.runs; run++) {
        // Alternating who goes first, so the page cache and the disk favour neither.
        const order = run % 2 === 0 ? ['daemon', 'engine', 'raw'] : ['raw', 'engine', 'daemon']
        for (const which of order) {
          if (which === 'daemon') daemon.push(await daemonStartup(home, workspace))
          else if (which === 'engine') {
            const { sample } = await timedChild(['engine', home, lastDocId])
            engineOpen.push(sample.openMs)
            documentLoad.push(sample.loadMs)
            events = sample.records
          } else {
            const { sample, wallMs } = await timedChild(['raw', join(home, 'log')])
            rawWall.push(wallMs)
            rawRead.push(sample.openMs)
            records = sample.records
            logBytes = sample.bytes
          }
        }
      }
      points.push({
        events, documents, daemonMs: median(daemon), rawWallMs: median(rawWall), rawReadMs: median(rawRead),
        engineOpenMs: median(engineOpen), documentLoadMs: median(documentLoad), records, logBytes,
        daemonMinMs: Math.min(...daemon), walBytes: wal,
      })
    }
    console.log(`(generating the log took ${(generationMs / 1000).toFixed(1)} s in all)`)
    const first = points[0]!
    const last = points.at(-1)!
    const table = tableText(
      ['log events', 'documents', 'LevelDB records', 'log MiB', 'WAL MiB (before 1st start)', 'quire serve start', 'fastest', 'raw read (process)', 'raw read (iteration)', 'serve / raw', 'openEngine', 'load 1 document', 'serve vs smallest'],
      points.map((point) => [
        fmtInt(point.events),
        fmtInt(point.documents),
        fmtInt(point.records),
        (point.logBytes / 1024 / 1024).toFixed(1),
        (point.walBytes / 1024 / 1024).toFixed(1),
        fmtMs(point.daemonMs),
        fmtMs(point.daemonMinMs),
        fmtMs(point.rawWallMs),
        fmtMs(point.rawReadMs),
        fmtRatio(point.daemonMs / point.rawWallMs),
        fmtMs(point.engineOpenMs),
        fmtMs(point.documentLoadMs),
        fmtRatio(point.daemonMs / first.daemonMs),
      ]),
    )
    const plot = logLogPlot(
      'quire serve start-up (*), openEngine (e) and a raw read of the whole log (o) against log size',
      'events in the log',
      'ms',
      [
        { label: 'raw read of every record (process spawn to exit)', mark: 'o', points: points.map((point) => [point.events, point.rawWallMs] as const) },
        { label: 'openEngine (in a fresh process)', mark: 'e', points: points.map((point) => [point.events, point.engineOpenMs] as const) },
        { label: 'quire serve, spawn to listening', mark: '*', points: points.map((point) => [point.events, point.daemonMs] as const) },
      ],
    )
    await publish(
      'startup',
      `scaling: start-up against log size (medians of ${sizes.runs} fresh processes per point; documents snapshotted)\n\n${table}\n\n${plot}`,
      write,
    )
    const growth = last.daemonMs / first.daemonMs
    return [
      { benchmark: 'scaling', name: `startup: quire serve at ${fmtInt(last.events)} / at ${fmtInt(first.events)} events`, ratio: growth, target: '≤ 1.2x', met: growth <= 1.2 },
      { benchmark: 'scaling', name: `startup: quire serve / raw read of the log at ${fmtInt(last.events)} events`, ratio: last.daemonMs / last.rawWallMs, target: 'none', met: null },
    ]
  })
}
