/**
 * The collaboration endpoint's limits, in one place so the contract can be read off a single file. Each value says
 * why it is what it is; tests shrink some of them through {@link CollabLimits}.
 */
export interface CollabLimits {
  /**
   * Largest WebSocket message accepted, in bytes (bigger: closed with 1009 by `ws` itself). 16 MiB holds the full
   * state of any document a person edits by hand many times over (the automerge-paper trace's whole Yjs state is
   * about 0.2 MiB), while bounding what one frame can make the server buffer and decode.
   */
  readonly maxMessageBytes: number
  /**
   * Outgoing bytes a connection may have queued (ws `bufferedAmount`: the socket's write queue plus ws's own)
   * before it is dropped as too slow. Twice the largest message, so a full-state SyncStep2 of a maximal document
   * plus the live updates behind it always fit; past that a peer is not keeping up, and buffering more would only
   * grow the server's memory without bound. A dropped peer loses nothing: it resyncs on reconnect.
   */
  readonly maxQueuedBytes: number
  /**
   * Keepalive: a ping every this many ms, and a peer that has not answered the previous ping by the next one is
   * terminated (a laptop that slept, a network that vanished: TCP alone would hold the socket for hours). 30 s is
   * what the reference y-websocket server uses; the client's own watchdog (no message for 30 s: reconnect) covers
   * the other direction, kept fed by awareness renewals every 15 s.
   */
  readonly pingIntervalMs: number
  /** How long close() waits for peers to acknowledge the close handshake before cutting the sockets. */
  readonly closeGraceMs: number
  /**
   * Bytes of one awareness state (the JSON of one client's cursor, name and presence). The console's is well under
   * 1 KiB; 64 KiB leaves room for any editor's cursor data, while a state every peer and every joiner is sent cannot
   * become a way to push megabytes to all of them. Over: closed with {@link CLOSE.awarenessTooLarge}.
   */
  readonly maxAwarenessStateBytes: number
  /**
   * Awareness client ids one connection may speak for at once. A stock provider has exactly one (its Y.Doc's
   * clientID); 8 allows a peer a few documents' worth, while fake ids cannot each cost the server a state and its
   * bookkeeping. Over: closed with {@link CLOSE.tooMany}.
   */
  readonly maxAwarenessClientsPerConnection: number
  /**
   * Open connections one agent may hold, over all documents. An agent reads a handful of documents live; 16 is
   * well past that, and bounds what a leaking or hostile client can make the server hold for it (a room, a
   * keepalive, a queue per connection). Over: closed with {@link CLOSE.tooMany}.
   */
  readonly maxConnectionsPerAgent: number
  /**
   * Open connections the person's token may hold: one per editor the console shows, in every window and browser
   * the person uses. 256 is beyond any person's tabs, and still a bound when a runaway script holds the token.
   */
  readonly maxConnectionsPerPerson: number
}

export const DEFAULT_LIMITS: CollabLimits = Object.freeze({
  maxMessageBytes: 16 * 1024 * 1024,
  maxQueuedBytes: 32 * 1024 * 1024,
  pingIntervalMs: 30_000,
  closeGraceMs: 1_000,
  maxAwarenessStateBytes: 64 * 1024,
  maxAwarenessClientsPerConnection: 8,
  maxConnectionsPerAgent: 16,
  maxConnectionsPerPerson: 256,
})

/**
 * Close codes. 4400–4499 mirror HTTP 4xx and tell the stock y-websocket client to stop reconnecting (its default
 * `shouldReconnect`); every other code is transient and it reconnects (and resyncs) with backoff.
 */
export const CLOSE = Object.freeze({
  /** The daemon is shutting down. */
  goingAway: 1001,
  /** A message that is not the y-websocket protocol (bad varints, unknown type, an undecodable update). */
  protocolError: 1002,
  /** A text frame: the protocol is binary only. */
  unsupportedData: 1003,
  /** Set by `ws` when a message exceeds maxMessageBytes. */
  messageTooBig: 1009,
  /** Something failed on the server's side (the log refused an append, say). */
  internalError: 1011,
  /** Missing, unknown or revoked token. */
  unauthorized: 4401,
  /** No document with that id. */
  notFound: 4404,
  /** An awareness state over maxAwarenessStateBytes (like HTTP 413). */
  awarenessTooLarge: 4413,
  /** Over a count: awareness clients of one connection, connections of one principal (like HTTP 429). */
  tooMany: 4429,
})
