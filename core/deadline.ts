/**
 * Whether `promise` settles (either way) within `ms`. The promise keeps running after a `false`: callers use this to
 * stop waiting, not to cancel.
 */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return (await durableWithin(promise.then(() => undefined), ms)) !== 'late'
}

/** How an append's durability settled within a deadline: on disk, still on its way (it keeps going), or failed for good. */
export type Durability = 'durable' | 'late' | 'failed'

/**
 * The one "durable within a deadline" of core: waits for an append's `durable` at most `ms`. A late append keeps
 * going (the log retries it in the background); a failed one was rolled back by the log and will never land.
 */
export async function durableWithin(durable: Promise<void>, ms: number): Promise<Durability> {
  let timer: NodeJS.Timeout | undefined
  try {
    return await Promise.race([
      durable.then(
        (): Durability => 'durable',
        (): Durability => 'failed',
      ),
      new Promise<Durability>((resolve) => {
        timer = setTimeout(() => resolve('late'), ms)
      }),
    ])
  } finally {
    clearTimeout(timer)
  }
}
