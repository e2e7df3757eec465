import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js'
import { oversizedAnswer, oversizedMessageText, type OversizedMessage } from '../../mcp/messageLimit.js'
import type { BoundedStdioServerTransport } from '../../mcp/stdioTransport.js'

// What `quire mcp` says on stdio in both of its modes, attached to a daemon (bridge.ts) and embedded (embedded.ts).

export const BAD_TOKEN =
  'QUIRE_TOKEN is not a live agent token (unknown, or revoked): the person creates one with `quire agent add NAME` ' +
  "(it prints the token once) and sets it as QUIRE_TOKEN in this client's MCP configuration"

/** JSON-RPC's implementation-defined server error: the request was refused for its credentials. */
const UNAUTHORIZED_CODE = -32000

export function unauthorizedAnswer(id: RequestId, message: string): JSONRPCMessage {
  return { jsonrpc: '2.0', id, error: { code: UNAUTHORIZED_CODE, message, data: { error: 'UNAUTHORIZED' } } }
}

/** Answers a message that was over the limit (it was never read whole), and says so on stderr. */
export async function answerOversized(
  transport: BoundedStdioServerTransport,
  message: OversizedMessage,
  limitWhenReceived: number,
  limitNow: number,
  log: (line: string) => void,
): Promise<void> {
  const what = message.method === undefined ? 'a message' : `a ${message.method} request${message.id === undefined ? '' : ` (id ${JSON.stringify(message.id)})`}`
  const answer = oversizedAnswer(message, oversizedMessageText(message.bytes, limitNow, limitWhenReceived))
  log(
    `quire mcp: ${what} of ${message.bytes} bytes is over the MCP message limit of ${limitWhenReceived} bytes; ` +
      (answer ? 'answered with an error' : 'dropped (no request id to answer)'),
  )
  if (answer) await transport.send(answer)
}

/** Resolves when `transport` closes; an `onclose` already set still runs. */
export function untilClosed(transport: { onclose?: (() => void) | undefined }): Promise<void> {
  return new Promise((resolve) => {
    const previous = transport.onclose
    transport.onclose = () => {
      previous?.()
      resolve()
    }
  })
}

/** The AI client went away: stdin reached its end. The SDK's stdio transport does not notice this by itself. */
export function stdinEnded(): Promise<void> {
  return new Promise((resolve) => {
    process.stdin.once('end', resolve)
    process.stdin.once('close', resolve)
  })
}


/** How the AI client was seen to go away. */
export type ClientGone = 'stdin ended' | 'SIGTERM' | 'SIGHUP' | 'SIGINT' | 'parent exited'

/** How often `untilClientGone` looks whether this process's parent is still the one that started it. */
const PARENT_POLL_MS = 500

/**
 * Resolves when the AI client that launched `quire mcp` is gone: stdin reached its end (the client closed it, or
 * exited); SIGTERM, SIGHUP or SIGINT (the client, its terminal or a service manager ending this process); or this
 * process's parent exited. The last is for a launcher between the client and this process (`npx`, a shell): killed,
 * it leaves this process behind with a stdin that never ends, since the client still holds the pipe. `stop` removes
 * the signal handlers once the process is ending, so a second signal ends it at once.
 */
export function untilClientGone(): { readonly gone: Promise<ClientGone>; stop(): void } {
  const signals = ['SIGTERM', 'SIGHUP', 'SIGINT'] as const
  const handlers = new Map<NodeJS.Signals, () => void>()
  let poll: NodeJS.Timeout | undefined
  const stop = () => {
    for (const [signal, handler] of handlers) process.off(signal, handler)
    handlers.clear()
    clearInterval(poll)
  }
  const gone = new Promise<ClientGone>((resolve) => {
    const end = (why: ClientGone) => {
      stop()
      resolve(why)
    }
    void stdinEnded().then(() => end('stdin ended'))
    for (const signal of signals) {
      const handler = () => end(signal)
      handlers.set(signal, handler)
      process.once(signal, handler)
    }
    const parent = process.ppid
    poll = setInterval(() => {
      if (process.ppid !== parent) end('parent exited')
    }, PARENT_POLL_MS)
    poll.unref()
  })
  return { gone, stop }
}
