import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { writeFileAtomic } from '../../adapters/fs/atomicWrite.js'
import { PathScope } from '../../adapters/fs/pathScope.js'
import { SaveQueue, saveQueueKey } from '../../adapters/fs/saveQueue.js'
import type { SaveOutcome } from '../../adapters/fs/saveQueue.js'
import { expectRefusal } from '../support/fsFixture.js'
import { gate, sleep, useFsTempDirs } from '../support/fsTemp.js'

const newDir = useFsTempDirs()

/** A workspace with `doc.md` and `link.md -> doc.md`, and `other.md`. */
async function workspace(): Promise<{ ws: string; doc: string; link: string; other: string }> {
  const ws = join(await newDir(), 'ws')
  await mkdir(ws)
  const doc = join(ws, 'doc.md')
  await writeFile(doc, 'v0\n')
  await writeFile(join(ws, 'other.md'), 'o0\n')
  await symlink(doc, join(ws, 'link.md'))
  return { ws, doc, link: join(ws, 'link.md'), other: join(ws, 'other.md') }
}

/** Counts how many jobs run at once, per label. */
function concurrency(): { run<T>(label: string, body: () => Promise<T>): Promise<T>; readonly max: Map<string, number> } {
  const now = new Map<string, number>()
  const max = new Map<string, number>()
  return {
    max,
    async run(label, body) {
      now.set(label, (now.get(label) ?? 0) + 1)
      max.set(label, Math.max(max.get(label) ?? 0, now.get(label)!))
      try {
        return await body()
      } finally {
        now.set(label, now.get(label)! - 1)
      }
    },
  }
}

describe('SAVE.1 one FIFO queue per real file', () => {
  it('SAVE.1 saves of one file run one at a time, in the order they reach the queue', async () => {
    const { doc } = await workspace()
    const queue = new SaveQueue()
    const meter = concurrency()
    const order: number[] = []
    const saves = Array.from({ length: 8 }, (_, n) =>
      queue.enqueue(doc, () =>
        meter.run('doc', async () => {
          order.push(n)
          await sleep(2)
          await writeFileAtomic(doc, `v${n}\n`)
        }),
      ),
    )
    const outcomes = await Promise.all(saves)
    expect(outcomes.every((outcome) => outcome.status === 'written')).toBe(true)
    expect(meter.max.get('doc')).toBe(1)
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7])
    expect(await readFile(doc, 'utf8')).toBe('v7\n')
  })

  it('SAVE.1 a path and a symlink to it share one queue (the key is the real path)', async () => {
    const { doc, link } = await workspace()
    expect(await saveQueueKey(link)).toBe(doc)
    const queue = new SaveQueue()
    const hold = gate()
    let secondStarted = false
    const first = queue.enqueue(link, async () => {
      await hold.promise
      await writeFileAtomic(doc, 'via link\n')
    })
    const second = queue.enqueue(doc, async () => {
      secondStarted = true
      await writeFileAtomic(doc, 'via target\n')
    })
    await sleep(30)
    expect(secondStarted).toBe(false)
    expect(await queue.busy(doc)).toBe(true)
    hold.open()
    await Promise.all([first, second])
    expect(secondStarted).toBe(true)
    expect(await readFile(doc, 'utf8')).toBe('via target\n')
    expect(await queue.busy(link)).toBe(false)
  })

  it('SAVE.1 a new file is keyed by its real parent plus name, the same key it has once it exists', async () => {
    const { ws } = await workspace()
    await symlink(ws, join(ws, '..', 'wslink'))
    const viaLink = join(ws, '..', 'wslink', 'new.md')
    expect(await saveQueueKey(viaLink)).toBe(join(ws, 'new.md'))
    await writeFile(join(ws, 'new.md'), 'now it exists\n')
    expect(await saveQueueKey(viaLink)).toBe(join(ws, 'new.md'))
  })

  it('SAVE.1 saves of different files run in parallel', async () => {
    const { doc, other } = await workspace()
    const queue = new SaveQueue()
    const hold = gate()
    const slow = queue.enqueue(doc, async () => {
      await hold.promise
      return 'doc'
    })
    // The other file's save completes while the first file's save is still held.
    const fast = await queue.enqueue(other, async () => 'other')
    expect(fast).toEqual({ status: 'written', value: 'other' })
    hold.open()
    expect(await slow).toEqual({ status: 'written', value: 'doc' })
  })

  it('SAVE.1 a failing save does not stop the queue and counts as not written', async () => {
    const { doc } = await workspace()
    const queue = new SaveQueue()
    const older = queue.issue()
    const newer = queue.issue()
    await expect(queue.enqueue(doc, async () => Promise.reject(new Error('disk full')), { ticket: newer })).rejects.toThrow('disk full')
    const outcome = await queue.enqueue(doc, async () => writeFileAtomic(doc, 'older\n'), { ticket: older })
    expect(outcome.status).toBe('written')
    expect(await readFile(doc, 'utf8')).toBe('older\n')
  })
})

