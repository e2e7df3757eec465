import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { defineEvent, EventRegistry } from '../../core/events/schema.js'
import { DataDirLockedError, ExpectedVersionConflictError, InvalidAppendError } from '../../core/log/errors.js'
import type { RecordedEvent } from '../../core/log/eventLog.js'
import { EventStore } from '../../adapters/leveldb/eventStore.js'
import { NO_CONCURRENCY_CHECK, STREAM_DOES_NOT_EXIST, STREAM_EXISTS } from '../../core/log/expectedVersion.js'
import { useTempHomes } from '../support/tempHome.js'

const newHome = useTempHomes()

const Noted = defineEvent({ type: 'noted', version: 1, schema: z.object({ n: z.number() }) })
const registry = () => new EventRegistry([Noted])
const noted = (n: number) => ({ type: 'noted', data: { n }, actor: { kind: 'system' as const } })
const open = async (home: string, reg = registry()) => EventStore.open(home, { registry: reg, now: () => 1_700_000_000_000 })

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = []
  for await (const item of iterable) items.push(item)
  return items
}

describe('EventStore', () => {
  it('appends with gap-free global positions and 1-based stream versions', async () => {
    const store = await open(await newHome())
    const a = await store.appendToStream('a', [noted(1), noted(2)])
    const b = await store.appendToStream('b', [noted(3)])
    expect(a.events.map((event) => [event.position, event.streamVersion])).toEqual([[1, 1], [2, 2]])
    expect(a.createdNewStream).toBe(true)
    expect(b.lastEventGlobalPosition).toBe(3)
    const all = await collect(store.readAll())
    expect(all.map((event) => event.data)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }])
    expect(all[0]).toMatchObject({ stream: 'a', type: 'noted', v: 1, actor: { kind: 'system' }, at: 1_700_000_000_000 })
    await store.close()
  })

  it('honours expected versions and the Emmett sentinels', async () => {
    const store = await open(await newHome())
    await expect(store.appendToStream('s', [noted(1)], { expectedStreamVersion: STREAM_EXISTS })).rejects.toBeInstanceOf(ExpectedVersionConflictError)
    await store.appendToStream('s', [noted(1)], { expectedStreamVersion: STREAM_DOES_NOT_EXIST })
    await expect(store.appendToStream('s', [noted(2)], { expectedStreamVersion: STREAM_DOES_NOT_EXIST })).rejects.toMatchObject({ code: 'VERSION_CONFLICT', actual: 1 })
    await store.appendToStream('s', [noted(2)], { expectedStreamVersion: 1 })
    await expect(store.appendToStream('s', [noted(3)], { expectedStreamVersion: 1 })).rejects.toBeInstanceOf(ExpectedVersionConflictError)
    await store.appendToStream('s', [noted(3)], { expectedStreamVersion: STREAM_EXISTS })
    await store.appendToStream('s', [noted(4)], { expectedStreamVersion: NO_CONCURRENCY_CHECK })
    expect((await store.streamHead('s')).version).toBe(4)
    // A refused append leaves no trace.
    expect((await collect(store.readAll())).length).toBe(4)
    await store.close()
  })

  it('refuses what can never be valid', async () => {
    const store = await open(await newHome())
    await expect(store.appendToStream('', [noted(1)])).rejects.toBeInstanceOf(InvalidAppendError)
    await expect(store.appendToStream('a\u0000b', [noted(1)])).rejects.toBeInstanceOf(InvalidAppendError)
    await expect(store.appendToStream('a', [])).rejects.toBeInstanceOf(InvalidAppendError)
    await expect(store.appendToStream('a', [{ type: 'nope', data: {}, actor: { kind: 'user' } }])).rejects.toThrow(/unknown event type/)
    await expect(store.appendToStream('a', [{ type: 'noted', data: { n: 'x' }, actor: { kind: 'user' } }])).rejects.toThrow(/invalid noted payload/)
    expect(store.headPosition).toBe(0)
    await store.close()
  })

  it('reads stream ranges across chunks, including events not yet on disk', async () => {
    const store = await open(await newHome())
    await store.appendToStream('s', [noted(1), noted(2), noted(3)])
    await store.appendToStream('other', [noted(99)])
    await store.appendToStream('s', [noted(4), noted(5)])
    const pending = store.enqueue('s', [noted(6)])
    const versions = async (from?: number, to?: number) =>
      (await collect(store.readStream('s', { fromVersion: from, toVersion: to }))).map((event) => (event.data as { n: number }).n)
    expect(await versions()).toEqual([1, 2, 3, 4, 5, 6])
    expect(await versions(2, 4)).toEqual([2, 3, 4])
    expect(await versions(5)).toEqual([5, 6])
    expect(await versions(7)).toEqual([])
    await pending.durable
    expect((await collect(store.readAll(3, { to: 5 }))).map((event) => event.position)).toEqual([4, 5])
    expect((await store.readEvent(2))?.data).toEqual({ n: 2 })
    await store.close()
  })

  it('reopens with the same head, heads and events', async () => {
    const home = await newHome()
    const store = await open(home)
    await store.appendToStream('s', [noted(1), noted(2)])
    await store.appendToStream('t', [noted(3)])
    await store.close()
    const again = await open(home)
    expect(again.headPosition).toBe(3)
    expect(await again.streamHead('s')).toEqual({ version: 2, position: 2 })
    const appended = await again.appendToStream('s', [noted(4)], { expectedStreamVersion: 2 })
    expect(appended.events[0]!.position).toBe(4)
    expect((await collect(again.streams())).map(({ stream }) => stream).sort()).toEqual(['s', 't'])
    await again.close()
  })

  it('delivers catch-up then the live tail to subscribers, in order, without gaps or repeats', async () => {
    const store = await open(await newHome())
    for (let i = 1; i <= 5; i++) await store.appendToStream('s', [noted(i)])
    const seen: number[] = []
    let resolveDone!: () => void
    const done = new Promise<void>((resolve) => (resolveDone = resolve))
    const unsubscribe = store.subscribe(2, (event: RecordedEvent) => {
      seen.push(event.position)
      if (event.position === 12) resolveDone()
    })
    // Appends racing the catch-up read.
    await Promise.all(Array.from({ length: 7 }, (_, i) => store.appendToStream(`r${i}`, [noted(i)])))
    await done
    unsubscribe()
    expect(seen).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
    await store.close()
  })

  it('upcasts old payloads, and a registry older than what the log holds is refused on open (issue 24 item 9)', async () => {
    const home = await newHome()
    const v1 = await open(home)
    await v1.appendToStream('s', [noted(21)])
    await v1.close()
    const NotedV2 = defineEvent({
      type: 'noted',
      version: 2,
      schema: z.object({ n: z.number(), label: z.string() }),
      upcasters: { 1: (data) => ({ ...(data as { n: number }), label: 'from v1' }) },
    })
    const v2 = await open(home, new EventRegistry([NotedV2]))
    expect((await collect(v2.readAll()))[0]).toMatchObject({ v: 1, data: { n: 21, label: 'from v1' } })
    await v2.appendToStream('s', [{ type: 'noted', data: { n: 22, label: 'new' }, actor: { kind: 'user' } }])
    await v2.close()
    await expect(open(home)).rejects.toMatchObject({ code: 'LOG_TOO_NEW', message: expect.stringMatching(/noted v2 .*newer Quire/) })
    const again = await open(home, new EventRegistry([NotedV2]))
    expect((await collect(again.readAll())).map((event) => event.data)).toEqual([{ n: 21, label: 'from v1' }, { n: 22, label: 'new' }])
    expect(again.quarantinedRecords()).toEqual([])
    await again.close()
  })

  it('refuses a second opener of the same data directory with a clear error', async () => {
    const home = await newHome()
    const store = await open(home)
    const error = await open(home).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(DataDirLockedError)
    expect((error as Error).message).toContain(home)
    expect((error as Error).message).toContain(`pid ${process.pid}`)
    await store.close()
    await (await open(home)).close()
  })

  it('keeps retrying a failing disk and acks only once the batch lands', async () => {
    let failuresLeft = 3
    const store = await EventStore.open(await newHome(), {
      registry: registry(),
      interceptWrite: async (write) => {
        if (failuresLeft-- > 0) throw new Error('EIO')
        await write()
      },
    })
    let acked = false
    const append = store.appendToStream('s', [noted(1)]).then(() => (acked = true))
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(acked).toBe(false)
    expect(store.failing).toBeInstanceOf(Error)
    await append
    expect(store.durableHeadPosition).toBe(1)
    await store.close()
  })
})
