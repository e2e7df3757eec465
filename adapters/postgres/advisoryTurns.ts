import pg from 'pg'
import type { CrossNodeTurns, JournalStage } from '../../core/documents/turns.js'

const CONNECT_TIMEOUT_MS = 5_000
const FIRST_RETRY_MS = 2
const LONGEST_RETRY_MS = 20
/** How soon a connection is made again after one dropped while marks were set. */
const RECONNECT_MS = 500

/**
 * Documents' write turns held among the nodes sharing a PostgreSQL log: a session-level advisory lock per document
 * (keyed by the log's schema and the document id) on a connection of its own. A document's turn is taken by at most
 * one caller per node at a time (core's own queue comes first), so one connection serves every document. Waiting is
 * a poll of `pg_try_advisory_lock`, so a wait for one document never holds up the turn of another.
 *
 * A connection that drops takes its locks with it: another node may then take a turn this node still thinks it
 * holds. That costs no data (the append expects a stream version and is decided again if another node's landed
 * first); the next `take` opens a new connection.
 *
 * A document's journal mark (a write still on its way to the log, JRNL.6/JRNL.8) is a shared-mode session lock on a
 * key of its own per stage, on the same connection; another node asks for it with an exclusive try given back at once
 * (see MARKED_ELSEWHERE). Marks are counted here and held once each; a new connection takes every mark still set
 * before it serves anything else, and one is made soon after a connection drops while marks are set.
 */
export class AdvisoryTurns implements CrossNodeTurns {
  private client: Promise<pg.Client> | undefined
  private closed = false
  /** How many writes of this node each mark key stands for (a key is held once, while its count is above zero). */
  private readonly marks = new Map<string, number>()
  /** The mark keys each connection holds. */
  private readonly shownOn = new WeakMap<pg.Client, Set<string>>()
  private reconnecting: NodeJS.Timeout | undefined

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

  mark(docId: string, stage: JournalStage): { shown: Promise<void>; withdraw: () => Promise<void> } {
    const key = this.markKey(docId, stage)
    this.marks.set(key, (this.marks.get(key) ?? 0) + 1)
    let withdrawn = false
    const withdraw = async () => {
      if (withdrawn) return
      withdrawn = true
      const left = (this.marks.get(key) ?? 1) - 1
      if (left > 0) {
        this.marks.set(key, left)
        return
      }
      this.marks.delete(key)
      const client = await this.client?.catch(() => undefined)
      // A connection that dropped took the mark with it; one made since took it only if it was still set then.
      if (client && this.shownOn.get(client)?.delete(key)) await client.query('SELECT pg_advisory_unlock_shared(hashtextextended($1, 0))', [key])
    }
    const shown = this.connection().then(async (client) => {
      if (!withdrawn) await this.show(client, key)
    })
    // Not shown now: the next connection shows it, and one is made soon even if this node asks nothing meanwhile.
    shown.catch(() => this.reconnectSoon())
    return { shown, withdraw }
  }

  async markedElsewhere(docId: string): Promise<JournalStage | undefined> {
    const client = await this.connection()
    const { rows } = await client.query<{ recording: boolean; applying: boolean }>(MARKED_ELSEWHERE, [this.markKey(docId, 'recording'), this.markKey(docId, 'applying')])
    if (rows[0]!.recording) return 'recording'
    if (rows[0]!.applying) return 'applying'
    return undefined
  }

  async close(): Promise<void> {
    this.closed = true
    clearTimeout(this.reconnecting)
    const client = this.client
    this.client = undefined
    await (await client?.catch(() => undefined))?.end().catch(() => {})
  }

  private async release(client: pg.Client, key: string): Promise<void> {
    // On a connection since replaced, the lock went with the old one.
    if ((await this.client?.catch(() => undefined)) !== client) return
    await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [key])
  }

  /** While marks are set and no connection shows them, tries again every so often (the nodes must see them). */
  private reconnectSoon(): void {
    if (this.closed || this.marks.size === 0 || this.reconnecting) return
    this.reconnecting = setTimeout(() => {
      this.reconnecting = undefined
      if (!this.client) this.connection().catch(() => this.reconnectSoon())
    }, RECONNECT_MS)
    this.reconnecting.unref()
  }

  private markKey(docId: string, stage: JournalStage): string {
    return `quire.journal-${stage}:${this.schema}:${docId}`
  }

  /** Takes `key`'s mark on `client` unless it holds it already. */
  private async show(client: pg.Client, key: string): Promise<void> {
    let shown = this.shownOn.get(client)
    if (!shown) this.shownOn.set(client, (shown = new Set()))
    if (shown.has(key)) return
    shown.add(key)
    try {
      // Shared mode: only another node's question takes these keys exclusively, for an instant.
      await client.query('SELECT pg_advisory_lock_shared(hashtextextended($1, 0))', [key])
    } catch (error) {
      shown.delete(key)
      throw error
    }
  }

  private connection(): Promise<pg.Client> {
    if (this.closed) return Promise.reject(new Error('the node is closing'))
    if (!this.client) {
      const client = new pg.Client({ connectionString: this.connectionString, application_name: 'quire turns', connectionTimeoutMillis: CONNECT_TIMEOUT_MS, keepAlive: true })
      // The marks still set are taken again before the connection serves a turn or a question.
      const connecting = client.connect().then(async () => {
        for (const key of [...this.marks.keys()]) await this.show(client, key)
        return client
      })
      // A dropped connection is replaced on the next take; its locks were dropped with it.
      const dropped = () => {
        if (this.client !== connecting) return
        this.client = undefined
        this.reconnectSoon()
      }
      client.on('error', dropped)
      client.on('end', dropped)
      connecting.catch(() => {
        dropped()
        // A connection that came up but could not take the marks again is of no use: the next one will.
        void client.end().catch(() => {})
      })
      this.client = connecting
    }
    return this.client
  }
}

/**
 * Whether a session other than this one holds each of two mark keys ($1 recording, $2 applying): an exclusive try on
 * each, given back at once, fails exactly when another session holds it (this session's own marks never stand in its
 * way). Only the node holding the document's turn asks, so two questions about one key never meet; a mark being taken
 * meanwhile waits the instant the try lasts. Cheaper than reading `pg_locks`, which copies the whole lock table.
 */
const MARKED_ELSEWHERE = `
  SELECT
    CASE WHEN pg_try_advisory_lock(keys.recording) THEN NOT pg_advisory_unlock(keys.recording) ELSE true END AS recording,
    CASE WHEN pg_try_advisory_lock(keys.applying) THEN NOT pg_advisory_unlock(keys.applying) ELSE true END AS applying
  FROM (SELECT hashtextextended($1, 0) AS recording, hashtextextended($2, 0) AS applying) AS keys`
