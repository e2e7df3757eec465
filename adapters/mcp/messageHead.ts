import type { RequestId } from '@modelcontextprotocol/sdk/types.js'

/** The longest `id` or `method` value it keeps (quotes included); longer ones are not an MCP request's. */
const MAX_VALUE_BYTES = 256
/** The longest key it keeps: only `id` and `method` matter. */
const MAX_KEY_BYTES = 8

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COLON = 0x3a
const COMMA = 0x2c
const OPEN_OBJECT = 0x7b
const CLOSE_OBJECT = 0x7d
const OPEN_ARRAY = 0x5b
const CLOSE_ARRAY = 0x5d

/**
 * Reads the top-level `id` and `method` of one JSON-RPC message fed to it in pieces, in constant memory: a message
 * over the limit is never held, yet its request can be answered by id. A byte-level JSON tokenizer that tracks
 * string, escape and nesting state; only the values of the top-level keys `id` and `method` are kept. The SDK writes
 * `id` after `params` (the huge part), so the whole message is read, once. Malformed JSON yields what was read, which
 * may be nothing.
 */
export class MessageHeadReader {
  private depth = 0
  private inString = false
  private escaped = false
  /** At depth 1, whether the next string is a key (after `{` or `,`) rather than a value (after `:`). */
  private expectingKey = false
  private key: number[] | undefined
  private currentKey: string | undefined
  /** The raw bytes of the top-level value being kept (`id` or `method`), while it is read. */
  private value: number[] | undefined
  private valueKey: string | undefined
  private readonly kept = new Map<string, string>()

  feed(bytes: Uint8Array): void {
    for (let i = 0; i < bytes.length; i++) {
      const byte = bytes[i]!
      if (this.inString) {
        this.keep(byte)
        if (this.escaped) this.escaped = false
        else if (byte === BACKSLASH) this.escaped = true
        else if (byte === QUOTE) this.endString()
        continue
      }
      if (this.value !== undefined && this.depth === 1 && (byte === COMMA || byte === CLOSE_OBJECT || isSpace(byte))) this.endValue()
      switch (byte) {
        case QUOTE:
          this.inString = true
          if (this.depth === 1 && this.expectingKey) this.key = []
          else this.startValue()
          this.keep(byte)
          break
        case OPEN_OBJECT:
        case OPEN_ARRAY:
          this.depth++
          if (this.depth === 1) this.expectingKey = byte === OPEN_OBJECT
          break
        case CLOSE_OBJECT:
        case CLOSE_ARRAY:
          this.depth--
          break
        case COLON:
          if (this.depth === 1) {
            this.expectingKey = false
            this.valueKey = this.currentKey
            this.currentKey = undefined
          }
          break
        case COMMA:
          if (this.depth === 1) {
            this.expectingKey = true
            this.valueKey = undefined
          }
          break
        default:
          if (!isSpace(byte)) {
            this.startValue()
            this.keep(byte)
          }
      }
    }
  }

  /** The request's id and method, as far as they were read. */
  head(): { id: RequestId | undefined; method: string | undefined } {
    if (this.value !== undefined) this.endValue()
    const id = parseScalar(this.kept.get('id'))
    const method = parseScalar(this.kept.get('method'))
    return {
      id: typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : undefined,
      method: typeof method === 'string' ? method : undefined,
    }
  }

  private startValue(): void {
    if (this.depth === 1 && this.value === undefined && (this.valueKey === 'id' || this.valueKey === 'method')) this.value = []
  }

  private keep(byte: number): void {
    if (this.key !== undefined) {
      if (this.key.length <= MAX_KEY_BYTES) this.key.push(byte)
    } else if (this.value !== undefined && this.value.length <= MAX_VALUE_BYTES) {
      this.value.push(byte)
    }
  }

  private endString(): void {
    this.inString = false
    if (this.key !== undefined) {
      this.currentKey = this.key.length <= MAX_KEY_BYTES ? Buffer.from(this.key.slice(1, -1)).toString('latin1') : undefined
      this.key = undefined
    } else if (this.value !== undefined) {
      this.endValue()
    }
  }

  private endValue(): void {
    const value = this.value!
    this.value = undefined
    if (this.valueKey !== undefined && value.length <= MAX_VALUE_BYTES) this.kept.set(this.valueKey, Buffer.from(value).toString('utf8'))
    this.valueKey = undefined
  }
}

function parseScalar(raw: string | undefined): unknown {
  if (raw === undefined) return undefined
  try {
    return JSON.parse(raw)
  } catch {
    return undefined
  }
}

const isSpace = (byte: number): boolean => byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d
