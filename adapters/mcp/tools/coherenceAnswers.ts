import { z } from 'zod'
import { isCoherenceRefusal } from '../../../core/coherence/refusal.js'
import type { ToolContext } from '../context.js'
import { rawResult, type RawResult } from '../defineTool.js'
import { MAX_OUTPUT_BYTES, plainError, success } from '../results.js'

/**
 * What the two coherence tools share (TOOLS.md §10–§11, research/vmark.md §8.5): the `workspace_root` argument, the
 * plain-string answers of every refusal (COH.GEN.6, ERR.3–4: never an envelope), the 20 s `TIMEOUT` after which the
 * work goes on with its outcome unknown (COH.GEN.8, COHR.RESOLVE.9), and array answers.
 */

/** Checked by the core (absolute, a directory, a workspace open in Quire), so a missing one gets VMark's words. */
export const workspaceRoot = z.string().optional().describe('the absolute path of a workspace open in Quire (every action)')

/**
 * Runs `work` (validating `workspace_root` first, inside the same deadline) and answers what it returns, a refusal
 * as a plain string, or `TIMEOUT` once `answerWithinMs` has passed. The work is not cancelled: an `edges` reconcile
 * or a resolution still lands, and what it does after the answer is recorded as any other append.
 */
export async function coherenceAnswer(
  context: ToolContext,
  call: string,
  rawRoot: string | undefined,
  work: (root: string) => Promise<Record<string, unknown> | RawResult>,
): Promise<Record<string, unknown> | RawResult> {
  const coherence = context.services.coherence
  const answer = coherence.workspaceRoot(rawRoot).then(work)
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), coherence.answerWithinMs)
  })
  try {
    const first = await Promise.race([answer, late])
    if (first === 'late') {
      // Nobody waits for it any more; a failure after the answer must not become an unhandled rejection.
      answer.catch(() => {})
      return rawResult(
        plainError(`TIMEOUT: ${call} did not finish within ${coherence.answerWithinMs} ms; it keeps running and its outcome is unknown — read the current state (coherence.edges) before retrying`),
      )
    }
    return first
  } catch (error) {
    if (isCoherenceRefusal(error)) return rawResult(plainError(error.message))
    throw error
  } finally {
    clearTimeout(timer)
  }
}

/**
 * An answer that is a JSON array, as VMark's bridge answers `edges`, `claims` and `contexts`: the text is the array
 * itself; `structuredContent`, which MCP requires to be an object, carries it under `key`. Past the output bound it is
 * the truncation envelope, as every other answer.
 */
export function arrayAnswer(key: string, items: readonly unknown[], recovery: string): RawResult {
  const text = JSON.stringify(items, null, 2)
  if (Buffer.byteLength(text, 'utf8') > MAX_OUTPUT_BYTES) return rawResult(success({ [key]: items }, recovery))
  return rawResult({ isError: false, content: [{ type: 'text', text }], structuredContent: { [key]: items } })
}
