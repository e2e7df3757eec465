import { describe, expect, it } from 'vitest'
import { openEmbeddedEngine } from '../../adapters/leveldb/embeddedEngine.js'
import { CHAINED_LATE_KEY, CHAIN_END, chainKey, eventKey, EVENTS_END, positionOfEventKey } from '../../adapters/leveldb/keys.js'
import { USER } from '../../core/events/actor.js'
import { chunkLinks, GENESIS, lastLink } from '../../core/log/hashChain.js'
import { decodeChunk, encodeChunk, type StoredEvent } from '../../core/log/record.js'
import { runCli } from '../support/cli.js'
import { withRawLog } from '../support/storedLog.js'
import { useTempHomes } from '../support/tempHome.js'

/**
 * Tamper evidence (issue 29 item 4) on the LevelDB log: records changed, removed, swapped or inserted behind the
 * store's back through LevelDB itself, each written as a well-formed record with a valid checksum (what someone
 * editing the log on purpose would write), and `quire verify` naming the first position that no longer links. A
 * checkpoint kept elsewhere catches even a rewrite that recomputes the whole chain.
 */

const newHome = useTempHomes()

/** A document written to a few times: a log of some dozen records, one chunk per append. */
async function seed(home: string, writes = ['alpha\n', 'alpha\nbeta\n', 'gamma\n', 'gamma\ndelta\n']): Promise<number> {
  const engine = await openEmbeddedEngine(home)
  try {
    const { docId } = await engine.commands.documents.create({ kind: 'markdown', content: 'start\n', path: null, title: 't', origin: 'untitled', actor: USER })
    for (const content of writes) await engine.commands.documents.write({ docId, content, actor: USER })
    return engine.store.headPosition
  } finally {
    await engine.close()
  }
}

type Raw = Parameters<Parameters<typeof withRawLog>[1]>[0]

async function chunks(db: Raw): Promise<{ first: number; chunk: Uint8Array }[]> {
  const found: { first: number; chunk: Uint8Array }[] = []
  for await (const [key, chunk] of db.iterator({ gte: eventKey(0), lt: EVENTS_END })) found.push({ first: positionOfEventKey(key), chunk: chunk.slice() })
  return found
}

/** The chunk re-encoded with each event passed through `change`: well-formed, checksums valid. */
function rewritten(chunk: Uint8Array, change: (event: StoredEvent) => StoredEvent): Uint8Array {
  return encodeChunk(decodeChunk(chunk).map((entry) => {
    if (!('event' in entry)) throw new Error('the seeded log is not damaged')
    return change(entry.event)
  }))
}

const verify = (home: string, ...args: string[]) => runCli(['verify', ...args], { home })
const checkpointOf = (stdout: string): string => /checkpoint: (\d+:[0-9a-f]{64})/.exec(stdout)![1]!

