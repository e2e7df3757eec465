import type { EventLog } from '../../core/log/eventLog.js'
import { FoldBatch } from './foldBatch.js'
import type { ReadModel } from './readModel.js'
import type { ReadModelRunner } from './runner.js'
import { CHECKPOINT_KEY, FORMAT_KEY } from './runner.js'
import { encodeJson, type ReadModelStore, type ScratchStore } from './store.js'

const BATCH_EVENTS = 2_000

/** Folds the log's events up to `to` into an empty `store`, as a rebuild would. */
export async function foldLog(model: ReadModel, log: Pick<EventLog, 'readAll'>, store: ReadModelStore, to: number): Promise<void> {
  await store.clear()
  const batch = new FoldBatch(store)
  let pending = 0
  let folded = 0
  for await (const event of log.readAll(0, { to })) {
    await model.fold(event, batch)
    folded = event.position
    if (++pending >= BATCH_EVENTS) {
      await batch.commit()
      pending = 0
    }
  }
  await batch.commit(new Map([[CHECKPOINT_KEY, encodeJson(folded)], [FORMAT_KEY, encodeJson(model.format)]]))
}

export interface ModelVerification {
  readonly name: string
  readonly checkpoint: number
  readonly entries: number
  /** The first differences found (key by key), empty when the live store equals a fresh rebuild. */
  readonly differences: readonly string[]
}

const MAX_DIFFERENCES = 10

/**
 * Folds the model afresh into a scratch store up to the live one's checkpoint and compares the two entry by entry,
 * the live model holding still meanwhile.
 */
export async function verifyModel(runner: ReadModelRunner, live: ReadModelStore, scratch: ScratchStore, log: Pick<EventLog, 'readAll'>): Promise<ModelVerification> {
  try {
    return await runner.exclusive(async (checkpoint) => {
      await foldLog(runner.model, log, scratch, checkpoint)
      const differences: string[] = []
      let entries = 0
      const liveEntries = live.entries({})[Symbol.asyncIterator]()
      const rebuiltEntries = scratch.entries({})[Symbol.asyncIterator]()
      let a = await liveEntries.next()
      let b = await rebuiltEntries.next()
      const shown = (value: Uint8Array) => Buffer.from(value).toString('utf8').slice(0, 120)
      while ((!a.done || !b.done) && differences.length < MAX_DIFFERENCES) {
        entries++
        if (b.done || (!a.done && a.value[0] < b.value[0])) {
          differences.push(`${a.value![0]} is live but not in the rebuild`)
          a = await liveEntries.next()
        } else if (a.done || b.value[0] < a.value[0]) {
          differences.push(`${b.value[0]} is in the rebuild but not live`)
          b = await rebuiltEntries.next()
        } else {
          if (Buffer.compare(a.value[1], b.value[1]) !== 0) differences.push(`${a.value[0]}: live ${shown(a.value[1])}, rebuilt ${shown(b.value[1])}`)
          a = await liveEntries.next()
          b = await rebuiltEntries.next()
        }
      }
      return { name: runner.model.name, checkpoint, entries, differences }
    })
  } finally {
    await scratch.drop()
  }
}
