import { join } from 'node:path'
import { ClassicLevel } from 'classic-level'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import type { Engine } from '../../core/engine.js'
import { openEmbeddedEngine } from '../../adapters/leveldb/embeddedEngine.js'
import { USER } from '../../core/events/actor.js'
import { eventKey, positionOfEventKey, EVENTS_END } from '../../adapters/leveldb/keys.js'
import { decodeChunk, encodeChunk, type StoredEvent } from '../../core/log/record.js'
import { runCli, type CliResult } from '../support/cli.js'
import { withRawLog } from '../support/storedLog.js'
import { useTempHomes } from '../support/tempHome.js'

/**
 * Bad input on disk: records and chunks damaged behind the store's back (through LevelDB directly) must be skipped
 * and quarantined, never crash anything, and be reported by `quire verify`.
 *
 * The chunk layout (core/log/record.ts) is parsed here independently of the store's decoder:
 *   varUint count, count × (varUint length, uint32 LE CRC-32), then the records back to back.
 */

interface Frame {
  readonly lengthOffset: number
  readonly length: number
  readonly bodyOffset: number
}

function readVarUint(bytes: Uint8Array, offset: number): { value: number; next: number } {
  let value = 0
  let shift = 0
  for (;;) {
    const byte = bytes[offset++]!
    value += (byte & 0x7f) * 2 ** shift
    if (byte < 0x80) return { value, next: offset }
    shift += 7
  }
}

/** The frames of a chunk: where each record's length field is and where its body starts. */
function parseChunk(chunk: Uint8Array): Frame[] {
  let { value: count, next: offset } = readVarUint(chunk, 0)
  const header: { lengthOffset: number; length: number }[] = []
  for (let i = 0; i < count; i++) {
    const lengthOffset = offset
    const { value: length, next } = readVarUint(chunk, offset)
    header.push({ lengthOffset, length })
    offset = next + 4
  }
  const frames: Frame[] = []
  for (const { lengthOffset, length } of header) {
    frames.push({ lengthOffset, length, bodyOffset: offset })
    offset += length
  }
  if (offset !== chunk.length) throw new Error('test parser disagrees with the chunk layout')
  return frames
}

async function rawChunks(db: ClassicLevel<Uint8Array, Uint8Array>): Promise<{ first: number; chunk: Uint8Array }[]> {
  const chunks: { first: number; chunk: Uint8Array }[] = []
  for await (const [key, chunk] of db.iterator({ gte: eventKey(0), lt: EVENTS_END })) {
    chunks.push({ first: positionOfEventKey(key), chunk: chunk.slice() })
  }
  return chunks
}

/** Peer updates typed on a local Y.Doc, one per edit, so applyPeerUpdates stores them as one multi-record chunk. */
function peerEdits(ydoc: Y.Doc, edits: readonly string[]): Uint8Array[] {
  const updates: Uint8Array[] = []
  const collect = (update: Uint8Array): void => void updates.push(update)
  ydoc.on('update', collect)
  for (const edit of edits) ydoc.getText('source').insert(ydoc.getText('source').length, edit)
  ydoc.off('update', collect)
  return updates
}

interface Seeded {
  readonly docA: string
  readonly docB: string
  /** First positions of the peer-update chunks of A (5 records) and B (4 records). */
  readonly chunkA: number
  readonly chunkB: number
  readonly head: number
}

