import { createHash } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { ClassicLevel } from 'classic-level'
import type pg from 'pg'
import { expect } from 'vitest'
import type { Engine } from '../../core/engine.js'
import { eventDefinitions } from '../../core/eventRegistry.js'
import { USER, type Actor } from '../../core/events/actor.js'
import { EventRegistry } from '../../core/events/schema.js'

/**
 * A log as stored, seen from outside the store: LevelDB opened directly, a data directory's files byte for byte, a
 * PostgreSQL schema's rows; and a log as a newer Quire leaves it (a `journal.recorded` of the next schema version).
 */

/** Opens the log's LevelDB in `home` directly (the store must be closed), runs `body`, closes it. */
export async function withRawLog<T>(home: string, body: (db: ClassicLevel<Uint8Array, Uint8Array>) => Promise<T>): Promise<T> {
  const db = new ClassicLevel<Uint8Array, Uint8Array>(join(home, 'log'), { keyEncoding: 'view', valueEncoding: 'view' })
  await db.open()
  try {
    return await body(db)
  } finally {
    await db.close()
  }
}

/** A quarantine note's key, from the layout in adapters/leveldb/keys.ts: `q` and the position, 8 bytes big-endian. */
export function quarantineKey(position: number): Uint8Array {
  const key = new Uint8Array(9)
  key[0] = 0x71
  new DataView(key.buffer).setBigUint64(1, BigInt(position))
  return key
}

/** Every file under `directory`, by relative path, with the SHA-256 of its bytes. */
export async function filesIn(directory: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {}
  for (const entry of await readdir(directory, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const path = join(entry.parentPath, entry.name)
    files[relative(directory, path)] = createHash('sha256').update(await readFile(path)).digest('hex')
  }
  return files
}

/** Every row of every table of the PostgreSQL `schema`, as text, table by table. */
export async function rowsOf(admin: pg.Pool, schema: string): Promise<Record<string, string[]>> {
  const { rows: tables } = await admin.query<{ name: string }>(`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1`, [schema])
  const state: Record<string, string[]> = {}
  for (const { name } of tables) {
    const { rows } = await admin.query<{ row: string }>(`SELECT t::text AS row FROM "${schema}"."${name}" AS t`)
    state[name] = rows.map(({ row }) => row).sort()
  }
  return state
}

const journalRecorded = eventDefinitions.find((definition) => definition.type === 'journal.recorded')!
/** The schema version of `journal.recorded` a newer Quire writes. */
export const NEWER_JOURNAL_VERSION = journalRecorded.version + 1

/** A newer Quire's registry: `journal.recorded` at the next version (its payload unchanged), every other type as here. */
export const newerRegistry = (): EventRegistry =>
  new EventRegistry([
    ...eventDefinitions.filter((definition) => definition !== journalRecorded),
    { ...journalRecorded, version: NEWER_JOURNAL_VERSION, upcasters: { ...journalRecorded.upcasters, [journalRecorded.version]: (data: unknown) => data } },
  ])

/** What every command says when it refuses a log a newer Quire wrote: one line naming the newer `journal.recorded`. */
export const REFUSED_AS_TOO_NEW = new RegExp(`^quire: [^\\n]*journal\\.recorded v${NEWER_JOURNAL_VERSION}\\b[^\\n]*newer Quire[^\\n]*\\n$`)

const AI: Actor = { kind: 'mcp', principal: 'claude', connection: 'c-1' }

/**
 * A document written by this Quire and then by a newer one (a journal entry at NEWER_JOURNAL_VERSION), each an engine
 * `open` makes with the registry given; returns the document's id.
 */
export async function writtenByNewer(open: (registry: EventRegistry) => Promise<Engine>): Promise<string> {
  const engine = await open(new EventRegistry(eventDefinitions))
  let docId: string
  try {
    docId = (await engine.commands.documents.create({ kind: 'markdown', content: 'alpha\n', path: null, title: 'Notes', origin: 'untitled', actor: USER })).docId
    await engine.commands.documents.write({ docId, content: 'alpha\nbeta\n', actor: USER })
  } finally {
    await engine.close()
  }
  const newer = await open(newerRegistry())
  try {
    await newer.commands.documents.write({ docId, content: 'alpha\nbeta\ngamma\n', actor: AI })
    const versions: number[] = []
    for await (const event of newer.store.readAll()) if (event.type === journalRecorded.type) versions.push(event.v)
    expect(versions).toContain(NEWER_JOURNAL_VERSION)
  } finally {
    await newer.close()
  }
  return docId
}
