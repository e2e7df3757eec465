import { z } from 'zod'
import { RUN_STATUSES } from '../../../../core/browser/workflow/runs/events.js'
import { count } from './common.js'
import { consoleOutput, navigationOutput } from './browser.js'

const snapshotNode = z.object({
  role: z.string(),
  name: z.string(),
  ref: z.string(),
  level: z.int().optional(),
  checked: z.union([z.boolean(), z.literal('mixed')]).optional(),
  disabled: z.literal(true).optional(),
  upload: z.literal(true).optional(),
})

const queryElement = z.object({
  ref: z.string(),
  tag: z.string(),
  text: z.string(),
  attributes: z.record(z.string(), z.string()).optional(),
  box: z.object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() }).optional(),
  styles: z.record(z.string(), z.string()).optional(),
})

const runStatus = z.object({
  runId: z.string(),
  status: z.enum(RUN_STATUSES),
  completedSteps: count,
  skippedSteps: count,
  stepCount: count,
  firstStep: z.string().nullable(),
  pausedAt: z.string().optional(),
  pendingApproval: z
    .object({
      approvalId: z.string(),
      step: count,
      operation: z.string(),
      url: z.string(),
      target: z.object({ role: z.string(), name: z.string() }).optional(),
    })
    .optional(),
  reasonCode: z.string().optional(),
  reason: z.string().optional(),
  resumedFrom: z.string().optional(),
  stepResults: z.array(
    z.object({
      index: count,
      status: z.enum(['pending', 'running', 'success', 'failed', 'skipped', 'paused']),
      attempts: count,
      reasonCode: z.string().optional(),
      reason: z.string().optional(),
      data: z.record(z.string(), z.unknown()).optional(),
    }),
  ),
  // The run's tab's URL while the tab is there.
  url: z.string().optional(),
})

export const BROWSER_READ_OUTPUTS = {
  read: z.object({ url: z.string(), unreachable: count.optional(), truncated: z.literal(true).optional(), snapshot: z.array(snapshotNode) }),
  // The JPEG is the answer's image content; the structured part says what it shows.
  screenshot: z.object({ url: z.string(), mimeType: z.literal('image/jpeg') }),
  query: z.object({ count, truncated: z.literal(true).optional(), elements: z.array(queryElement) }),
  extract: z.object({ title: z.string(), byline: z.string().nullable(), url: z.string(), textLength: count, truncated: z.boolean(), markdown: z.string() }),
  console: consoleOutput,
  wait: navigationOutput,
  workflow_status: runStatus,
  wait_for: z.object({ matched: z.boolean(), ref: z.string().optional() }),
}
