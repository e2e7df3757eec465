import { createHash } from 'node:crypto'
import { realpathSync } from 'node:fs'
import { resolve } from 'node:path'
import { inject } from 'vitest'

/**
 * The suite's run on PostgreSQL: in the `postgres` vitest project (its global set-up provides a database), every
 * Quire process a test starts for a data directory keeps its log there instead of in the directory, in a schema of
 * the directory's own, so each test still starts from an empty log and reopening the directory finds its log again.
 * Undefined in the default project: the log is the directory's, as a user's is.
 */
export function testStoreFor(home: string): string | undefined {
  const base = inject('quireTestStore')
  if (!base) return undefined
  const schema = `h_${createHash('sha256').update(canonical(home)).digest('hex').slice(0, 24)}`
  return `${base}${base.includes('?') ? '&' : '?'}schema=${schema}`
}

/** The environment entries that point a child process for `home` at its test store (none without one). */
export function testStoreEnv(home: string): Record<string, string> {
  const store = testStoreFor(home)
  return store === undefined ? {} : { QUIRE_STORE: store }
}

function canonical(home: string): string {
  try {
    return realpathSync(home)
  } catch {
    return resolve(home)
  }
}

/** `options` for an in-process Quire on `home`, pointed at its test store when there is one (and none is given). */
export function withTestStore<Options extends object>(home: string, options: Options): Options & { readonly store?: string } {
  const store = testStoreFor(home)
  return store === undefined || 'store' in options ? options : { ...options, store }
}
