import { describe, expect, it } from 'vitest'
import { JournalWriteError } from '../../core/log/errors.js'
import { GroupCommitter, type BatchOperation, type PendingAppend } from '../../core/log/groupCommit.js'

const op = (n: number): BatchOperation => ({ type: 'put', key: Uint8Array.of(n), value: Uint8Array.of(n) })
/** One append of one operation at position `n`, settling `resolve` / `reject`. */
const append = (n: number, resolve: () => void, reject: (error: unknown) => void = () => {}): PendingAppend => ({
  operations: [op(n)],
  firstPosition: n,
  lastPosition: n,
  resolve,
  reject,
})

describe('GroupCommitter', () => {
  it('batches appends that arrive while a write is in flight, and acks none before its write lands', async () => {
    const writes: number[][] = []
    let finishWrite: (() => void) | undefined
    const committer = new GroupCommitter(async (operations) => {
      writes.push(operations.map((operation) => operation.key[0]!))
      await new Promise<void>((resolve) => (finishWrite = resolve))
    })
    const acked: number[] = []
    const submit = (n: number) =>
      new Promise<void>((resolve) => committer.submit(append(n, resolve))).then(() => acked.push(n))
    const first = submit(1)
    await new Promise((resolve) => setImmediate(resolve))
    const rest = [2, 3, 4].map(submit)
    await Promise.resolve()
    expect(writes).toEqual([[1]])
    expect(acked).toEqual([])
    finishWrite!()
    await first
    expect(acked).toEqual([1])
    await new Promise((resolve) => setImmediate(resolve))
    expect(writes).toEqual([[1], [2, 3, 4]])
    expect(acked).toEqual([1])
    finishWrite!()
    await Promise.all(rest)
    expect(acked).toEqual([1, 2, 3, 4])
  })

  it('retries a failed batch in order and never drops or reorders an append', async () => {
    const landed: number[] = []
    let failures = 2
    const errors: unknown[] = []
    const committer = new GroupCommitter(
      async (operations) => {
        if (failures-- > 0) {
          errors.push(new Error('disk full'))
          throw errors[errors.length - 1]
        }
        landed.push(...operations.map((operation) => operation.key[0]!))
      },
      { retryDelayMs: 1 },
    )
    const all = [1, 2, 3].map(
      (n) => new Promise<void>((resolve) => committer.submit(append(n, resolve))),
    )
    await Promise.all(all)
    expect(landed).toEqual([1, 2, 3])
    expect(errors).toHaveLength(2)
    expect(committer.failing).toBeUndefined()
  })

  it('gathers appends made in the same turn into one batch', async () => {
    const sizes: number[] = []
    const committer = new GroupCommitter(async (operations) => void sizes.push(operations.length))
    await Promise.all(
      Array.from({ length: 5 }, (_, n) => new Promise<void>((resolve) => committer.submit(append(n, resolve)))),
    )
    expect(sizes).toEqual([5])
  })

  it('caps the operations per batch', async () => {
    const sizes: number[] = []
    const committer = new GroupCommitter(async (operations) => void sizes.push(operations.length), { maxOperations: 3 })
    const all = Array.from({ length: 7 }, (_, n) =>
      new Promise<void>((resolve) => committer.submit(append(n, resolve))),
    )
    await Promise.all(all)
    expect(sizes).toEqual([3, 3, 1])
  })
})

describe('GroupCommitter when the disk keeps failing', () => {
  /** A write that fails while `failing.on`, recording what landed. */
  function disk() {
    const state = { on: true, attempts: 0, landed: [] as number[] }
    const write = async (operations: BatchOperation[]) => {
      state.attempts++
      if (state.on) throw new Error('ENOSPC')
      state.landed.push(...operations.map((operation) => operation.key[0]!))
    }
    return { state, write }
  }
  const outcome = (promise: Promise<void>) =>
    promise.then(
      () => 'landed',
      (error: JournalWriteError) => `${error.reason}@${error.firstPosition}`,
    )

  it('gives up on a batch after the retry window, fails every append queued behind it, reports the first lost position before any rejection, and writes the next append', async () => {
    const { state, write } = disk()
    const events: string[] = []
    const committer = new GroupCommitter(write, {
      retryDelayMs: 1,
      retryWindowMs: 20,
      onFailed: (first) => events.push(`failed from ${first}`),
      onCommitted: (last) => events.push(`committed ${last}`),
    })
    const submit = (n: number) =>
      outcome(new Promise<void>((resolve, reject) => committer.submit(append(n, resolve, reject)))).then((result) => {
        events.push(`${n}: ${result}`)
        return result
      })
    const first = submit(1)
    // Queued while the first batch is being retried: behind it.
    while (state.attempts < 2) await new Promise((resolve) => setTimeout(resolve, 1))
    const behind = [submit(2), submit(3)]
    expect(await Promise.all([first, ...behind])).toEqual(['write-failed@1', 'behind-failed-batch@1', 'behind-failed-batch@1'])
    expect(events[0]).toBe('failed from 1')
    expect(committer.failing).toBeUndefined()
    await committer.flushed()
    state.on = false
    expect(await submit(1)).toBe('landed')
    expect(state.landed).toEqual([1])
    expect(events.at(-2)).toBe('committed 1')
  })

  it('stops retrying once closed: the failing batch fails at its next failed write and close resolves', async () => {
    const { state, write } = disk()
    const committer = new GroupCommitter(write, { retryDelayMs: 1, maxRetryDelayMs: 1, retryWindowMs: 60_000 })
    const pending = outcome(new Promise<void>((resolve, reject) => committer.submit(append(1, resolve, reject))))
    while (state.attempts < 3) await new Promise((resolve) => setTimeout(resolve, 1))
    await committer.close()
    expect(await pending).toBe('write-failed@1')
  })

  it('abandons a write that does not return: its appends and those behind fail as closed, and a late result is ignored', async () => {
    let finish!: () => void
    const committed: number[] = []
    const committer = new GroupCommitter(() => new Promise<void>((resolve) => (finish = resolve)), {
      onCommitted: (last) => committed.push(last),
    })
    const held = outcome(new Promise<void>((resolve, reject) => committer.submit(append(1, resolve, reject))))
    while (!finish) await new Promise((resolve) => setImmediate(resolve))
    const queued = outcome(new Promise<void>((resolve, reject) => committer.submit(append(2, resolve, reject))))
    committer.abandon()
    expect(await Promise.all([held, queued])).toEqual(['closed@1', 'closed@1'])
    finish()
    await committer.settled()
    await new Promise((resolve) => setImmediate(resolve))
    expect(committed).toEqual([])
  })
})
