import { describe, expect, it } from 'vitest'
import { GroupCommitter, type BatchOperation } from '../../core/log/groupCommit.js'

/**
 * How the group committer cuts batches: by the disk (a batch closes when the write before it returns and the
 * appenders it released are back), never by waiting for a timer. The disk here is a write the test lets land by
 * hand, and the clock is the test's, so every decision is the same on every run.
 */

const op = (n: number): BatchOperation => ({ type: 'put', key: Uint8Array.of(n), value: Uint8Array.of(n) })
const endOfTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

/** A committer over a disk whose writes land when `land` is called; `clock` is its clock. */
function rig() {
  const clock = { ms: 0 }
  const sizes: number[] = []
  const waiting: (() => void)[] = []
  let landed = 0
  let acked = 0
  const committer = new GroupCommitter(
    async (operations) => {
      sizes.push(operations.length)
      await new Promise<void>((resolve) => waiting.push(resolve))
      landed += operations.length
    },
    { now: () => clock.ms },
  )
  let position = 0
  const append = () =>
    new Promise<void>((resolve, reject) => {
      const n = ++position
      committer.submit({
        operations: [op(n)],
        firstPosition: n,
        lastPosition: n,
        resolve: () => {
          // No append is acked before its write has landed.
          expect(landed).toBeGreaterThanOrEqual(n)
          acked++
          resolve()
        },
        reject,
      })
    })
  /** An appender that, `rounds` times, works `workMs` on the clock and appends, waiting for each to be durable. */
  const appender = async (rounds: number, workMs: number) => {
    for (let round = 0; round < rounds; round++) {
      clock.ms += workMs
      await append()
    }
  }
  /** Lets the write in flight land after `writeMs` on the clock, then lets every continuation run. */
  const land = async (writeMs: number) => {
    while (waiting.length === 0) await endOfTurn()
    clock.ms += writeMs
    waiting.shift()!()
    await endOfTurn()
    await endOfTurn()
  }
  /** Lands writes until `done` settles. */
  const landUntil = async (done: Promise<unknown>, writeMs: number) => {
    let finished = false
    void done.then(() => (finished = true))
    while (!finished) {
      await land(writeMs)
    }
  }
  return { committer, sizes, append, appender, land, landUntil, clock, acked: () => acked }
}

describe('GroupCommitter cuts batches by the disk', () => {
  it('closes the next batch as soon as every appender the last write released is back, without waiting for the turn to end', async () => {
    const calls: boolean[] = []
    let turnEnded = false
    const committer = new GroupCommitter(async () => {
      calls.push(turnEnded)
      if (calls.length === 1) setImmediate(() => (turnEnded = true))
    })
    const append = (n: number) =>
      new Promise<void>((resolve, reject) =>
        committer.submit({ operations: [op(n)], firstPosition: n, lastPosition: n, resolve, reject }),
      )
    const appender = async (first: number) => {
      await append(first)
      await append(first + 3)
    }
    await Promise.all([appender(1), appender(2), appender(3)])
    // The second write went out from the first one's acks, before the turn they ran in was over.
    expect(calls).toEqual([false, false])
  })

  it('merges a small group queued behind a big one into one batch instead of letting the two take turns', async () => {
    const { sizes, appender, landUntil } = rig()
    const group = Promise.all([appender(3, 0), appender(3, 0), appender(3, 0)])
    await endOfTurn()
    expect(sizes).toEqual([3])
    // Arrives while the group's write is in flight: queued behind it, alone.
    const late = appender(3, 0)
    await landUntil(Promise.all([group, late]), 0)
    // Left to take turns it would go 3, 1, 3, 1, ...; it waits for the three instead, and the four share writes.
    expect(sizes).toEqual([3, 4, 4, 1])
  })

  it('keeps one batch per turn on a disk whose synced write costs more than the appenders take to come back', async () => {
    const { sizes, append, appender, land, landUntil } = rig()
    // A one-append write of 10 ms: the disk's fixed cost, measured.
    const lone = append()
    await land(10)
    await lone
    const appenders = Promise.all(Array.from({ length: 4 }, () => appender(4, 1)))
    await landUntil(appenders, 10)
    // The lone write, then one write per turn of the four.
    expect(sizes).toEqual([1, 4, 4, 4, 4])
  })

  it('does not time an append made after a pause as an appender coming back', async () => {
    const { sizes, append, appender, land, landUntil, clock } = rig()
    // A lone writer with long pauses: if the pauses counted as its JavaScript, the committer would judge that
    // taking turns pays on this slow disk.
    for (let round = 0; round < 3; round++) {
      const lone = append()
      await land(10)
      await lone
      await endOfTurn()
      clock.ms += 1_000
    }
    const appenders = Promise.all(Array.from({ length: 4 }, () => appender(4, 1)))
    await landUntil(appenders, 10)
    expect(sizes).toEqual([1, 1, 1, 4, 4, 4, 4])
  })

  it('splits the appenders into two halves taking turns when their JavaScript costs more than a synced write', async () => {
    const { sizes, append, appender, land, landUntil, acked } = rig()
    // A one-append write of 1 ms; each appender then works 1 ms per append: 4 ms per turn of four.
    const lone = append()
    await land(1)
    await lone
    const appenders = Promise.all(Array.from({ length: 4 }, () => appender(8, 1)))
    await landUntil(appenders, 1)
    // The lone write, the four together once; from then on two halves, one writing while the other works.
    expect(sizes).toEqual([1, 4, ...Array<number>(14).fill(2)])
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(33)
    expect(acked()).toBe(33)
  })
})
