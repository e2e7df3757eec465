/**
 * Where Redis is, from the `--redis` value: `redis://[user:password@]host[:port][/db]`, `rediss://…` (TLS), or
 * `unix:///path/to/redis.sock` (ioredis's own URL parser mangles the last, so its path is taken here).
 */
export type RedisTarget = { readonly url: string } | { readonly path: string }

export function redisTarget(value: string): RedisTarget {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new Error(`${describe(value)} is not a Redis address: give redis://HOST[:PORT][/DB], rediss://… or unix:///path/to/redis.sock`)
  }
  if (url.protocol === 'redis:' || url.protocol === 'rediss:') {
    if (!url.hostname) throw new Error(`${describe(value)} names no host: give redis://HOST[:PORT][/DB]`)
    return { url: value }
  }
  if (url.protocol === 'unix:') {
    const path = decodeURIComponent(url.pathname)
    if (url.hostname || !path.startsWith('/') || path === '/') throw new Error(`${describe(value)} names no socket: give unix:///path/to/redis.sock`)
    return { path }
  }
  throw new Error(`${describe(value)} is not a Redis address (${url.protocol} given): give redis://HOST[:PORT][/DB], rediss://… or unix:///path/to/redis.sock`)
}

/** The value as it may be shown: a password in it is never repeated. */
export function describeRedisTarget(target: RedisTarget): string {
  if ('path' in target) return `unix://${target.path}`
  const url = new URL(target.url)
  if (url.password) url.password = '***'
  return url.toString()
}

function describe(value: string): string {
  const shown = value.length > 200 ? `${value.slice(0, 200)}…` : value
  // Whatever sits between "//" and "@" may be a credential.
  return JSON.stringify(shown.replace(/\/\/[^/@]*@/, '//***@'))
}
