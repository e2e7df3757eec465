import { createHash, createHmac, randomBytes } from 'node:crypto'
import { printWorkflow } from '../print.js'
import type { BoundInputs } from '../substitute.js'
import type { Workflow } from '../types.js'

/**
 * What makes two runs "the same workflow with the same inputs" for the completed-writes ledger (BR.WORKFLOW_RUN.8).
 *
 * The workflow is compared in its printed form, so a re-indent, comments or another numbering style keep the ledger
 * while any change to a step, an input or the site starts a new one.
 *
 * Inputs are compared by a keyed digest whose key lives only as long as this process: within one daemon's life the
 * same inputs give the same digest, and the log, which keeps it, holds nothing a guessed password could be checked
 * against. So the ledger's "session" is the daemon's life: a restart starts every workflow afresh (its tabs, and the
 * pages a write went to, are gone too), while an assistant that reconnects within it still finds its writes recorded.
 */
const INPUTS_KEY = randomBytes(32)

export function sourceDigest(workflow: Workflow): string {
  return createHash('sha256').update(printWorkflow(workflow), 'utf8').digest('hex')
}

export function inputsDigest(inputs: BoundInputs): string {
  const mac = createHmac('sha256', INPUTS_KEY)
  for (const name of [...inputs.keys()].sort()) {
    // Length-prefixed, so no two different maps feed the same bytes.
    const value = inputs.get(name)!
    mac.update(`${name.length}:${name}${Buffer.byteLength(value, 'utf8')}:`, 'utf8').update(value, 'utf8')
  }
  return mac.digest('hex')
}
