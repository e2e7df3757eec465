/**
 * How a peer's keystroke travels to the other peers of its room, and when it is handed to the log.
 *
 * `durable` (the default, DESIGN §3): only through the log fan-out, once the keystroke's event is on disk. Every
 * keystroke is its own synced write unless others queue behind an in-flight one.
 *
 * `relay`: the keystroke is checked (a decodable Yjs update from a writable connection), sent at once to the room's
 * other peers as it was received, and recorded like any other edit: appended after at most `appendWindowMs`, the
 * keystrokes of that window in one append (one synced write). The log fan-out then skips the peers that already had
 * it. Nothing is acknowledged early: the server's document, its revision, MCP reads and a joining peer's SyncStep2
 * see the keystroke only once it is appended, and SyncStep2 still waits for the disk. What changes is that peers
 * may hold a keystroke the log could still lose in a crash; they hold it as its author does, and give it back
 * when they reconnect (a y-websocket resync sends the server what it lacks).
 */
export interface KeystrokePolicy {
  readonly fanOut: 'durable' | 'relay'
  /** `relay` only: the longest a session gathers keystrokes before appending them (0: append each at once). */
  readonly appendWindowMs: number
}

export const DURABLE_FAN_OUT: KeystrokePolicy = Object.freeze({ fanOut: 'durable', appendWindowMs: 0 })

/**
 * The policy `quire serve` runs with: `QUIRE_COLLAB_FANOUT=relay` (and `QUIRE_COLLAB_APPEND_WINDOW_MS`, default 20)
 * turns relaying on, for measuring it against the default; anything else is refused with the accepted values.
 */
export function keystrokePolicyFromEnvironment(env: NodeJS.ProcessEnv): KeystrokePolicy {
  const fanOut = env.QUIRE_COLLAB_FANOUT ?? 'durable'
  if (fanOut === 'durable') return DURABLE_FAN_OUT
  if (fanOut !== 'relay') throw new Error(`QUIRE_COLLAB_FANOUT must be durable or relay, not ${JSON.stringify(fanOut)}`)
  const raw = env.QUIRE_COLLAB_APPEND_WINDOW_MS ?? '20'
  const appendWindowMs = Number(raw)
  if (!Number.isInteger(appendWindowMs) || appendWindowMs < 0 || appendWindowMs > 1_000) {
    throw new Error(`QUIRE_COLLAB_APPEND_WINDOW_MS must be a whole number of ms from 0 to 1000, not ${JSON.stringify(raw)}`)
  }
  return Object.freeze({ fanOut: 'relay', appendWindowMs })
}
