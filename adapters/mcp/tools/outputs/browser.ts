import { z } from 'zod'
import { count } from './common.js'

/** Shapes of the embedded browser's answers (adapters/browser); URLs are always redacted ones. */
const generation = z.int().nonnegative()
const target = z.object({ ref: z.string(), role: z.string().nullable(), name: z.string() })

/** What open, navigate and wait answer once the page loaded (navigationAnswer). */
export const navigationOutput = z.object({
  tabId: z.string(),
  navigationId: z.string(),
  url: z.string(),
  title: z.string(),
  generation,
  gate: z.object({ kind: z.enum(['login-required', 'consent', 'challenge', 'rate-limited']), hint: z.string() }).optional(),
})

export const consoleOutput = z.object({
  entries: z.array(z.object({ level: z.enum(['log', 'info', 'warn', 'error', 'debug']), text: z.string() })),
  url: z.string(),
})

const actOutput = z.object({
  ok: z.literal(true),
  operation: z.enum(['click', 'type', 'scroll', 'key']),
  matchedTotal: count,
  matchedVisible: count,
  url: z.string(),
  generation,
  popup: z.object({ url: z.string() }).optional(),
  target: target.optional(),
  isPassword: z.boolean().optional(),
  defaultPrevented: z.boolean().optional(),
  defaultAction: z.enum(['none', 'prevented', 'submit', 'activate', 'focus-next', 'focus-previous', 'insert-text', 'delete-text']).optional(),
  focused: target.optional(),
  scrolledBy: z.number().optional(),
})

const recordOutput = z.union([
  z.object({ recording: z.literal(true), recordingId: z.string(), tabId: z.string(), site: z.string() }),
  // Not an error (BR.WORKFLOW_RECORD.3): the person is asked; retry once they allowed it.
  z.object({ needsApproval: z.literal(true), approvalId: z.string(), tabId: z.string(), approvalStatus: z.string().optional(), message: z.string() }),
  z.object({
    recordingId: z.string(),
    source: z.string(),
    inputs: z.array(z.string()),
    eventCount: count,
    dropped: z.object({ pageCap: count, sessionCap: count, unlocatable: count }).optional(),
  }),
])

export const BROWSER_OUTPUTS = {
  act: actOutput,
  open: navigationOutput,
  navigate: navigationOutput,
  close: z.object({ tabId: z.string(), closed: z.literal(true), destroyed: z.literal(true) }),
  style: z.object({ changed: z.enum(['set', 'addClasses', 'removeClasses', 'injectCss']), elements: count, url: z.string(), generation }),
  // The script's value is whatever JSON the page made of it.
  execute_js: z.object({ result: z.unknown(), untrusted: z.literal(true) }),
  session_save: z.object({ saved: z.literal(true), handle: z.string(), origin: z.string(), cookies: count, localStorage: count }),
  session_load: z.object({ loaded: z.literal(true), handle: z.string() }),
  workflow_run: z.object({ runId: z.string(), steps: count, firstStep: z.string().nullable() }),
  workflow_cancel: z.object({ runId: z.string(), status: z.string(), outcome: z.enum(['cancelled', 'already-terminal']) }),
  workflow_record: recordOutput,
  console_clear: consoleOutput,
}
