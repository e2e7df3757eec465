import pg from 'pg'
import type { CrossNodeTurns } from '../../core/documents/turns.js'

const CONNECT_TIMEOUT_MS = 5_000
const FIRST_RETRY_MS = 2
const LONGEST_RETRY_MS = 20

/**
 * Documents' write turns held among the nodes sharing a PostgreSQL log: a session-level advisory lock per document
 * (keyed by the log's schema and the document id) on a connection of its own. A document's turn is taken by at most
 * one caller per node at a time (core's own queue comes first), so one connection serves every document. Waiting is
 * a poll of `pg_try_advisory_lock`, so a wait for one document never holds up the turn of another.
 *
 * A connection that drops takes its locks with it: another node may then take a turn this node still thinks it
 * holds. That costs no data (the append expects a stream version and is decided again if another node's landed
 * first); the next `take` opens a new connection.
 */
export class AdvisoryTurns implements CrossNodeTurns {
  private client: Promise<pg.Client> | undefined
  private closed = false

  constructor(
    private readonly connectionString: string,
    private readonly schema: string,
  ) {}

  async take(docId: string, waitMs: number): Promise<(() => Promise<void>) | undefined> {
    const key = `quire.turn:${this.schema}:${docId}`
    const deadline = Date.now() + waitMs
    let retryMs = FIRST_RETRY_MS
    for (;;) {
      const client = await this.connection()
      const { rows } = await client.query<{ taken: boolean }>('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS taken', [key])
      if (rows[0]!.taken) return () => this.release(client, key)
      if (Date.now() >= deadline) return undefined
      await new Promise((resolve) => setTimeout(resolve, Math.min(retryMs, Math.max(1, deadline - Date.now()))))
      retryMs = Math.min(LONGEST_RETRY_MS, retryMs * 2)
    }
  }

  async close(): Promise<void> {
    this.closed = true
    const client = this.client
    this.client = undefined
    await (await client?.catch(() => undefined))?.end().catch(() => {})
  }

  private async release(client: pg.Client, key: string): Promise<void> {
    // On a connection since replaced, the lock went with the old one.
    if ((await this.client?.catch(() => undefined)) !== client) return
    await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [key])
  }

  private connection(): Promise<pg.Client> {
    if (this.closed) return Promise.reject(new Error('the node is closing'))
    if (!this.client) {
      const client = new pg.Client({ connectionString: this.connectionString, application_name: 'quire turns', connectionTimeoutMillis: CONNECT_TIMEOUT_MS, keepAlive: true })
      const connecting = client.connect().then(() => client)
      // A dropped connection is replaced on the next take; its locks were dropped with it.
      client.on('error', () => {
        if (this.client === connecting) this.client = undefined
      })
      client.on('end', () => {
        if (this.client === connecting) this.client = undefined
      })
      connecting.catch(() => {
        if (this.client === connecting) this.client = undefined
      })
      this.client = connecting
    }
    return this.client
  }
}