describe('SAVE.3 a save overtaken by a later save of the same file writes nothing', () => {
  it('SAVE.3 a save issued earlier that reaches its turn after a later one has written is superseded', async () => {
    const { doc } = await workspace()
    const queue = new SaveQueue()
    const older = queue.issue()
    const newer = queue.issue()
    expect(await queue.enqueue(doc, async () => (await writeFileAtomic(doc, 'newer\n'), 'the newer job'), { ticket: newer })).toEqual({
      status: 'written',
      value: 'the newer job',
    })
    let ran = false
    const outcome = await queue.enqueue(
      doc,
      async () => {
        ran = true
        await writeFileAtomic(doc, 'older\n')
      },
      { ticket: older },
    )
    expect(outcome).toEqual({ status: 'superseded', supersededBy: newer })
    expect(ran).toBe(false)
    expect(await readFile(doc, 'utf8')).toBe('newer\n')
  })

  it('SAVE.3 supersession crosses a symlink and its target', async () => {
    const { doc, link } = await workspace()
    const queue = new SaveQueue()
    const older = queue.issue()
    const newer = queue.issue()
    await queue.enqueue(doc, async () => writeFileAtomic(doc, 'newer via target\n'), { ticket: newer })
    const outcome = await queue.enqueue(link, async () => writeFileAtomic(doc, 'older via link\n'), { ticket: older })
    expect(outcome.status).toBe('superseded')
    expect(await readFile(doc, 'utf8')).toBe('newer via target\n')
  })

  it('SAVE.3 racing saves queued out of issue order: the file ends with the newest issued content', async () => {
    const { doc } = await workspace()
    const queue = new SaveQueue()
    const tickets = Array.from({ length: 6 }, () => queue.issue())
    // Reach the queue in a scrambled order, as saves with slower scope checks would.
    const arrival = [3, 0, 5, 1, 4, 2]
    const outcomes: SaveOutcome<number>[] = []
    await Promise.all(
      arrival.map(async (index, position) => {
        await sleep(position * 3)
        outcomes[index] = await queue.enqueue(
          doc,
          async () => {
            await writeFileAtomic(doc, `save ${index}\n`)
            return index
          },
          { ticket: tickets[index]! },
        )
      }),
    )
    expect(await readFile(doc, 'utf8')).toBe('save 5\n')
    // 3 writes first; 0 is then older than a written save; 5 writes; everything after is older than 5.
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['superseded', 'superseded', 'superseded', 'written', 'superseded', 'written'])
  })

  it('SAVE.3 saves in issue order all write (a later save never supersedes an earlier one that went first)', async () => {
    const { doc } = await workspace()
    const queue = new SaveQueue()
    const first = queue.enqueue(doc, async () => writeFileAtomic(doc, 'first\n'))
    const second = queue.enqueue(doc, async () => writeFileAtomic(doc, 'second\n'))
    expect((await first).status).toBe('written')
    expect((await second).status).toBe('written')
  })

  it('refuses a ticket this queue never issued', async () => {
    const { doc } = await workspace()
    await expect(new SaveQueue().enqueue(doc, async () => undefined, { ticket: 7 })).rejects.toThrow(RangeError)
  })
})

describe('SCOPE.5 / SAVE.2 the scope is re-checked at the save’s queue turn', () => {
  it('SCOPE.5 the workspace closes while the save waits: INVALID_PATH at its turn, nothing written', async () => {
    const { ws, doc } = await workspace()
    let scope = await PathScope.create([ws])
    await scope.resolveInScope(doc)
    const queue = new SaveQueue()
    const hold = gate()
    const blocker = queue.enqueue(doc, async () => hold.promise)
    let ran = false
    const waiting = queue.enqueue(
      doc,
      async () => {
        ran = true
        await writeFileAtomic(doc, 'should not land\n')
      },
      { atTurn: async () => void (await scope.resolveInScope(doc)) },
    )
    scope = PathScope.empty // the workspace was closed meanwhile
    hold.open()
    await blocker
    await expectRefusal(() => waiting, 'INVALID_PATH', 'no_scope')
    expect(ran).toBe(false)
    expect(await readFile(doc, 'utf8')).toBe('v0\n')
  })

  it('SCOPE.5 atTurn sees its key and ticket, runs after the supersession check and before the job', async () => {
    const { doc } = await workspace()
    const queue = new SaveQueue()
    const steps: string[] = []
    const ticket = queue.issue()
    await queue.enqueue(doc, async (turn) => void steps.push(`job ${turn.key} ${turn.ticket}`), {
      ticket,
      atTurn: (turn) => void steps.push(`atTurn ${turn.key} ${turn.ticket}`),
    })
    expect(steps).toEqual([`atTurn ${doc} ${ticket}`, `job ${doc} ${ticket}`])
  })
})
