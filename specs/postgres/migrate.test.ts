import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { openQuire } from '../../adapters/host/quire.js'
import { PostgresEventLog } from '../../adapters/postgres/postgresEventLog.js'
import { VerbatimRegistry } from '../../adapters/postgres/verbatimRegistry.js'
import { createEventRegistry } from '../../core/eventRegistry.js'
import { USER, type Actor } from '../../core/events/actor.js'
import type { EventRegistry } from '../../core/events/schema.js'
import type { EventLog, RecordedEvent, StreamHead } from '../../core/log/eventLog.js'
import { EventStore } from '../../adapters/leveldb/eventStore.js'
import { runCli } from '../support/cli.js'
import { usePostgresAdmin, usePostgresDatabase } from '../support/postgresServer.js'
import { useTempHomes } from '../support/tempHome.js'

/**
 * `quire migrate` (the compiled CLI) from a LevelDB data directory made by the engine (documents written by the
 * person and an assistant, comment threads, an approval asked and decided) into PostgreSQL; then both logs are read
 * event by event, as stored and as upcast, and must be the same. A second migration into the same schema is refused
 * and changes nothing.
 */
const database = usePostgresDatabase()
const newHome = useTempHomes()
const { admin: adminPool } = usePostgresAdmin(database)

const AI: Actor = { kind: 'mcp', principal: 'claude', connection: 'c-1' }

/** A data directory whose log holds documents, comments and an approval, with several actors and times. */
async function homeWithHistory(): Promise<string> {
  const home = await newHome()
  const quire = await openQuire(home, { watchDisk: false })
  try {
    const { engine } = quire.services
    const { docId } = await engine.commands.documents.create({ kind: 'markdown', content: 'alpha beta gamma\n', path: null, title: 'Notes', origin: 'untitled', actor: USER })
    await engine.commands.documents.write({ docId, content: 'alpha beta gamma\ndelta, by the assistant\n', actor: AI })
    const { docId: second } = await engine.commands.documents.create({ kind: 'markdown', content: '# Plan\n', path: null, title: 'Plan', origin: 'untitled', actor: USER })
    await engine.commands.documents.write({ docId: second, content: '# Plan\n\n- one\n- two 文字\n', actor: USER })
    const comments = engine.commands.comments
    const { comment, commentGen } = await comments.create(docId, { from: 6, to: 10 }, 'why beta?', USER)
    const replied = await comments.reply(docId, comment, 'because', commentGen, AI)
    await comments.markAddressed(docId, comment, replied.commentGen, AI)
    await comments.resolve(docId, comment, USER)
    const asked = await engine.commands.browserAccess.authorize(
      { kind: 'act', operation: 'click', origin: 'http://shop.test:8080', tabId: 'tab-1', target: { role: 'button', name: 'Buy' } },
      { connection: 'c-1', principal: 'claude', actor: AI },
      { waitMs: 0 },
    )
    await engine.commands.approvals.decide((asked as { approvalId: string }).approvalId, 'approved', USER)
  } finally {
    await quire.close()
  }
  return home
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = []
  for await (const item of iterable) items.push(item)
  return items
}

async function heads(log: EventLog): Promise<Map<string, StreamHead>> {
  const found = new Map<string, StreamHead>()
  for await (const { stream, head } of log.streams()) found.set(stream, head)
  return found
}

/** Both logs read with `registry`: every event, and every stream's head and events. */
async function expectSameLog(source: EventLog, target: EventLog): Promise<RecordedEvent[]> {
  const events = await collect(source.readAll())
  expect(await collect(target.readAll())).toEqual(events)
  const sourceHeads = await heads(source)
  expect(await heads(target)).toEqual(sourceHeads)
  for (const stream of sourceHeads.keys()) expect(await collect(target.readStream(stream))).toEqual(await collect(source.readStream(stream)))
  return events
}

async function withBoth<T>(home: string, schema: string, registry: EventRegistry, body: (source: EventStore, target: PostgresEventLog) => Promise<T>): Promise<T> {
  const source = await EventStore.open(home, { registry })
  const target = await PostgresEventLog.open(database(), { registry, schema })
  try {
    return await body(source, target)
  } finally {
    await Promise.all([source.close(), target.close()])
  }
}