/** Two documents with writes, each with one multi-record chunk of peer edits in the middle of its history. */
async function seed(home: string): Promise<Seeded> {
  const engine = await openEmbeddedEngine(home)
  try {
    const peerChunk = async (docId: string, edits: string[]): Promise<number> => {
      const state = (await engine.documents.get(docId))!
      const peer = new Y.Doc()
      Y.applyUpdate(peer, Y.encodeStateAsUpdate(state.ydoc))
      const before = engine.store.headPosition
      const outcome = await engine.commands.documents.applyPeerUpdates(docId, peerEdits(peer, edits), { kind: 'peer', peer: 'p' })
      await outcome.durable
      expect(outcome.recorded).toBe(edits.length)
      return before + 1
    }
    const create = async (content: string): Promise<string> =>
      (await engine.commands.documents.create({ kind: 'markdown', content, path: null, title: 't', origin: 'untitled', actor: USER })).docId
    const docA = await create('alpha\n')
    await engine.commands.documents.write({ docId: docA, content: 'alpha\nbeta\n', actor: USER })
    const docB = await create('one\n')
    const chunkA = await peerChunk(docA, [' 1', ' 2', ' 3', ' 4', ' 5'])
    await engine.commands.documents.write({ docId: docB, content: 'one\ntwo\n', actor: USER })
    const chunkB = await peerChunk(docB, ['a', 'b', 'c', 'd'])
    await engine.commands.documents.write({ docId: docA, content: 'gamma\n', actor: USER })
    await engine.commands.documents.write({ docId: docB, content: 'three\n', actor: USER })
    return { docA, docB, chunkA, chunkB, head: engine.store.headPosition }
  } finally {
    await engine.close()
  }
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i)
const loggedPositions = (result: CliResult): number[] =>
  result.stdout.split('\n').filter(Boolean).map((line) => Number.parseInt(line.trim().split(/\s+/)[0]!, 10))

async function readPositions(engine: Engine): Promise<number[]> {
  const positions: number[] = []
  for await (const event of engine.store.readAll(0)) positions.push(event.position)
  return positions
}

const newHome = useTempHomes()

