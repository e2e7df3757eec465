import type { WebSocket } from 'ws'
import type { Actor } from '../../core/events/actor.js'
import type { CollabLimits } from './limits.js'

/** Who a connection is: the label on its events and in presence, and whether its edits may change documents. */
export interface Access {
  /** Names the connection in the log (`peer:<label>`) and in the presence registry; unique within the process. */
  readonly label: string
  readonly readOnly: boolean
  /**
   * The agent whose token opened the connection (its name and the token's hash), undefined for the person: the
   * connection lives only as long as that token does.
   */
  readonly agent?: { readonly name: string; readonly tokenSha256: string }
  /** `undo=1`: receives the mirror side of assistants' writes as ASSISTANT_EDIT messages (see assistantEdit.ts). */
  readonly assistantEdits?: boolean
}

/**
 * One peer's socket, seen from the transport side: sends that drop a peer which stops reading instead of buffering
 * for it without bound, a ping/pong keepalive that cuts peers that vanished, and a close that always ends the
 * socket. It knows nothing of Yjs; the room and the protocol handler do.
 */
export class CollabConnection {
  readonly actor: Actor
  /** Awareness client ids this connection speaks for (removed from the room when it closes). */
  readonly awarenessClients = new Set<number>()
  /** Set once: why the connection ended (for tests and diagnostics). */
  closedBecause: { readonly code: number; readonly reason: string } | undefined
  private alive = true
  private readonly keepalive: NodeJS.Timeout

  constructor(
    readonly ws: WebSocket,
    readonly docId: string,
    readonly access: Access,
    private readonly limits: CollabLimits,
  ) {
    this.actor = Object.freeze({ kind: 'peer', peer: access.label })
    ws.on('pong', () => {
      this.alive = true
    })
    this.keepalive = setInterval(() => {
      if (!this.alive) {
        this.terminate(1006, 'no pong within the keepalive interval')
        return
      }
      this.alive = false
      try {
        ws.ping()
      } catch {
        this.terminate(1006, 'ping failed')
      }
    }, limits.pingIntervalMs)
    this.keepalive.unref()
    ws.once('close', () => clearInterval(this.keepalive))
  }

  get label(): string {
    return this.access.label
  }

  get open(): boolean {
    return this.ws.readyState === this.ws.OPEN
  }

  /**
   * Queues `message` for the peer. A peer whose queue is over the cap is cut off at once (terminated: it is not
   * reading, so a close frame behind the queue would never reach it); it resyncs when it reconnects.
   */
  send(message: Uint8Array): void {
    if (!this.open) return
    this.ws.send(message)
    if (this.ws.bufferedAmount > this.limits.maxQueuedBytes) {
      this.terminate(1013, `more than ${this.limits.maxQueuedBytes} bytes queued: the peer is not reading`)
    }
  }

  /** Ends the connection with a close frame (the peer sees `code` and `reason`). */
  close(code: number, reason: string): void {
    this.closedBecause ??= { code, reason }
    clearInterval(this.keepalive)
    if (this.ws.readyState === this.ws.CONNECTING || this.ws.readyState === this.ws.OPEN) {
      // Close reasons are limited to 123 bytes by the protocol.
      this.ws.close(code, truncateUtf8(reason, 123))
    }
  }

  /** Ends the socket without a handshake (the peer sees 1006). */
  terminate(code: number, reason: string): void {
    this.closedBecause ??= { code, reason }
    clearInterval(this.keepalive)
    this.ws.terminate()
  }
}

function truncateUtf8(text: string, maxBytes: number): string {
  let result = text
  while (Buffer.byteLength(result, 'utf8') > maxBytes) result = result.slice(0, -1)
  return result
}
