import * as Y from 'yjs'
import type { DocumentCommands } from '../../core/documents/commands.js'
import { isQuireError } from '../../core/errors.js'
import type { DocumentState } from '../../core/documents/documentState.js'
import type { DocumentRepository } from '../../core/documents/documentRepository.js'
import type { CollabConnection } from './connection.js'
import type { LogFanout } from './fanout.js'
import type { KeystrokePolicy } from './keystrokes.js'
import { CLOSE } from './limits.js'
import {
  LimitExceeded, MalformedMessage, parsePeerMessage, permissionDeniedMessage, syncStep1Message, syncStep2Message, updateMessage, type AwarenessBounds,
} from './protocol.js'
import type { Room } from './room.js'

/** What a peer session needs from the core. */
export interface SessionContext {
  readonly documents: DocumentRepository
  readonly commands: DocumentCommands
  readonly fanout: LogFanout
  /** What one awareness message may hold. */
  readonly awarenessBounds: AwarenessBounds
  /** When other peers get a keystroke, and when it is appended. */
  readonly keystrokes: KeystrokePolicy
}

/**
 * One peer speaking the y-websocket protocol about one document. Its edits become events through
 * `applyPeerUpdates` (never by touching the Y.Doc directly), batched while an append is in flight; what it learns of
 * other changes comes from the log fan-out, not from here. A read-only peer syncs and reads, and its edits are
 * dropped.
 */
export class PeerSession {
  private pending: Uint8Array[] = []
  private flushing: Promise<void> | undefined
  private toldReadOnly = false

  constructor(
    private readonly connection: CollabConnection,
    private readonly room: Room,
    private readonly context: SessionContext,
  ) {}

  /** y-websocket's opening: the server's state vector (SyncStep1), then everyone's awareness. */
  async start(): Promise<void> {
    const state = await this.document()
    if (!state) return
    this.connection.send(syncStep1Message(Y.encodeStateVector(state.ydoc)))
    const awareness = this.room.awarenessSnapshot()
    if (awareness) this.connection.send(awareness)
  }

  /** Handles one binary message; anything that is not the protocol closes the connection with the reason. */
  receive(bytes: Uint8Array): void {
    try {
      const message = parsePeerMessage(bytes, this.context.awarenessBounds)
      switch (message.kind) {
        case 'sync-step1':
          void this.answerSyncStep1(message.stateVector)
          return
        case 'sync-step2':
          if (this.connection.access.readOnly) this.refuseEdit(message.update)
          else this.queue(message.update)
          return
        case 'update':
          if (this.connection.access.readOnly) this.refuseEdit(message.update)
          else if (this.context.keystrokes.fanOut === 'relay') this.forward(message.update)
          else this.queue(message.update)
          return
        case 'awareness':
          // A read-only connection is not one of the person's editors: what it says about itself (focus, mode,
          // composition, selection, cursors, names) is neither presence the write path trusts nor news for the
          // other peers, so it is dropped whole, not relayed (see docs/security.md).
          if (!this.connection.access.readOnly) this.room.applyAwareness(this.connection, message.entries)
          return
        case 'query-awareness': {
          const awareness = this.room.awarenessSnapshot()
          if (awareness) this.connection.send(awareness)
          return
        }
      }
    } catch (error) {
      this.protocolError(error)
    }
  }

  /** Resolves once every edit received so far has been handed to the log (for a clean shutdown). */
  async settled(): Promise<void> {
    while (this.flushing) await this.flushing
  }

  /**
   * Answers SyncStep1 with what the peer lacks, computed from the document as the log has it (in the document's step,
   * never holding a change applied ahead of its append), and sent once everything it holds is durable: peers never
   * see a change the log could still lose. Changes recorded after this point reach the peer through the fan-out (it
   * joined the room before it could send this), so none is missed; one that arrives both ways is applied once (Yjs
   * updates are idempotent).
   */
  private async answerSyncStep1(stateVector: Uint8Array): Promise<void> {
    const docId = this.connection.docId
    let answer: { readonly update: Uint8Array; readonly position: number } | undefined
    try {
      answer = await this.context.commands.read(docId, (state) => state && { update: missingFrom(state, stateVector), position: state.position })
    } catch (error) {
      if (error instanceof MalformedMessage) this.protocolError(error)
      else this.connection.close(CLOSE.internalError, `the document could not be loaded: ${(error as Error).message}`)
      return
    }
    if (!answer) {
      this.connection.close(CLOSE.notFound, `no document ${docId}`)
      return
    }
    const { update, position } = answer
    this.context.fanout.whenDurable(position, () => this.connection.send(syncStep2Message(update)))
  }

