/**
 * The header `quire mcp` sends with every request it relays to the daemon: its pid. It marks the MCP session as held
 * by that process (mcpRoute.ts ends the session soon after the process's connections close), and the person sees
 * the pid next to the session (`quire agent list`). Its own file: the bridge loads it without the daemon's code.
 */
export const BRIDGE_PID_HEADER = 'quire-bridge-pid'

/** The pid in a BRIDGE_PID_HEADER value; null for no header or anything but a pid. */
export function parseBridgePid(value: string | undefined): number | null {
  return value !== undefined && /^[1-9]\d{0,9}$/.test(value) ? Number(value) : null
}
