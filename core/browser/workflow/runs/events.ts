import { z } from 'zod'
import { defineEvent } from '../../../events/schema.js'
import { STEP_KINDS } from '../types.js'

/**
 * The `browser-runs` stream: every workflow run, step, approval wait and outcome (issue 15 item 3), so a run can be
 * audited and its status survives a restart. The browser's own actions (each click, type, navigation, extract a run
 * does) are still recorded one by one in the `browser` stream; this stream says which run they belonged to and how
 * it went.
 *
 * What it never holds: an input's value (a workflow's inputs are often credentials), nor the substituted step text.
 * A run keeps its inputs' NAMES and a digest keyed per daemon process (identity.ts), enough for the completed-writes
 * ledger to know "the same inputs" within the daemon's life and nothing to recover or guess a value from.
 */
export const WORKFLOW_RUNS_STREAM = 'browser-runs'

export const RUN_STATUSES = ['running', 'paused', 'completed', 'failed', 'cancelled', 'superseded'] as const
export type RunStatus = (typeof RUN_STATUSES)[number]
export type TerminalRunStatus = Exclude<RunStatus, 'running' | 'paused'>

/** How one step ended (a step not reached yet is `pending` in the status, never in an event). */
export const STEP_OUTCOMES = ['success', 'failed', 'skipped'] as const
export type StepOutcome = (typeof STEP_OUTCOMES)[number]

const runId = z.string().min(1).max(64)
const index = z.number().int().min(1).max(1_000)
const code = z.string().min(1).max(64)
/** Reasons are cut to this by the decider (an engine's message may quote a long name). */
export const REASON_CHARS = 2_000
const reason = z.string().max(REASON_CHARS)

export const RunStarted = defineEvent({
  type: 'browser.run.started',
  version: 1,
  schema: z
    .object({
      runId,
      tabId: z.string().min(1).max(64),
      /** The engine principal whose tab it runs on (the ledger is per principal). */
      principal: z.string().min(1).max(256),
      connection: z.string().min(1).max(256),
      site: z.string().max(65_536),
      /** sha256 of the workflow in its printed (canonical) form. */
      sourceDigest: z.string().regex(/^[0-9a-f]{64}$/),
      /** Keyed per daemon process: equal within one daemon's life for equal inputs, meaningless after it. */
      inputsDigest: z.string().regex(/^[0-9a-f]{64}$/),
      inputNames: z.array(z.string().max(256)).max(64),
      steps: z.array(z.object({ index, kind: z.enum(STEP_KINDS), write: z.boolean() }).strict()).max(25),
      firstStep: z.string().max(32).nullable(),
      allowRepeat: z.boolean(),
      resumedFrom: runId.optional(),
    })
    .strict(),
})

export const RunStepStarted = defineEvent({
  type: 'browser.run.step_started',
  version: 1,
  schema: z.object({ runId, index }).strict(),
})

export const RunStepFinished = defineEvent({
  type: 'browser.run.step_finished',
  version: 1,
  schema: z
    .object({
      runId,
      index,
      outcome: z.enum(STEP_OUTCOMES),
      /** Why it failed or was skipped: a code (`already-done`, `inherited`, `done-by-person`, `ACT_REFUSED`, …). */
      reasonCode: code.optional(),
      reason: reason.optional(),
      /** The step's output for the assistant (an extract's reader summary), bounded by the runner. */
      data: z.record(z.string(), z.unknown()).optional(),
    })
    .strict(),
})

export const RunApprovalPending = defineEvent({
  type: 'browser.run.approval_pending',
  version: 1,
  schema: z
    .object({
      runId,
      index,
      approvalId: z.string().min(1).max(64),
      operation: z.string().min(1).max(32),
      /** The origin the prompt is about. */
      url: z.string().max(2_048),
      target: z.object({ role: z.string().max(200), name: z.string().max(1_000) }).strict().optional(),
    })
    .strict(),
})

export const RunApprovalSettled = defineEvent({
  type: 'browser.run.approval_settled',
  version: 1,
  schema: z
    .object({ runId, approvalId: z.string().min(1).max(64), outcome: z.enum(['approved', 'denied', 'expired', 'withdrawn']) })
    .strict(),
})

export const RunPaused = defineEvent({
  type: 'browser.run.paused',
  version: 1,
  schema: z.object({ runId, index, reasonCode: code, reason }).strict(),
})

export const RunEnded = defineEvent({
  type: 'browser.run.ended',
  version: 1,
  schema: z
    .object({
      runId,
      status: z.enum(['completed', 'failed', 'cancelled', 'superseded']),
      reasonCode: code.optional(),
      reason: reason.optional(),
    })
    .strict(),
})

export const workflowRunEvents = [RunStarted, RunStepStarted, RunStepFinished, RunApprovalPending, RunApprovalSettled, RunPaused, RunEnded] as const
