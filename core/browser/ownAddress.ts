/**
 * The daemon's own addresses, which no assistant's tab may load whatever the posture or the person's approvals: the
 * console, its API (state, approvals, the live view of the person's tabs) and `/mcp` all live there, and the person's
 * console cookie rides along with any page of it the embedded browser loads.
 *
 * A URL is the daemon's when it names a port the daemon listens on (a scheme's default port counts) on a host that
 * reaches it: every loopback spelling (127.0.0.0/8, `localhost` and `*.localhost`, which Chromium resolves itself,
 * `[::1]`, the unspecified `0.0.0.0` and `[::]`), the address it listens on, any of the machine's addresses when it
 * listens on all of them, and each name the operator allowed with `--allow-host` (on its own port, when it names
 * one). Hosts arrive canonical: the URL parser has already turned `127.1`, `0x7f.0.0.1` and `LOCALHOST` into
 * `127.0.0.1` and `localhost`.
 */
export interface OwnServer {
  readonly port: number
  /** The address it listens on (`127.0.0.1`, `0.0.0.0` for every address, …). */
  readonly listenHost: string
  /** `--allow-host` names, with or without a port. */
  readonly allowedHosts: readonly string[]
  /** The machine's own addresses, consulted when it listens on every address. */
  readonly machineAddresses: readonly string[]
}

const WILDCARDS = new Set(['0.0.0.0', '::', '[::]'])

/** `[::1]` → `::1`, `localhost.` → `localhost`, lower case. */
function bareHost(host: string): string {
  return host.toLowerCase().replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '')
}

/** A host that reaches this machine's loopback interface (or its unspecified address) from the browser. */
export function isLoopbackHost(host: string): boolean {
  const bare = bareHost(host)
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare) || bare === '0.0.0.0') return true
  // ::1, ::, and IPv4-mapped 127/8 (the parser writes ::ffff:127.0.0.1 as ::ffff:7f00:1).
  return bare === '::1' || bare === '::' || /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(bare)
}

/** The port a URL reaches: its own, or its scheme's default. */
function portOf(url: URL): number {
  if (url.port !== '') return Number(url.port)
  return url.protocol === 'https:' ? 443 : 80
}

/** Whether `raw` (an absolute URL) is an address of one of `servers`. Anything but http(s) is not. */
export function isOwnAddress(raw: string, servers: readonly OwnServer[]): boolean {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return false
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false
  const host = bareHost(url.hostname)
  const port = portOf(url)
  return servers.some((server) => {
    const allowed = server.allowedHosts.some((entry) => {
      const named = /^(.*):(\d+)$/.exec(entry)
      return named ? bareHost(named[1]!) === host && Number(named[2]) === port : bareHost(entry) === host && port === server.port
    })
    if (allowed) return true
    if (port !== server.port) return false
    if (isLoopbackHost(host) || bareHost(server.listenHost) === host) return true
    return WILDCARDS.has(server.listenHost) && server.machineAddresses.some((address) => bareHost(address) === host)
  })
}
