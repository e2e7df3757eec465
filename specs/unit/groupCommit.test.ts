import { describe, expect, it } from 'vitest'
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
