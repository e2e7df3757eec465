import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js'
import { MCP_MESSAGE_LIMIT_RANGE } from '../../core/settings/events.js'

/** The setting that bounds one MCP message, over stdio and over HTTP alike. */
export const MESSAGE_LIMIT_SETTING = 'mcpMessageLimitBytes'

/** No message is ever taken past this, whatever the setting says (its own upper bound). */
export const MESSAGE_LIMIT_CEILING = MCP_MESSAGE_LIMIT_RANGE.max

/** The JSON-RPC error code of a refused message: the SDK's own code for an HTTP body over its limit. */
export const MESSAGE_TOO_LARGE_CODE = -32000

/** What a message over the limit was, as far as it could be read without holding it. */
export interface OversizedMessage {
  /** The request's id, when one could be read; undefined for a notification, a response or an unreadable head. */
  readonly id: RequestId | undefined
  /** The method, when one could be read. */
  readonly method: string | undefined
  /** The message's size in bytes (exact over stdio; over HTTP at least this much). */
  readonly bytes: number
}

/**
 * The refusal's words: the limit, the setting and how to raise it. `bytes` is the message's size when known (an
 * HTTP body streamed without a length is not read past the limit); `limit` is the limit now, `limitWhenReceived`
 * the one that refused the message, when a person changed it since.
 */
export function oversizedMessageText(bytes: number | undefined, limit: number, limitWhenReceived = limit): string {
  const size =
    `This MCP message is ${bytes === undefined ? 'larger than' : `${bytes} bytes, over`} the message limit of ` +
    `${limitWhenReceived} bytes (${mib(limitWhenReceived)})`
  if (bytes !== undefined && bytes <= limit) {
    return `${size} when it arrived; the limit is now ${limit} bytes, so send it again.`
  }
  return (
    `${size}, so it was not processed and nothing changed. Send less in one call, or ask the person to raise the ` +
    `limit: \`quire settings set ${MESSAGE_LIMIT_SETTING} BYTES\` (at most ${MESSAGE_LIMIT_CEILING} bytes).`
  )
}

/**
 * The answer to a refused request: a `tools/call` gets a tool result with `isError` (the model reads it and can act
 * on it, ERR.3); any other request a JSON-RPC error. Undefined when there is nothing to answer (a notification, a
 * response, or an id that could not be read).
 */
export function oversizedAnswer(message: OversizedMessage, text: string): JSONRPCMessage | undefined {
  if (message.id === undefined || message.method === undefined) return undefined
  if (message.method === 'tools/call') {
    return { jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text }], isError: true } }
  }
  return { jsonrpc: '2.0', id: message.id, error: { code: MESSAGE_TOO_LARGE_CODE, message: text } }
}

function mib(bytes: number): string {
  const value = bytes / (1024 * 1024)
  return `${Number.isInteger(value) ? value : value.toFixed(2)} MiB`
}
