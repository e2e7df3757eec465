/**
 * The LevelDB log on a real full filesystem (a small tmpfs): a write the disk refuses fails its callers after the
 * retry window, leaves the store ready for the next append, and once space returns the store writes again without
 * being reopened from outside; close finishes within seconds whatever the disk does, and nothing acknowledged is
 * lost. LevelDB makes a failed synced write sticky (every later write fails until the database is reopened), which
 * is what the store's own reopen is for; an injected failure cannot show that, so this test needs a real disk.
 *
 * Mounting needs root (CI runs as root). Where mounting is impossible the test fails and says so: it never skips.
 */
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { fill, mountTmpfs, unmountTmpfs } from '../support/fullDisk.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { settlesWithin } from '../../core/deadline.js'
import { defineEvent, EventRegistry } from '../../core/events/schema.js'
import { JournalWriteError } from '../../core/log/errors.js'
import type { RecordedEvent } from '../../core/log/eventLog.js'
import { EventStore } from '../../adapters/leveldb/eventStore.js'

const Blob = defineEvent({ type: 'blob', version: 1, schema: z.object({ id: z.string(), text: z.string() }) })
const registry = () => new EventRegistry([Blob])
/** Larger than a memory page, so it cannot fit in the slack of a page the log file already holds. */
const big = (id: string) => ({ type: 'blob', data: { id, text: id.repeat(Math.ceil(40_000 / id.length)) }, actor: { kind: 'system' as const } })
const small = (id: string) => ({ type: 'blob', data: { id, text: id }, actor: { kind: 'system' as const } })

async function ids(store: EventStore): Promise<string[]> {
  const found: string[] = []
  for await (const event of store.readAll()) found.push((event as RecordedEvent<'blob', { id: string }>).data.id)
  return found
}


describe('the LevelDB log on a full filesystem', () => {
  let mountPoint: string

  beforeAll(async () => {
    mountPoint = await mountTmpfs('quire-full-disk-', '8m')
  })

  afterAll(async () => {
    await unmountTmpfs(mountPoint)
  })

  it('given a full disk, when appending, then durable rejects, later appends fail too instead of hanging, reads go on, and once space is freed appends land without a restart; close is prompt and every acknowledged event replays', async () => {
    const home = join(mountPoint, 'home')
    const filler = join(mountPoint, 'filler')
    const store = await EventStore.open(home, { registry: registry(), writeRetryWindowMs: 300 })
    try {
      for (const id of ['a', 'b', 'c']) await store.appendToStream('doc:x', [small(id)])
      await store.appendToStream('doc:y', [big('d')])
      expect(await fill(filler)).toBeGreaterThan(0)

      const first = await store.append([{ stream: 'doc:x', events: [big('lost-1')] }])
      await expect(first.durable).rejects.toBeInstanceOf(JournalWriteError)
      expect(await store.streamHead('doc:x')).toEqual({ version: 3, position: 3 })
      expect(store.headPosition).toBe(4)
      // The log, the stream and the committer are ready for the next append, which fails the same way, not forever.
      const second = await store.append([{ stream: 'doc:x', events: [big('lost-2')] }, { stream: 'doc:z', events: [small('lost-3')] }])
      expect(second.streams[0]!.events[0]!.position).toBe(5)
      await expect(second.durable).rejects.toMatchObject({ code: 'JOURNAL_WRITE_FAILED', firstPosition: 5 })
      expect(await ids(store)).toEqual(['a', 'b', 'c', 'd'])

      await rm(filler)
      const after = await store.append([{ stream: 'doc:x', events: [big('e')] }])
      expect(after.streams[0]!.events[0]).toMatchObject({ position: 5, streamVersion: 4 })
      await after.durable
      await store.appendToStream('doc:z', [small('f')], { expectedStreamVersion: 0 })
      expect(await ids(store)).toEqual(['a', 'b', 'c', 'd', 'e', 'f'])
      expect((await store.checkIntegrity()).problems).toEqual([])
    } finally {
      await rm(filler, { force: true })
      // The promise of a prompt shutdown; the work itself takes milliseconds.
      expect(await settlesWithin(store.close(), 5_000)).toBe(true)
    }
    const reopened = await EventStore.open(home, { registry: registry() })
    try {
      expect(await ids(reopened)).toEqual(['a', 'b', 'c', 'd', 'e', 'f'])
      expect((await reopened.checkIntegrity()).problems).toEqual([])
    } finally {
      await reopened.close()
      await rm(home, { recursive: true, force: true })
    }
  })

  it('given a full disk and an append still being retried, when closing, then close is prompt, the append fails, and after space returns the log reopens with every acknowledged event', async () => {
    const home = join(mountPoint, 'home-closing')
    const filler = join(mountPoint, 'filler-closing')
    const store = await EventStore.open(home, { registry: registry(), writeRetryWindowMs: 60_000 })
    try {
      await store.appendToStream('doc:x', [big('kept')])
      await fill(filler)
      const pending = await store.append([{ stream: 'doc:x', events: [big('lost')] }])
      let settled = false
      pending.durable.then(
        () => (settled = true),
        () => (settled = true),
      )
      // The disk refused it at least once; it is being retried, not failed, within the retry window.
      while (store.failing === undefined) await new Promise((resolve) => setTimeout(resolve, 5))
      expect(settled).toBe(false)
      expect(await settlesWithin(store.close(), 5_000)).toBe(true)
      await expect(pending.durable).rejects.toBeInstanceOf(JournalWriteError)
    } finally {
      await rm(filler, { force: true })
      await store.close()
    }
    const reopened = await EventStore.open(home, { registry: registry() })
    try {
      expect(await ids(reopened)).toEqual(['kept'])
      expect((await reopened.checkIntegrity()).problems).toEqual([])
    } finally {
      await reopened.close()
      await rm(home, { recursive: true, force: true })
    }
  })
})
