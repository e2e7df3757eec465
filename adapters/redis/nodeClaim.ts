import type { Redis } from 'ioredis'

/**
 * Takes the key for this instance, or renews it: a key another instance holds is left alone, and how long it still
 * lives is answered instead (`{1, 0}` held by the caller, `{0, ms}` held by another).
 */
const TAKE = `
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] or not holder then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return {1, 0}
end
return {0, redis.call('PTTL', KEYS[1])}
`

/** Deletes the key if this instance holds it, and only then. */
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`

export type ClaimAnswer = { readonly held: true } | { readonly held: false; readonly expiresInMs: number }

/**
 * A node's id held in Redis while it shares presence: one key per id, holding a random token of the process that
 * holds it, with a time to live the holder renews at every heartbeat. Two processes given the same id cannot both
 * hold it; a holder that died without a word lets go of it when the time to live runs out.
 */
export class NodeClaim {
  constructor(
    private readonly redis: Redis,
    readonly key: string,
    readonly instance: string,
    private readonly ttlMs: number,
  ) {}

  /** Takes or renews the claim, atomically; rejects when Redis cannot be asked. */
  async take(): Promise<ClaimAnswer> {
    const answer = (await this.redis.eval(TAKE, 1, this.key, this.instance, String(this.ttlMs))) as [number, number]
    // A key without a time to live (PTTL -1) was not set by a node: it is treated as held for a full time to live.
    return answer[0] === 1 ? { held: true } : { held: false, expiresInMs: answer[1] < 0 ? this.ttlMs : answer[1] }
  }

  /** Lets go of the claim if this instance holds it, so a node restarted with the same id need not wait. */
  async release(): Promise<void> {
    await this.redis.eval(RELEASE, 1, this.key, this.instance)
  }
}
