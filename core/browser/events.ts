import { z } from 'zod'
import { defineEvent } from '../events/schema.js'

/** What assistants did in the embedded browser, one event per action, success or refusal (issue 13 item 8). */
export const BROWSER_STREAM = 'browser'

/** The operations recorded: every action of `browser` and `browser_read`. */
export const browserOperations = [
  'open', 'navigate', 'close', 'act', 'style', 'execute_js', 'console_clear', 'workflow_run', 'workflow_cancel', 'workflow_record', 'session_save', 'session_load',
  'read', 'screenshot', 'query', 'extract', 'console', 'wait', 'wait_for',
] as const
export type BrowserOperation = (typeof browserOperations)[number]

/** The element an action aimed at, as the assistant named it (never element data read from the page). */
export const browserTargetSchema = z
  .object({
    ref: z.string().max(64).optional(),
    role: z.string().max(200).optional(),
    name: z.string().max(1_000).optional(),
    selector: z.string().max(4_096).optional(),
  })
  .strict()
export type BrowserTarget = z.infer<typeof browserTargetSchema>

/**
 * What of the action's arguments the log keeps: the act's own operation (`click`), the key and modifiers, the
 * displacement, the length of typed text (and the text itself unless it went into a password field), the script's
 * size in bytes; a session's handle and how many cookies and localStorage items it held, a named profile's name
 * (never a value of either: the fields can hold none).
 */
export const browserDetailSchema = z
  .object({
    act: z.string().max(32).optional(),
    text: z.string().max(100_000).optional(),
    textLength: z.number().int().min(0).optional(),
    key: z.string().max(64).optional(),
    dy: z.number().optional(),
    scriptBytes: z.number().int().min(0).optional(),
    handle: z.string().max(128).optional(),
    cookies: z.number().int().min(0).optional(),
    localStorage: z.number().int().min(0).optional(),
    profile: z.string().max(128).optional(),
  })
  .strict()
export type BrowserDetail = z.infer<typeof browserDetailSchema>

export const BrowserActionRecorded = defineEvent({
  type: 'browser.action',
  version: 1,
  schema: z.object({
    tabId: z.string().max(64).nullable(),
    operation: z.enum(browserOperations),
    /** The page's URL, redacted: no userinfo, query or fragment (BR.GEN.3). */
    url: z.string().max(8_192).nullable(),
    target: browserTargetSchema.optional(),
    detail: browserDetailSchema.optional(),
    /** `ok`, or the token the action was refused with. */
    outcome: z.string().min(1).max(64),
    /** The approval or standing grant the action used, if it needed one. */
    approvalId: z.string().min(1).nullable(),
  }),
})

const agentName = z.string().min(1).max(256)

/**
 * The person shared the named profile `profile` of agent `owner` with agent `with`: `with`'s opens of that name use
 * `owner`'s profile, logins included, until the person takes it back. Profiles are each agent's own otherwise.
 */
export const BrowserProfileShared = defineEvent({
  type: 'browser.profile.shared',
  version: 1,
  schema: z.object({ profile: z.string().min(1).max(128), owner: agentName, with: agentName }).strict(),
})

export const BrowserProfileUnshared = defineEvent({
  type: 'browser.profile.unshared',
  version: 1,
  schema: z.object({ profile: z.string().min(1).max(128), owner: agentName, with: agentName }).strict(),
})

export const browserEvents = [BrowserActionRecorded, BrowserProfileShared, BrowserProfileUnshared] as const
