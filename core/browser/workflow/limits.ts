import type { Workflow } from './types.js'

/**
 * The bounds of one run (TOOLS.md §12 limits table; VMark's run-request validation). The runner enforces them, not
 * the parser: VMark has no diagnostic code for them, and a too-long workflow still deserves its diagnostics. The
 * source size is checked before parsing (so no run parses more than this), the step count after it. The input bounds
 * are VMark's too (at most 64 inputs, each value at most 4 KiB of UTF-8); substitute.ts applies them.
 */
export const WORKFLOW_LIMITS = {
  /** BR.WORKFLOW_RUN.11: UTF-8 bytes of `source`. */
  sourceBytes: 64 * 1024,
  /** BR.WORKFLOW_RUN.10. */
  steps: 25,
  inputs: 64,
  /** UTF-8 bytes of one input value. */
  inputValueBytes: 4 * 1024,
} as const

export type LimitViolation =
  | { readonly code: 'source-too-large'; readonly bytes: number; readonly limit: number; readonly message: string }
  | { readonly code: 'too-many-steps'; readonly steps: number; readonly limit: number; readonly message: string }

/** UTF-8 bytes, as a client would send them (a lone surrogate counts as the three bytes of U+FFFD). */
export const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8')

export function checkSourceSize(source: string): LimitViolation | undefined {
  const bytes = utf8Bytes(source)
  if (bytes <= WORKFLOW_LIMITS.sourceBytes) return undefined
  return { code: 'source-too-large', bytes, limit: WORKFLOW_LIMITS.sourceBytes, message: `The workflow source is ${bytes} bytes; at most ${WORKFLOW_LIMITS.sourceBytes} run.` }
}

export function checkStepCount(workflow: Workflow): LimitViolation | undefined {
  const steps = workflow.steps.length
  if (steps <= WORKFLOW_LIMITS.steps) return undefined
  return { code: 'too-many-steps', steps, limit: WORKFLOW_LIMITS.steps, message: `The workflow has ${steps} steps; at most ${WORKFLOW_LIMITS.steps} run.` }
}
