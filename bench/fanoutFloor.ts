import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { ClassicLevel } from 'classic-level'
import { selfCpuMs } from './mcpSupport.js'
import { now, percentile } from './util.js'

/**
 * The durability floor of one keystroke: one synced LevelDB write of one keystroke's record, paced like the typist
 * (one every 1000/rate ms), on a raw classic-level database in the same directory tree as the daemon's log. Its
 * p99 is the "+ raw synced-put p99" of the fan-out target (a keystroke may wait for its fsync, nothing else), and
 * its CPU per put is what durability alone costs the process that pays it.
 */
export interface FloorResult {
  readonly puts: number
  /** One put at a time, each timed from its start: the literal "raw synced put". */
  readonly p50: number
  readonly p99: number
  /** This process's CPU (all threads) per put, ms: the write's JavaScript, LevelDB's and the fsync's. */
  readonly cpuPerPutMs: number
  /**
   * Each put issued when its keystroke is due, whether or not the last has landed, and timed from then (LevelDB
   * queues concurrent writers into one write): what any server that waits for the disk must show, since the
   * keystrokes behind a stalled fsync wait for it too.
   */
  readonly openLoopP50: number
  readonly openLoopP99: number
}

/** About one `document.changed` record of one keystroke (header, stream, actor, a few dozen bytes of update). */
const RECORD_BYTES = 128

export async function rawSyncedPuts(dir: string, count: number, rate: number): Promise<FloorResult> {
  const db = new ClassicLevel<Uint8Array, Uint8Array>(join(dir, 'floor'), { keyEncoding: 'view', valueEncoding: 'view' })
  await db.open()
  try {
    const value = new Uint8Array(RECORD_BYTES).fill(7)
    const latencies: number[] = []
    const cpu = selfCpuMs()
    const start = now()
    for (let index = 0; index < count; index++) {
      const wait = start + (index * 1000) / rate - now()
      if (wait > 1) await sleep(wait)
      const key = Buffer.allocUnsafe(8)
      key.writeBigUInt64BE(BigInt(index + 1))
      const t0 = now()
      // The store's shape: a chained batch per synced write.
      await db.batch().put(key, value).write({ sync: true })
      latencies.push(now() - t0)
    }
    const cpuPerPutMs = (selfCpuMs() - cpu) / count
    const openLoop = await openLoopPuts(db, value, count, rate, count)
    return { puts: count, p50: percentile(latencies, 50), p99: percentile(latencies, 99), cpuPerPutMs, openLoopP50: percentile(openLoop, 50), openLoopP99: percentile(openLoop, 99) }
  } finally {
    await db.close()
  }
}

/** Latencies of `count` synced puts, each issued at its due time (not after the previous landed), from that time. */
async function openLoopPuts(db: ClassicLevel<Uint8Array, Uint8Array>, value: Uint8Array, count: number, rate: number, firstKey: number): Promise<number[]> {
  const latencies: number[] = []
  const landed: Promise<void>[] = []
  const start = now()
  for (let index = 0; index < count; index++) {
    const due = start + (index * 1000) / rate
    const wait = due - now()
    if (wait > 1) await sleep(wait)
    const key = Buffer.allocUnsafe(8)
    key.writeBigUInt64BE(BigInt(firstKey + index + 1))
    landed.push(db.batch().put(key, value).write({ sync: true }).then(() => void latencies.push(now() - due)))
  }
  await Promise.all(landed)
  return latencies
}
