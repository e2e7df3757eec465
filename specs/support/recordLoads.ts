import { appendFileSync } from 'node:fs'
import { register, type LoadHook } from 'node:module'
import { isMainThread } from 'node:worker_threads'

/**
 * `NODE_OPTIONS=--import=<this file, compiled>`: every ES module the process loads is appended, one URL a line, to
 * the file `QUIRE_TEST_LOADS` names. The file registers itself as the loader hooks, which Node runs on a thread of
 * its own; there it only exports the hook.
 */
if (isMainThread) register(import.meta.url)

export const load: LoadHook = (url, context, nextLoad) => {
  const file = process.env.QUIRE_TEST_LOADS
  if (file) appendFileSync(file, `${url}\n`)
  return nextLoad(url, context)
}