describe('the hash chain on the LevelDB log (issue 29 item 4)', () => {
  it('an untouched log passes, and --checkpoint prints the head to keep elsewhere', async () => {
    const home = await newHome()
    const head = await seed(home)
    const result = await verify(home, '--checkpoint')
    expect(result.code, result.stdout + result.stderr).toBe(0)
    expect(result.stdout).toContain(`chain: every record up to position ${head} links to the one before it`)
    expect(checkpointOf(result.stdout)).toMatch(new RegExp(`^${head}:[0-9a-f]{64}$`))
  })

  it('a record changed under the API (re-encoded with a valid checksum, backdated) fails verify, naming its position', async () => {
    const home = await newHome()
    await seed(home)
    const changed = await withRawLog(home, async (db) => {
      const target = (await chunks(db))[3]!
      await db.put(eventKey(target.first), rewritten(target.chunk, (event) => ({ ...event, at: event.at - 86_400_000 })))
      return target.first
    })
    const result = await verify(home)
    expect(result.code).toBe(1)
    expect(result.stdout).toContain(`chain BROKEN at position ${changed}: the record at position ${changed} is not the one the chain holds`)
    expect(result.stdout).toContain('FAILED')
  })

  it('a record removed (its chunk and its links deleted) fails verify, naming the missing position', async () => {
    const home = await newHome()
    await seed(home)
    const removed = await withRawLog(home, async (db) => {
      const target = (await chunks(db))[2]!
      await db.batch([{ type: 'del', key: eventKey(target.first) }, { type: 'del', key: chainKey(target.first) }])
      return target.first
    })
    const result = await verify(home)
    expect(result.code).toBe(1)
    expect(result.stdout).toMatch(new RegExp(`chain BROKEN at position ${removed}: positions? ${removed}.* missing: removed`))
  })

  it('two records swapped (each with its links) fails verify at the first of them', async () => {
    const home = await newHome()
    await seed(home)
    const first = await withRawLog(home, async (db) => {
      const all = await chunks(db)
      // Two single-record chunks, so each fits the other's place.
      const [a, b] = all.filter(({ chunk }) => decodeChunk(chunk).length === 1).slice(1, 3) as [(typeof all)[number], (typeof all)[number]]
      const [linksA, linksB] = [(await db.get(chainKey(a.first)))!, (await db.get(chainKey(b.first)))!]
      await db.batch([
        { type: 'put', key: eventKey(a.first), value: b.chunk },
        { type: 'put', key: chainKey(a.first), value: linksB },
        { type: 'put', key: eventKey(b.first), value: a.chunk },
        { type: 'put', key: chainKey(b.first), value: linksA },
      ])
      return a.first
    })
    const result = await verify(home)
    expect(result.code).toBe(1)
    expect(result.stdout).toContain(`chain BROKEN at position ${first}: the record at position ${first} is not the one the chain holds`)
  })

  it('a record inserted (every later record moved one position on, links and all) breaks the chain at the record after it, even with the forged record linked honestly', async () => {
    const home = await newHome()
    await seed(home)
    const inserted = await withRawLog(home, async (db) => {
      const all = await chunks(db)
      const at = all.slice(2).find(({ chunk }) => decodeChunk(chunk).length === 1)!
      const later = all.filter(({ first }) => first >= at.first).reverse()
      for (const { first, chunk } of later) {
        const links = (await db.get(chainKey(first)))!
        await db.batch([
          { type: 'del', key: eventKey(first) },
          { type: 'del', key: chainKey(first) },
          { type: 'put', key: eventKey(first + 1), value: chunk },
          { type: 'put', key: chainKey(first + 1), value: links },
        ])
      }
      // The forged record, with a link computed honestly from the record before it: the chain still breaks after it.
      const previous = lastLink((await db.get(chainKey(all[all.indexOf(at) - 1]!.first)))!)
      const forged = rewritten(at.chunk, (event) => ({ ...event, at: event.at + 1 }))
      await db.batch([
        { type: 'put', key: eventKey(at.first), value: forged },
        { type: 'put', key: chainKey(at.first), value: chunkLinks(previous, at.first, forged) },
      ])
      return at.first
    })
    const result = await verify(home)
    expect(result.code).toBe(1)
    expect(result.stdout).toContain(`chain BROKEN at position ${inserted + 1}: the record at position ${inserted + 1} is not the one the chain holds`)
  })

  it('--against a checkpoint taken before a change fails even when the whole chain was recomputed after it; one taken before an honest append passes', async () => {
    const home = await newHome()
    await seed(home)
    const before = checkpointOf((await verify(home, '--checkpoint')).stdout)

    // Honest: more writes, and the log still extends the checkpoint.
    await seed(home, ['more\n'])
    const honest = await verify(home, '--against', before)
    expect(honest.code, honest.stdout).toBe(0)
    expect(honest.stdout).toContain(`against ${before}: the log still extends it`)
    const kept = checkpointOf((await verify(home, '--checkpoint')).stdout)

    // A careful forger: changes a record and recomputes every link after it, so the chain alone holds.
    await withRawLog(home, async (db) => {
      const all = await chunks(db)
      let previous = GENESIS
      for (const [index, { first, chunk }] of all.entries()) {
        const value = index === 2 ? rewritten(chunk, (event) => ({ ...event, at: event.at - 1 })) : chunk
        const links = chunkLinks(previous, first, value)
        await db.batch([
          { type: 'put', key: eventKey(first), value },
          { type: 'put', key: chainKey(first), value: links },
        ])
        previous = lastLink(links)
      }
    })
    const plain = await verify(home)
    expect(plain.stdout).toContain('chain: every record up to position')
    const caught = await verify(home, '--against', kept)
    expect(caught.code).toBe(1)
    expect(caught.stdout).toMatch(/against \d+:[0-9a-f]{64}: FAILS: position \d+ links to [0-9a-f]{64}, not to the checkpoint's/)
  })

  it('--against refuses what is not a checkpoint, with the form it takes', async () => {
    const home = await newHome()
    await seed(home)
    const result = await verify(home, '--against', 'yesterday')
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('--against takes POSITION:HASH')
  })

  it('a log kept before the chain is chained when opened, and verify says from when the chain proves it', async () => {
    const home = await newHome()
    const head = await seed(home)
    // What a Quire before the chain left: no links at all.
    await withRawLog(home, async (db) => {
      const keys: Uint8Array[] = []
      for await (const key of db.keys({ gte: chainKey(0), lt: CHAIN_END })) keys.push(key)
      await db.batch([...keys.map((key) => ({ type: 'del' as const, key })), { type: 'del', key: CHAINED_LATE_KEY }])
    })
    const result = await verify(home)
    expect(result.code, result.stdout).toBe(0)
    expect(result.stdout).toContain(`chain: every record up to position ${head} links to the one before it`)
    expect(result.stdout).toMatch(new RegExp(`chain: positions 1–${head} were chained on \\d{4}-\\d\\d-\\d\\dT.*proven unchanged since then, not before`))
    // Appends after the upgrade extend it.
    const next = await seed(home, ['after\n'])
    const again = await verify(home)
    expect(again.code).toBe(0)
    expect(again.stdout).toContain(`chain: every record up to position ${next} links to the one before it`)
  })
})
