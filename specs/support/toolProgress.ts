import { CallToolResultSchema, type CallToolResult, type Progress } from '@modelcontextprotocol/sdk/types.js'
import type { Session } from './mcpHarness.js'

/**
 * A tool call made as a client that follows its progress: the SDK sends a progress token when `onprogress` is given,
 * and resets its timeout on each notification. `notes` fills as they arrive; `signal` cancels the call (the SDK then
 * sends `notifications/cancelled`).
 */
export function callWithProgress(session: Session, name: string, args: Record<string, unknown>, signal?: AbortSignal): { notes: Progress[]; result: Promise<CallToolResult> } {
  const notes: Progress[] = []
  const result = session.client.callTool({ name, arguments: args }, CallToolResultSchema, {
    onprogress: (progress) => notes.push(progress),
    resetTimeoutOnProgress: true,
    timeout: 120_000,
    ...(signal === undefined ? {} : { signal }),
  }) as Promise<CallToolResult>
  // A cancelled call rejects; nobody may be left with an unhandled rejection before the test awaits it.
  result.catch(() => {})
  return { notes, result }
}

/** What `probe` answers once it answers something, polled every 50 ms; fails naming `what` after `ms`. */
export async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