describe('damaged records on disk', () => {
  it('skips and quarantines a record whose body bytes were flipped, keeping the other records of its chunk', async () => {
    const home = await newHome()
    const seeded = await seed(home)
    const damaged = seeded.chunkA + 2

    const damagedBytes = await withRawLog(home, async (db) => {
      const chunk = (await db.get(eventKey(seeded.chunkA)))!
      const frames = parseChunk(chunk)
      expect(frames).toHaveLength(5)
      const body = frames[2]!
      // Flip bytes in the middle of the third record's body; its length and checksum fields stay as they were.
      const middle = body.bodyOffset + Math.floor(body.length / 2)
      chunk[middle]! ^= 0xff
      chunk[middle + 1]! ^= 0x5a
      await db.put(eventKey(seeded.chunkA), chunk)
      return body.length
    })

    // The first to meet the damage is the CLI: `log` skips the record, prints the rest and succeeds.
    const logged = await runCli(['log'], { home })
    expect({ code: logged.code, stderr: logged.stderr }).toEqual({ code: 0, stderr: '' })
    expect(loggedPositions(logged)).toEqual(range(1, seeded.head).filter((position) => position !== damaged))

    // The quarantine note it wrote is on disk: the next process reports it before reading any event.
    const status = await runCli(['status'], { home })
    expect(status.code).toBe(0)
    expect(status.stdout).toContain('quarantined records: 1')

    const engine = await openEmbeddedEngine(home)
    try {
      expect(engine.store.quarantinedRecords()).toEqual([{ position: damaged, reason: 'checksum mismatch', bytes: damagedBytes }])
      expect(engine.store.headPosition).toBe(seeded.head)
      expect(await readPositions(engine)).toEqual(range(1, seeded.head).filter((position) => position !== damaged))
      expect(engine.store.quarantinedRecords().map((record) => record.position)).toEqual([damaged])
      // The rest of the chunk reads normally, one by one too.
      for (const position of [seeded.chunkA, seeded.chunkA + 1, seeded.chunkA + 3, seeded.chunkA + 4]) {
        expect((await engine.store.readEvent(position))?.stream).toBe(`doc:${seeded.docA}`)
      }
      expect(await engine.store.readEvent(damaged)).toBeUndefined()
      const versions: number[] = []
      for await (const event of engine.store.readStream(`doc:${seeded.docA}`)) versions.push(event.streamVersion)
      // created, journal, change, five peer edits (versions 4..8, the third damaged), journal, change
      expect(versions).toEqual([1, 2, 3, 4, 5, 7, 8, 9, 10])
      // Documents still load from what is left.
      expect((await engine.documents.get(seeded.docA))?.content).toBeTypeOf('string')
      const integrity = await engine.store.checkIntegrity()
      expect(integrity.problems).toContain(`record at position ${damaged} is damaged: checksum mismatch`)
      expect(integrity.quarantined.map((record) => record.position)).toEqual([damaged])
    } finally {
      await engine.close()
    }

    const verified = await runCli(['verify'], { home })
    expect(verified.code).toBe(1)
    expect(verified.stdout).toContain(`quarantined: position ${damaged} (${damagedBytes} bytes): checksum mismatch`)
    expect(verified.stdout).toContain('FAILED')
    expect(verified.stderr).toBe('')

    for (const args of [['replay', '--doc', seeded.docA], ['replay', '--doc', seeded.docB], ['doc', 'list'], ['status']]) {
      const result = await runCli(args, { home })
      expect({ args, code: result.code, stderr: result.stderr }).toEqual({ args, code: 0, stderr: '' })
    }
    // The undamaged document is unaffected.
    expect((await runCli(['replay', '--doc', seeded.docB], { home })).stdout).toBe('three\n')
  })

  it('skips and quarantines a chunk whose framing is damaged, and verify accounts for every position it held', async () => {
    const home = await newHome()
    const seeded = await seed(home)
    const lost = range(seeded.chunkB, seeded.chunkB + 3)

    await withRawLog(home, async (db) => {
      const chunk = (await db.get(eventKey(seeded.chunkB)))!
      const frames = parseChunk(chunk)
      expect(frames).toHaveLength(4)
      // The second record's length grows by one: the lengths no longer add up to the chunk.
      const field = frames[1]!.lengthOffset
      expect(chunk[field]! & 0x80).toBe(0)
      chunk[field]! += 1
      await db.put(eventKey(seeded.chunkB), chunk)
    })

    const engine = await openEmbeddedEngine(home)
    try {
      expect(engine.store.headPosition).toBe(seeded.head)
      expect(await readPositions(engine)).toEqual(range(1, seeded.head).filter((position) => !lost.includes(position)))
      const quarantined = engine.store.quarantinedRecords()
      expect(quarantined.map((record) => record.position)).toEqual([seeded.chunkB])
      expect(quarantined[0]!.reason).toMatch(/lengths do not add up/)
      // Stream reads skip the chunk as well; the other document is untouched.
      const versionsOfB: number[] = []
      for await (const event of engine.store.readStream(`doc:${seeded.docB}`)) versionsOfB.push(event.streamVersion)
      // created, journal, change, (four peer edits, versions 4..7, lost with their chunk), journal, change
      expect(versionsOfB).toEqual([1, 2, 3, 8, 9])
      expect((await engine.documents.get(seeded.docA))?.content).toBe('gamma\n')
    } finally {
      await engine.close()
    }

    const reopened = await openEmbeddedEngine(home)
    try {
      expect(reopened.store.quarantinedRecords().map((record) => record.position)).toEqual([seeded.chunkB])
      // Appending after the damage still works and continues after the head.
      await reopened.commands.documents.write({ docId: seeded.docA, content: 'delta\n', actor: USER })
      expect(reopened.store.headPosition).toBe(seeded.head + 2)
    } finally {
      await reopened.close()
    }

    const verified = await runCli(['verify'], { home })
    expect(verified.code).toBe(1)
    expect(verified.stderr).toBe('')
    expect(verified.stdout).toContain(`quarantined: position ${seeded.chunkB} `)
    expect(verified.stdout).toContain(`chunk at position ${seeded.chunkB} is damaged`)
    // The positions after the first one in the damaged chunk are not silently gone: verify names them.
    expect(verified.stdout).toContain(`positions ${seeded.chunkB + 1}..${seeded.chunkB + 3} are missing`)

    const logged = await runCli(['log', '--json'], { home })
    expect({ code: logged.code, stderr: logged.stderr }).toEqual({ code: 0, stderr: '' })
    const positions = logged.stdout.split('\n').filter(Boolean).map((line) => (JSON.parse(line) as { position: number }).position)
    expect(positions).toEqual(range(1, seeded.head + 2).filter((position) => !lost.includes(position)))

    const replayed = await runCli(['replay', '--doc', seeded.docA], { home })
    expect({ code: replayed.code, stdout: replayed.stdout, stderr: replayed.stderr }).toEqual({ code: 0, stdout: 'delta\n', stderr: '' })
  })
  it('quarantines well-framed records whose payload fails its schema or comes from a newer schema version', async () => {
    const home = await newHome()
    const seeded = await seed(home)
    // Position 2 is docA's first journal entry, position 10 docB's: rewrite each with a valid checksum.
    const rewrite = async (db: ClassicLevel<Uint8Array, Uint8Array>, position: number, change: (event: StoredEvent) => StoredEvent) => {
      const [entry] = decodeChunk((await db.get(eventKey(position)))!)
      if (!entry || !('event' in entry) || entry.event.type !== 'journal.recorded') throw new Error(`position ${position} is not a journal entry`)
      await db.put(eventKey(position), encodeChunk([change(entry.event)]))
    }
    await withRawLog(home, async (db) => {
      await rewrite(db, 2, (event) => ({ ...event, data: { ...(event.data as object), text: 42 } }))
      await rewrite(db, 10, (event) => ({ ...event, v: 99 }))
    })

    const engine = await openEmbeddedEngine(home)
    try {
      expect(await readPositions(engine)).toEqual(range(1, seeded.head).filter((position) => position !== 2 && position !== 10))
      const quarantined = engine.store.quarantinedRecords()
      expect(quarantined.map((record) => record.position)).toEqual([2, 10])
      expect(quarantined[0]!.reason).toMatch(/invalid journal\.recorded v2 payload/)
      expect(quarantined[1]!.reason).toMatch(/v99 was written by a newer Quire/)
    } finally {
      await engine.close()
    }

    const verified = await runCli(['verify'], { home })
    expect({ code: verified.code, stderr: verified.stderr }).toEqual({ code: 1, stderr: '' })
    expect(verified.stdout).toContain('quarantined: position 2 ')
    expect(verified.stdout).toContain('quarantined: position 10 ')
    const logged = await runCli(['log', '--stream', `doc:${seeded.docA}`], { home })
    expect({ code: logged.code, stderr: logged.stderr }).toEqual({ code: 0, stderr: '' })
    expect(loggedPositions(logged)).toEqual([1, 3, 5, 6, 7, 8, 9, 16, 17])
    // Journal entries do not change content, so both documents still replay to their last writes.
    expect((await runCli(['replay', '--doc', seeded.docA], { home })).stdout).toBe('gamma\n')
    expect((await runCli(['replay', '--doc', seeded.docB], { home })).stdout).toBe('three\n')
  })
})