describe('quire migrate: a LevelDB log into PostgreSQL', () => {
  it('given a data directory with documents, comments and an approval, when migrated, then the PostgreSQL log holds every event at its position with its stream version, type, schema version, payload, actor and time, and the command says it verified so', async () => {
    const home = await homeWithHistory()
    const schema = `migrated_${randomBytes(4).toString('hex')}`
    const result = await runCli(['migrate', '--from', home, '--to', database(), '--schema', schema])
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    const events = await withBoth(home, schema, new VerbatimRegistry(createEventRegistry()), expectSameLog)
    expect(events.map((event) => event.position)).toEqual(events.map((_, index) => index + 1))
    const types = new Set(events.map((event) => event.type))
    for (const type of ['document.created', 'journal.recorded', 'comment.created', 'comment.replied', 'approval.requested', 'approval.decided']) {
      expect(types).toContain(type)
    }
    expect(new Set(events.map((event) => event.actor.kind))).toEqual(new Set(['user', 'mcp']))
    // As every node reads it: upcast by Quire's registry, the same on both sides too.
    await withBoth(home, schema, createEventRegistry(), expectSameLog)
    const lines = result.stdout.trim().split('\n')
    expect(lines[0]).toBe(`source: ${home}: ${events.length} events in ${(await withBoth(home, schema, createEventRegistry(), async (source) => heads(source))).size} streams, head position ${events.length}`)
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^copied ${events.length} events to `)))
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^verified: ${events.length} events in \\d+ streams, head position ${events.length}, every stream head, and sha256 [0-9a-f]{64} over every event: the same on both sides$`)))
    // The hash chain is carried: both logs link every record alike (issue 29 item 4).
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^chain carried: every record links as in the source, head ${events.length}:[0-9a-f]{64}$`)))
    expect(lines.at(-1)).toBe('snapshots were not copied: the nodes rebuild them from the log')
    const { rows } = await adminPool().query<{ count: string }>(`SELECT count(*) FROM "${schema}".snapshots`)
    expect(Number(rows[0]!.count)).toBe(0)
  })

  it('given a PostgreSQL log that already holds events (its schema named in the URL), when migrating into it, then the command refuses, exit 1, and the log is unchanged', async () => {
    const home = await homeWithHistory()
    const schema = `taken_${randomBytes(4).toString('hex')}`
    // The schema named as `quire serve --store` takes it, inside the URL.
    const store = `${database()}${database().includes('?') ? '&' : '?'}schema=${schema}`
    expect((await runCli(['migrate', '--from', home, '--to', store])).code).toBe(0)
    const before = await adminPool().query(`SELECT position, record FROM "${schema}".events ORDER BY position`)
    const again = await runCli(['migrate', '--from', home, '--to', store])
    expect(again.code).toBe(1)
    expect(again.stderr).toMatch(new RegExp(`^quire: the PostgreSQL log \\(schema ${schema}\\) already holds ${before.rows.length} events: migrate copies into an empty log only; nothing was copied\\n$`))
    const after = await adminPool().query(`SELECT position, record FROM "${schema}".events ORDER BY position`)
    expect(after.rows).toEqual(before.rows)
  })

  it('given no log in the source, or no --to, when migrating, then the command refuses without touching the database', async () => {
    const empty = await newHome()
    const schema = `none_${randomBytes(4).toString('hex')}`
    const missing = await runCli(['migrate', '--from', empty, '--to', database(), '--schema', schema])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/^quire: there is no Quire log in .*; nothing was copied\n$/)
    const usage = await runCli(['migrate', '--from', empty])
    expect(usage.code).toBe(2)
    expect(usage.stderr).toMatch(/^quire: migrate needs --to postgres:\/\/…/)
    const { rows } = await adminPool().query(`SELECT 1 FROM information_schema.schemata WHERE schema_name = $1`, [schema])
    expect(rows).toEqual([])
  })
})
