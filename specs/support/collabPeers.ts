import { setTimeout as sleep } from 'node:timers/promises'
import WebSocket from 'ws'
import * as Y from 'yjs'
import { WebsocketProvider } from 'y-websocket'

/**
 * Test peers for the collaboration endpoint: the stock y-websocket `WebsocketProvider`, unmodified, on Node's `ws`,
 * each with its own Y.Doc editing the `source` text.
 */
export interface Peer {
  readonly doc: Y.Doc
  readonly text: Y.Text
  readonly provider: WebsocketProvider
  /** Resolves once the provider has received the server's SyncStep2 (it is in sync). */
  synced(timeoutMs?: number): Promise<void>
  /** The close events the server sent, in order (code and reason). */
  readonly closes: { code: number; reason: string }[]
  destroy(): void
}

export interface PeerOptions {
  readonly token: string
  readonly params?: Record<string, string>
  readonly clientId?: number
  readonly connect?: boolean
}

/** `ws://127.0.0.1:PORT/collab`: the provider appends `/<docId>?token=...`. */
export const collabUrl = (port: number): string => `ws://127.0.0.1:${port}/collab`

export function peer(port: number, docId: string, options: PeerOptions): Peer {
  // Every WebsocketProvider adds a process 'exit' listener in Node; specs open dozens.
  process.setMaxListeners(Math.max(process.getMaxListeners(), 100))
  const doc = new Y.Doc()
  if (options.clientId !== undefined) doc.clientID = options.clientId
  const provider = new WebsocketProvider(collabUrl(port), docId, doc, {
    params: { token: options.token, ...options.params },
    // `ws` is the polyfill the provider documents for Node; its types differ from the DOM's only nominally.
    WebSocketPolyfill: WebSocket as unknown as typeof globalThis.WebSocket,
    disableBc: true,
    connect: options.connect ?? true,
    maxBackoffTime: 200,
  })
  const closes: { code: number; reason: string }[] = []
  provider.on('connection-close', (event) => {
    if (event) closes.push({ code: event.code, reason: event.reason })
  })
  return {
    doc,
    text: doc.getText('source'),
    provider,
    closes,
    synced: (timeoutMs = 10_000) =>
      new Promise<void>((resolve, reject) => {
        if (provider.synced) return resolve()
        const timer = setTimeout(() => reject(new Error(`peer did not sync in ${timeoutMs} ms (closes: ${JSON.stringify(closes)})`)), timeoutMs)
        provider.once('sync', () => {
          clearTimeout(timer)
          resolve()
        })
      }),
    destroy() {
      provider.destroy()
      doc.destroy()
    },
  }
}

/** Polls `check` until it returns true, or fails with `what` after `timeoutMs`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await check()) return
    await sleep(20)
  }
  throw new Error(`timed out waiting for ${what}`)
}

/** The first close the server sends a peer (it stops reconnecting after 44xx codes). */
export async function firstClose(target: Peer, timeoutMs = 10_000): Promise<{ code: number; reason: string }> {
  await until('a close from the server', () => target.closes.length > 0, timeoutMs)
  return target.closes[0]!
}

/** `GET /collab`: windows, tabs and their document ids. */
export interface CollabListing {
  readonly windows: { label: string; activeTabId: string | null; tabs: { tabId: string; docId: string; path: string | null; title: string | null }[] }[]
}

export async function listTabs(port: number, token: string): Promise<CollabListing> {
  const response = await fetch(`http://127.0.0.1:${port}/collab`, { headers: { authorization: `Bearer ${token}` } })
  if (!response.ok) throw new Error(`GET /collab answered ${response.status}`)
  return (await response.json()) as CollabListing
}

/** The document id a tab shows, as the person's console learns it. */
export async function docIdOfTab(port: number, token: string, tabId: string): Promise<string> {
  const listing = await listTabs(port, token)
  for (const window of listing.windows) for (const tab of window.tabs) if (tab.tabId === tabId) return tab.docId
  throw new Error(`no tab ${tabId} in GET /collab`)
}

/** A bare `ws` client speaking whatever bytes a test sends; records what the server does to it. */
export interface RawClient {
  readonly ws: WebSocket
  /** Resolves once open; rejects with the HTTP status when the upgrade is refused. */
  readonly opened: Promise<void>
  /** Resolves with the close code and reason. */
  readonly closed: Promise<{ code: number; reason: string }>
  /** Binary messages received, in order. */
  readonly received: Uint8Array[]
}

export function rawClient(port: number, path: string, options: { headers?: Record<string, string>; autoPong?: boolean } = {}): RawClient {
  const ws = new WebSocket(`ws://127.0.0.1:${port}${path}`, { headers: options.headers, autoPong: options.autoPong ?? true })
  const received: Uint8Array[] = []
  ws.on('message', (data: Buffer) => received.push(new Uint8Array(data)))
  const opened = new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve())
    ws.once('unexpected-response', (_request, response) => {
      reject(new Error(`upgrade refused: ${response.statusCode}`))
      ws.terminate()
    })
    ws.once('error', reject)
  })
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.once('close', (code: number, reason: Buffer) => resolve({ code, reason: reason.toString() }))
  })
  ws.on('error', () => {})
  opened.catch(() => {})
  return { ws, opened, closed, received }
}
