import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openQuire, type Quire } from '../../adapters/host/quire.js'
import { USER, type Actor } from '../../core/events/actor.js'
import { isQuireError } from '../../core/errors.js'
import { startRestartablePostgres, type RestartablePostgres } from '../support/postgresServer.js'
import { useTempHomes } from '../support/tempHome.js'
import { fromError } from '../../adapters/mcp/results.js'
import { eventually } from './support.js'

/**
 * PostgreSQL stopped under two nodes and started again: writes answer JOURNAL_UNAVAILABLE promptly and change
 * nothing, what the nodes hold keeps being read, and both recover by themselves once the server is back.
 */
const AI: Actor = { kind: 'mcp', principal: 'claude', connection: 'c-1' }
const newHome = useTempHomes()
let server: RestartablePostgres
let store: string

beforeAll(async () => {
  server = await startRestartablePostgres()
  store = `${await server.createDatabase()}&schema=restart`
})
afterAll(async () => {
  await server?.stop()
})

describe('PostgreSQL restarted under running nodes', () => {
  it('writes refuse promptly while it is down, reads keep serving, and both nodes recover by themselves', async () => {
    const nodes: Quire[] = []
    try {
      for (let index = 0; index < 2; index += 1) nodes.push(await openQuire(await newHome(), { store, watchDisk: false }))
      const [a, b] = nodes as [Quire, Quire]
      const { docId } = await a.services.documents.create({ kind: 'markdown', content: 'before\n', path: null, title: 'r', origin: 'untitled', actor: USER })
      await eventually(async () => (await b.services.engine.documents.get(docId)) !== undefined)
      const { docId: unheld } = await a.services.documents.create({ kind: 'markdown', content: 'not on b\n', path: null, title: 'u', origin: 'untitled', actor: USER })

      server.stopServer()
      const started = Date.now()
      const refused = await a.services.documents.write({ docId, content: 'during\n', actor: AI }).then(() => undefined, (error: unknown) => error)
      expect(isQuireError(refused, 'JOURNAL_UNAVAILABLE'), String(refused)).toBe(true)
      // Within the log's retry window and the write's journal deadline, not an indefinite hang.
      expect(Date.now() - started).toBeLessThan(15_000)
      for (const node of nodes) expect((await node.services.engine.documents.get(docId))!.content).toBe('before\n')
      // A read that needs the database (a document node B does not hold yet) fails as INTERNAL, said to be retryable.
      const unreadable = await b.services.engine.documents.get(unheld).then(() => undefined, (error: unknown) => error)
      expect(unreadable).toBeDefined()
      const answer = fromError(unreadable).structuredContent as Record<string, unknown>
      expect(answer).toMatchObject({ error: 'INTERNAL', reason: 'log-unreachable', retryable: true })
      expect(answer['message']).toMatch(/cannot be reached/)

      server.startServer()
      await eventually(async () => {
        const outcome = await a.services.documents.write({ docId, content: 'after\n', actor: AI }).then(() => true, () => false)
        return outcome
      }, 30_000)
      await eventually(() => b.services.engine.documents.peek(docId)?.content === 'after\n', 30_000)
      const onB = await b.services.documents.write({ docId, content: 'after, from b\n', actor: AI })
      expect(onB.changed).toBe(true)
      await eventually(() => a.services.engine.documents.peek(docId)?.content === 'after, from b\n', 30_000)
      const rebuilt = await a.services.engine.documents.rebuild(docId)
      expect(rebuilt!.content).toBe('after, from b\n')
      rebuilt!.destroy()
    } finally {
      await Promise.allSettled(nodes.map((node) => node.close()))
    }
  }, 120_000)
})