  /**
   * `relay`: a keystroke goes to the other peers at once, once it is known to be a Yjs update (never relay bytes that
   * could break their documents), then waits its window to be appended. A SyncStep2 (a reconnecting peer's catch-up,
   * possibly large) takes the log's road.
   */
  private forward(update: Uint8Array): void {
    if (isEmptyUpdate(update)) return
    try {
      Y.decodeUpdate(update)
    } catch (error) {
      throw new MalformedMessage(`not a Yjs update: ${(error as Error).message}`)
    }
    this.room.forwardUpdate(this.connection, update, updateMessage(update))
    this.queue(update)
  }

  private queue(update: Uint8Array): void {
    this.pending.push(update)
    // Updates that arrive in the same burst (one TCP read holds many frames), or within the relay's window, become
    // one append.
    const windowMs = this.context.keystrokes.appendWindowMs
    this.flushing ??= new Promise<void>((resolve) => (windowMs > 0 ? setTimeout(resolve, windowMs) : queueMicrotask(resolve))).then(() => this.flush())
  }

  private async flush(): Promise<void> {
    try {
      while (this.pending.length > 0) {
        const batch = this.pending
        this.pending = []
        try {
          await this.context.commands.applyPeerUpdates(this.connection.docId, batch, this.connection.actor)
        } catch (error) {
          this.pending = []
          this.editFailed(error)
          return
        }
      }
    } finally {
      this.flushing = undefined
    }
  }

  /** Drops a read-only peer's edit; the first one that changes something earns it y-protocols' "permission denied". */
  private refuseEdit(update: Uint8Array): void {
    // Every client answers the server's SyncStep1 with a SyncStep2, usually empty (no structs, no deletions): no edit.
    if (this.toldReadOnly || isEmptyUpdate(update)) return
    this.toldReadOnly = true
    this.connection.send(permissionDeniedMessage('read-only connection: edits are not applied'))
  }

  private editFailed(error: unknown): void {
    if (isQuireError(error, 'INVALID_UPDATE')) this.connection.close(CLOSE.protocolError, error.message)
    else if (isQuireError(error, 'NOT_FOUND')) this.connection.close(CLOSE.notFound, 'no such document')
    else this.connection.close(CLOSE.internalError, `the edit could not be recorded: ${(error as Error).message}`)
  }

  private protocolError(error: unknown): void {
    if (error instanceof LimitExceeded) this.connection.close(error.code, error.message)
    else if (error instanceof MalformedMessage) this.connection.close(CLOSE.protocolError, `malformed message: ${error.message}`)
    else this.connection.close(CLOSE.internalError, `server error: ${(error as Error).message}`)
  }

  /** The live document; a peer whose document is gone is closed. */
  private async document(): Promise<DocumentState | undefined> {
    const docId = this.connection.docId
    try {
      const state = this.context.documents.peek(docId) ?? (await this.context.documents.get(docId))
      if (!state) this.connection.close(CLOSE.notFound, `no document ${docId}`)
      return state
    } catch (error) {
      this.connection.close(CLOSE.internalError, `the document could not be loaded: ${(error as Error).message}`)
      return undefined
    }
  }
}

/** What a peer whose state vector is `stateVector` lacks of `state`; a vector that does not decode is the peer's error. */
function missingFrom(state: DocumentState, stateVector: Uint8Array): Uint8Array {
  try {
    return Y.encodeStateAsUpdate(state.ydoc, stateVector)
  } catch (error) {
    throw new MalformedMessage(`invalid state vector: ${(error as Error).message}`)
  }
}

/** The encoding of an update that changes nothing: zero struct groups, an empty delete set. */
const isEmptyUpdate = (update: Uint8Array): boolean => update.length === 2 && update[0] === 0 && update[1] === 0
