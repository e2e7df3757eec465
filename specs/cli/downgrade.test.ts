import { describe, expect, it } from 'vitest'
import { replayDocument } from '../../core/audit/replay.js'
import { verify } from '../../core/audit/verify.js'
import { openEngine, type Engine } from '../../core/engine.js'
import { openEmbeddedEngine } from '../../adapters/leveldb/embeddedEngine.js'
import { USER, type Actor } from '../../core/events/actor.js'
import { EventStore } from '../../adapters/leveldb/eventStore.js'
import { runCli } from '../support/cli.js'
import { filesIn, newerRegistry, quarantineKey, REFUSED_AS_TOO_NEW, withRawLog, writtenByNewer } from '../support/storedLog.js'
import { useTempHomes } from '../support/tempHome.js'

/**
 * Issue 24, item 9: a downgrade never damages the log. A data directory a newer Quire wrote to (a `journal.recorded`
 * of a schema version this Quire does not read) is refused by every command that would open it, with one line that
 * says why and how to go back, and without a byte of the directory changing; the newer Quire then reads all of it.
 * And notes an older Quire left on records it could not read never hide those records from a Quire that can.
 */
const newHome = useTempHomes()
const AI: Actor = { kind: 'mcp', principal: 'claude', connection: 'c-1' }

/** The engine on `home` with the newer Quire's registry. */
const openNewer = (home: string): Promise<Engine> => openEngine(home, { openLog: () => EventStore.open(home, { registry: newerRegistry() }) })

describe('issue 24 item 9: a downgrade never damages the log (LevelDB)', () => {
  it('given a data directory a newer Quire wrote to, when this Quire serves it, runs embedded for MCP, or audits it (log, replay, verify), then each refuses with one line naming the type and version, and the directory is unchanged byte for byte; the newer Quire then reads every record and verifies', async () => {
    const home = await newHome()
    const docId = await writtenByNewer((registry) => openEngine(home, { openLog: () => EventStore.open(home, { registry }) }))
    const before = await filesIn(home)
    for (const args of [['log'], ['replay', '--doc', docId], ['verify'], ['serve', '--port', '0'], ['mcp']]) {
      const { code, stdout, stderr } = await runCli(args, { home, timeoutMs: 20_000 })
      expect({ command: args.join(' '), code, stdout, stderr }).toEqual({ command: args.join(' '), code: 1, stdout: '', stderr: expect.stringMatching(REFUSED_AS_TOO_NEW) })
    }
    expect(await filesIn(home)).toEqual(before)

    const newer = await openNewer(home)
    try {
      const report = await verify(newer)
      expect({ ok: report.ok, problems: report.integrity.problems, quarantined: report.integrity.quarantined }).toEqual({ ok: true, problems: [], quarantined: [] })
      expect(newer.store.quarantinedRecords()).toEqual([])
      expect(await replayDocument(newer, docId)).toBe('alpha\nbeta\ngamma\n')
    } finally {
      await newer.close()
    }
  })

  it('given quarantine notes an older Quire left in the data directory on records it could not read, when this Quire opens it, then verify is green, status reports no quarantined records, the log shows those records, and the notes are gone', async () => {
    const home = await newHome()
    const engine = await openEmbeddedEngine(home)
    let docId: string
    const journal: { position: number; v: number }[] = []
    try {
      docId = (await engine.commands.documents.create({ kind: 'markdown', content: 'alpha\n', path: null, title: 'Notes', origin: 'untitled', actor: USER })).docId
      await engine.commands.documents.write({ docId, content: 'alpha\nbeta\n', actor: AI })
      await engine.commands.documents.write({ docId, content: 'alpha\nbeta\ngamma\n', actor: AI })
      for await (const event of engine.store.readAll()) if (event.type === 'journal.recorded') journal.push({ position: event.position, v: event.v })
    } finally {
      await engine.close()
    }
    expect(journal.length).toBe(2)
    await withRawLog(home, async (db) => {
      for (const { position, v } of journal) {
        const note = { reason: `journal.recorded v${v} was written by a newer Quire (this one reads up to v1)`, bytes: 100 }
        await db.put(quarantineKey(position), new TextEncoder().encode(JSON.stringify(note)), { sync: true })
      }
    })

    const verified = await runCli(['verify'], { home })
    expect({ code: verified.code, stderr: verified.stderr }).toEqual({ code: 0, stderr: '' })
    expect(verified.stdout).not.toContain('quarantined:')
    const status = await runCli(['status'], { home })
    expect(status.stdout).not.toContain('quarantined records')
    const logged = await runCli(['log', '--stream', `doc:${docId}`], { home })
    const positions = logged.stdout.split('\n').filter(Boolean).map((line) => Number.parseInt(line.trim().split(/\s+/)[0]!, 10))
    for (const { position } of journal) expect(positions).toContain(position)
    const notes = await withRawLog(home, async (db) => {
      const left: Uint8Array[] = []
      for await (const key of db.keys({ gte: quarantineKey(0), lt: Uint8Array.of(0x72) })) left.push(key)
      return left
    })
    expect(notes).toEqual([])
  })
})
