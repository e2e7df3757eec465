import { createHash } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { ClassicLevel } from 'classic-level'
import { describe, expect, it } from 'vitest'
import { replayDocument } from '../../core/audit/replay.js'
import { verify } from '../../core/audit/verify.js'
import { openEngine, type Engine } from '../../core/engine.js'
import { eventDefinitions } from '../../core/eventRegistry.js'
import { USER, type Actor } from '../../core/events/actor.js'
import { EventRegistry } from '../../core/events/schema.js'
import { EventStore } from '../../core/log/eventStore.js'
import { runCli } from '../support/cli.js'
import { useTempHomes } from '../support/tempHome.js'

/**
 * Issue 24, item 9: a downgrade never damages the log. A data directory a newer Quire wrote to (a `journal.recorded`
 * of a schema version this Quire does not read) is refused by every command that would open it, with one line that
 * says why and how to go back, and without a byte of the directory changing; the newer Quire then reads all of it.
 * And notes an older Quire left on records it could not read never hide those records from a Quire that can.
 */
const newHome = useTempHomes()
const AI: Actor = { kind: 'mcp', principal: 'claude', connection: 'c-1' }

const journalRecorded = eventDefinitions.find((definition) => definition.type === 'journal.recorded')!
/** A newer Quire's registry: `journal.recorded` at the next version (its payload unchanged), every other type as here. */
const newerRegistry = (): EventRegistry =>
  new EventRegistry([
    ...eventDefinitions.filter((definition) => definition !== journalRecorded),
    { ...journalRecorded, version: journalRecorded.version + 1, upcasters: { ...journalRecorded.upcasters, [journalRecorded.version]: (data: unknown) => data } },
  ])
const newerVersion = journalRecorded.version + 1

/** The engine on `home` with the newer Quire's registry. */
const openNewer = (home: string): Promise<Engine> => openEngine(home, { openLog: () => EventStore.open(home, { registry: newerRegistry() }) })

/** Every file under `directory`, by relative path, with the SHA-256 of its bytes. */
async function filesIn(directory: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {}
  for (const entry of await readdir(directory, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const path = join(entry.parentPath, entry.name)
    files[relative(directory, path)] = createHash('sha256').update(await readFile(path)).digest('hex')
  }
  return files
}

/** A document written by this Quire, then by the newer one: returns its id. */
async function writtenByNewer(home: string): Promise<string> {
  const engine = await openEngine(home)
  let docId: string
  try {
    docId = (await engine.commands.documents.create({ kind: 'markdown', content: 'alpha\n', path: null, title: 'Notes', origin: 'untitled', actor: USER })).docId
    await engine.commands.documents.write({ docId, content: 'alpha\nbeta\n', actor: USER })
  } finally {
    await engine.close()
  }
  const newer = await openNewer(home)
  try {
    await newer.commands.documents.write({ docId, content: 'alpha\nbeta\ngamma\n', actor: AI })
    const versions: number[] = []
    for await (const event of newer.store.readAll()) if (event.type === journalRecorded.type) versions.push(event.v)
    expect(versions).toContain(newerVersion)
  } finally {
    await newer.close()
  }
  return docId
}

/** A quarantine note's key (core/log/keys.ts): `q` and the position, 8 bytes big-endian. */
function quarantineKey(position: number): Uint8Array {
  const key = new Uint8Array(9)
  key[0] = 0x71
  new DataView(key.buffer).setBigUint64(1, BigInt(position))
  return key
}

async function withDatabase<T>(home: string, body: (db: ClassicLevel<Uint8Array, Uint8Array>) => Promise<T>): Promise<T> {
  const db = new ClassicLevel<Uint8Array, Uint8Array>(join(home, 'log'), { keyEncoding: 'view', valueEncoding: 'view' })
  await db.open()
  try {
    return await body(db)
  } finally {
    await db.close()
  }
}

describe('issue 24 item 9: a downgrade never damages the log (LevelDB)', () => {
  it('given a data directory a newer Quire wrote to, when this Quire serves it, runs embedded for MCP, or audits it (log, replay, verify), then each refuses with one line naming the type and version, and the directory is unchanged byte for byte; the newer Quire then reads every record and verifies', async () => {
    const home = await newHome()
    const docId = await writtenByNewer(home)
    const before = await filesIn(home)
    const runs: Record<string, { code: number | null; stdout: string; stderr: string }> = {}
    for (const args of [['log'], ['replay', '--doc', docId], ['verify'], ['serve', '--port', '0'], ['mcp']]) {
      const { code, stdout, stderr } = await runCli(args, { home, timeoutMs: 20_000 })
      runs[args.join(' ')] = { code, stdout, stderr }
    }
    const refused = new RegExp(`^quire: [^\\n]*journal\\.recorded v${newerVersion}\\b[^\\n]*newer Quire[^\\n]*\\n$`)
    for (const [command, run] of Object.entries(runs)) {
      expect({ command, ...run }).toEqual({ command, code: 1, stdout: '', stderr: expect.stringMatching(refused) })
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
    const engine = await openEngine(home)
    let docId: string
    const journal: number[] = []
    try {
      docId = (await engine.commands.documents.create({ kind: 'markdown', content: 'alpha\n', path: null, title: 'Notes', origin: 'untitled', actor: USER })).docId
      await engine.commands.documents.write({ docId, content: 'alpha\nbeta\n', actor: AI })
      await engine.commands.documents.write({ docId, content: 'alpha\nbeta\ngamma\n', actor: AI })
      for await (const event of engine.store.readAll()) if (event.type === journalRecorded.type) journal.push(event.position)
    } finally {
      await engine.close()
    }
    expect(journal.length).toBe(2)
    await withDatabase(home, async (db) => {
      for (const position of journal) {
        const note = { reason: `journal.recorded v${journalRecorded.version} was written by a newer Quire (this one reads up to v1)`, bytes: 100 }
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
    for (const position of journal) expect(positions).toContain(position)
    const notes = await withDatabase(home, async (db) => {
      const left: number[] = []
      for await (const key of db.keys({ gte: quarantineKey(0), lt: Uint8Array.of(0x72) })) left.push(Number(new DataView(key.buffer, key.byteOffset).getBigUint64(1)))
      return left
    })
    expect(notes).toEqual([])
  })
})
