import process from 'node:process'
import type { Readable, Writable } from 'node:stream'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { MessageHeadReader } from './messageHead.js'
import { MESSAGE_LIMIT_CEILING, type OversizedMessage } from './messageLimit.js'

const NEWLINE = 0x0a

export interface BoundedStdioOptions {
  /** The most bytes one message may have, read as each message begins (a person's setting may change it). */
  readonly limit: () => number
  /**
   * A message over the limit has ended. It was never held: only its size and, as far as they could be read on the
   * way, its id and method are known. `limit` is the limit it was measured against.
   */
  readonly onOversized: (message: OversizedMessage, limit: number) => void
  readonly stdin?: Readable
  readonly stdout?: Writable
}

/**
 * MCP's stdio transport (newline-delimited JSON-RPC on stdin and stdout) with a bound on each message that answers
 * instead of failing. The SDK's `StdioServerTransport` buffers without a per-message bound and closes the whole
 * connection past 10 MiB of buffered input; this one holds at most `limit()` bytes of a message: past that it stops
 * holding the message, reads on to its end in constant memory (keeping only its id and method) and reports it to
 * `onOversized`, then goes on with the next message. A line that is not JSON-RPC gets the JSON-RPC error the spec
 * asks for, and the connection stays up.
 */
export class BoundedStdioServerTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void
  onerror?: (error: Error) => void
  onclose?: () => void

  private readonly stdin: Readable
  private readonly stdout: Writable
  private started = false
  /** The pieces of the message being read, while it is within its limit. */
  private pieces: Buffer[] = []
  private held = 0
  private lineLimit: number | undefined
  /** The message being read once it went over its limit. */
  private oversized: { reader: MessageHeadReader; bytes: number; limit: number } | undefined

  constructor(private readonly options: BoundedStdioOptions) {
    this.stdin = options.stdin ?? process.stdin
    this.stdout = options.stdout ?? process.stdout
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('BoundedStdioServerTransport already started')
    this.started = true
    this.stdin.on('data', this.ondata)
    this.stdin.on('error', this.onstdinerror)
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(`${JSON.stringify(message)}\n`)) resolve()
      else this.stdout.once('drain', resolve)
    })
  }

  async close(): Promise<void> {
    this.stdin.off('data', this.ondata)
    this.stdin.off('error', this.onstdinerror)
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause()
    this.pieces = []
    this.held = 0
    this.oversized = undefined
    this.onclose?.()
  }

  private readonly ondata = (chunk: Buffer): void => {
    try {
      let start = 0
      while (start < chunk.length) {
        const newline = chunk.indexOf(NEWLINE, start)
        this.append(chunk.subarray(start, newline === -1 ? chunk.length : newline))
        if (newline === -1) return
        this.endMessage()
        start = newline + 1
      }
    } catch (error) {
      this.onerror?.(error as Error)
    }
  }

  private readonly onstdinerror = (error: Error): void => {
    this.onerror?.(error)
  }

  private append(piece: Buffer): void {
    if (piece.length === 0) return
    if (this.oversized) {
      this.oversized.reader.feed(piece)
      this.oversized.bytes += piece.length
      return
    }
    this.lineLimit ??= Math.min(this.options.limit(), MESSAGE_LIMIT_CEILING)
    if (this.held + piece.length <= this.lineLimit) {
      this.pieces.push(piece)
      this.held += piece.length
      return
    }
    const reader = new MessageHeadReader()
    for (const held of this.pieces) reader.feed(held)
    reader.feed(piece)
    this.oversized = { reader, bytes: this.held + piece.length, limit: this.lineLimit }
    this.pieces = []
    this.held = 0
  }

  private endMessage(): void {
    const oversized = this.oversized
    const pieces = this.pieces
    this.oversized = undefined
    this.pieces = []
    this.held = 0
    this.lineLimit = undefined
    if (oversized) {
      this.options.onOversized({ ...oversized.reader.head(), bytes: oversized.bytes }, oversized.limit)
      return
    }
    const line = Buffer.concat(pieces).toString('utf8').replace(/\r$/, '')
    if (line.trim() === '') return
    let parsed: unknown
    try {
      parsed = JSON.parse(line)
    } catch {
      this.refuse(-32700, 'Parse error: a line on stdin is not JSON (MCP over stdio is one JSON-RPC message per line)', undefined)
      return
    }
    const message = JSONRPCMessageSchema.safeParse(parsed)
    if (!message.success) {
      const id = (parsed as { id?: unknown } | null)?.id
      this.refuse(-32600, 'Invalid Request: the line is JSON but not a JSON-RPC 2.0 message', typeof id === 'string' || typeof id === 'number' ? id : undefined)
      return
    }
    this.onmessage?.(message.data)
  }

  private refuse(code: number, message: string, id: string | number | undefined): void {
    this.onerror?.(new Error(message))
    void this.send({ jsonrpc: '2.0', ...(id === undefined ? {} : { id }), error: { code, message } } as JSONRPCMessage)
  }
}
