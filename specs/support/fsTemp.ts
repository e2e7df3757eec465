import { mkdtemp, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach } from 'vitest'

/**
 * Fresh temp directories for file-system tests, in their realpath form (the adapters operate on real paths, and on
 * some systems the temp dir itself sits behind a symlink). Removed after each test, or after the file with `scope:
 * 'file'` for fixtures built once in `beforeAll`.
 */
export function useFsTempDirs(scope: 'test' | 'file' = 'test'): () => Promise<string> {
  const made: string[] = []
  const cleanUp = async (): Promise<void> => {
    await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })))
  }
  if (scope === 'test') afterEach(cleanUp)
  else afterAll(cleanUp)
  return async () => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), 'quire-fs-')))
    made.push(dir)
    return dir
  }
}

/** Resolves when `predicate` holds, polling every 5 ms; rejects after `timeoutMs`. */
export async function waitFor(predicate: () => boolean, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`)
    await sleep(5)
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** A promise with its resolver exposed, to hold a fault hook or a queued job at a step until the test lets it go. */
export interface Gate {
  readonly promise: Promise<void>
  open(): void
}

export function gate(): Gate {
  let open!: () => void
  const promise = new Promise<void>((resolve) => (open = resolve))
  return { promise, open }
}
