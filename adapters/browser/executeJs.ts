import { BrowserError } from './errors.js'
import type { TabHandle } from './tabHandle.js'

/**
 * `browser.execute_js` (BR.EXECUTE_JS.1–3, BR.GEN.6). The script is the body of an async function run in an isolated
 * world made for this one call: it shares the DOM with the page, not the page's globals, and not the agent library's
 * world either, so nothing it defines can be taken for a ref or a helper later. Its value crosses as JSON text, made
 * in the page: undefined becomes null, and what JSON.stringify cannot encode (a function, a symbol, a cycle, a BigInt)
 * is a SCRIPT_ERROR, as is a throw; never a result.
 */

export const MAX_SCRIPT_BYTES = 65_536
export const SCRIPT_TIMEOUT_MS = 9_000

export interface ExecuteJsResult {
  /** The script's value, as JSON decodes it; page data, untrusted (BR.EXECUTE_JS.6). */
  readonly result: unknown
  readonly url: string
  readonly generation: number
}

function wrap(script: string): string {
  // The body goes on lines of its own so a trailing line comment in it cannot swallow the closing brace.
  return `(async () => {
  const describe = (error) => (error instanceof Error ? error.name + ': ' + error.message : 'thrown: ' + String(error))
  let value
  try {
    value = await (async function () {
${script}
    })()
  } catch (error) {
    return { threw: describe(error) }
  }
  if (value === undefined) return { json: 'null' }
  let json
  try { json = JSON.stringify(value) } catch (error) { return { unencodable: describe(error) } }
  if (json === undefined) return { unencodable: 'a ' + typeof value + ' is not JSON' }
  return { json }
})()`
}

export async function runExecuteJs(tab: TabHandle, script: string, options: { readonly timeoutMs?: number } = {}): Promise<ExecuteJsResult> {
  if (typeof script !== 'string' || script.trim() === '') throw new BrowserError('INVALID_ARGUMENT', 'script must be a non-empty async function body')
  if (Buffer.byteLength(script, 'utf8') > MAX_SCRIPT_BYTES) throw new BrowserError('INVALID_ARGUMENT', `script must be at most ${MAX_SCRIPT_BYTES} UTF-8 bytes`)
  const timeoutMs = options.timeoutMs ?? SCRIPT_TIMEOUT_MS
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > SCRIPT_TIMEOUT_MS) {
    throw new BrowserError('INVALID_ARGUMENT', `timeoutMs must be an integer from 1 to ${SCRIPT_TIMEOUT_MS}`)
  }
  const outcome = await tab.session.evaluateInFreshWorld(wrap(script), timeoutMs)
  const where = { url: tab.url(), generation: tab.generation() }
  if (outcome === 'timeout') {
    throw new BrowserError('EVAL_TIMEOUT', `the script did not finish within ${timeoutMs} ms; it may still have had its effect, read the page before acting again`, {
      ...where, detail: { indeterminate: true },
    })
  }
  if ('exception' in outcome) throw new BrowserError('SCRIPT_ERROR', outcome.exception, where)
  const answer = outcome.value as { threw?: string; unencodable?: string; json?: string } | undefined
  if (answer?.threw !== undefined) throw new BrowserError('SCRIPT_ERROR', answer.threw, where)
  if (answer?.unencodable !== undefined) throw new BrowserError('SCRIPT_ERROR', `the value cannot be returned as JSON (${answer.unencodable})`, where)
  if (typeof answer?.json !== 'string') throw new BrowserError('SCRIPT_ERROR', 'the script did not answer', where)
  let result: unknown
  try {
    result = JSON.parse(answer.json)
  } catch {
    // Only a script that replaced JSON.stringify in its own world gets here.
    throw new BrowserError('SCRIPT_ERROR', 'the value did not arrive as JSON', where)
  }
  return { result, ...where }
}