describe('damage to the last chunk of the log', () => {
  // Regression: EventStore.open used to take the head from the last chunk's record count unchecked, so one flipped
  // bit there moved the head by 64 positions. The stream heads, written in the same atomic batch, say where it ends.
  it('a flipped bit in the last chunk\'s record count does not move the head: the next append follows the real last position', async () => {
    const home = await newHome()
    const seeded = await seed(home)
    await withRawLog(home, async (db) => {
      const chunk = (await db.get(eventKey(seeded.head)))!
      expect(parseChunk(chunk)).toHaveLength(1)
      expect(chunk[0]).toBe(1)
      chunk[0]! ^= 0x40 // the count now reads 65
      await db.put(eventKey(seeded.head), chunk)
    })

    const engine = await openEmbeddedEngine(home)
    try {
      expect(engine.store.headPosition).toBe(seeded.head)
      await engine.commands.documents.write({ docId: seeded.docA, content: 'delta\n', actor: USER })
      expect(engine.store.headPosition).toBe(seeded.head + 2)
      const integrity = await engine.store.checkIntegrity()
      // The damaged record is reported; no positions that never existed are.
      expect(integrity.problems.filter((problem) => problem.includes('missing'))).toEqual([])
    } finally {
      await engine.close()
    }
  })
})
