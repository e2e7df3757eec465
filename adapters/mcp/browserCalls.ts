import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { PersonWait } from '../../core/approvals/commands.js'
import type { BrowserDetail, BrowserOperation, BrowserTarget } from '../../core/browser/events.js'
import { APPROVAL_WAIT_MS } from '../../core/browser/commands.js'
import type { BrowserAccessRequest } from '../../core/browser/requests.js'
import { isQuireError } from '../../core/errors.js'
import { originOnly, redactUrl } from '../../core/browser/url.js'
import type { Caller } from '../../core/workspace/commands.js'
import type { LoadedNavigation } from '../browser/engine.js'
import { BrowserError } from '../browser/errors.js'
import type { ToolContext } from './context.js'
import { rawResult, type RawResult } from './defineTool.js'
import { personWait } from './personWait.js'
import { compactSuccess } from './results.js'

/**
 * What every `browser` and `browser_read` action shares on the way to the engine: the embedded-browser setting
 * (BR.GEN.2), whose tabs the caller sees, which tab an action without `tabId` means, the `"TOKEN: message"` refusals
 * (BR.GEN.5), no raw URL in any answer (BR.GEN.3), and one record in the `browser` stream per action, success or
 * refusal. The engine authorizes nothing; the actions ask `services.browserAccess` before they touch a page.
 */

/**
 * The engine's principal for an MCP caller: the agent its token names, else its connection. The person's own token
 * and an anonymous client are no agent, so each of their connections keeps its own tabs and cookie store.
 */
export function enginePrincipal(caller: Caller): string {
  return caller.principal ?? caller.connection
}

/** A refusal decided in this layer (the engine's own are `BrowserError`s). */
export class BrowserRefusal extends Error {
  constructor(
    readonly token: string,
    readonly reason: string,
    readonly data: Readonly<Record<string, unknown>> = {},
  ) {
    super(`${token}: ${reason}`)
    this.name = 'BrowserRefusal'
  }
}

/** The browser's rejection shape: `"TOKEN: message"` as text, token, message and data in `structuredContent`. */
export function tokenResult(token: string, message: string, data: Readonly<Record<string, unknown>> = {}): CallToolResult {
  const cleanMessage = redactUrlsIn(message)
  const cleanData = redactUrlsDeep(data) as Record<string, unknown>
  return {
    isError: true,
    content: [{ type: 'text', text: `${token}: ${cleanMessage}` }],
    structuredContent: { error: token, message: cleanMessage, data: cleanData },
  }
}

/** What a thrown error becomes: its token, or INTERNAL for anything unexpected (GEN.9). */
export function failureOf(error: unknown): { token: string; result: CallToolResult } {
  if (error instanceof BrowserRefusal) return { token: error.token, result: tokenResult(error.token, error.reason, error.data) }
  if (error instanceof BrowserError) {
    const message = error.message.startsWith(`${error.code}: `) ? error.message.slice(error.code.length + 2) : error.message
    return { token: error.code, result: tokenResult(error.code, message, error.data ?? {}) }
  }
  // Core's refusals (a workflow run's RUN_NOT_FOUND, RUN_ACTIVE, INVALID_ARGUMENT) keep their code as the token.
  if (isQuireError(error)) return { token: error.code, result: tokenResult(error.code, error.message, error.details ?? {}) }
  const message = error instanceof Error ? error.message : String(error)
  return { token: 'INTERNAL', result: tokenResult('INTERNAL', `unexpected error: ${message}`) }
}

// Anything with a scheme and an authority; the match stops at whitespace, quotes and brackets around a URL in prose.
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>()[\]{}]+/gi

/**
 * A message may quote a URL (Chromium's navigation errors end `at http://…`): each is cut to what an assistant may
 * see, so no query, fragment or userinfo leaves through an error's wording.
 */
export function redactUrlsIn(text: string): string {
  return text.replace(URL_IN_TEXT, (url) => redactUrl(url))
}

function redactUrlsDeep(value: unknown): unknown {
  if (typeof value === 'string') return redactUrlsIn(value)
  if (Array.isArray(value)) return value.map(redactUrlsDeep)
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, redactUrlsDeep(inner)]))
  return value
}

/** The origin a (redacted or raw) page URL belongs to, as grants and approvals name it. */
export function originOf(url: string): string {
  return originOnly(url)
}

/** What one action leaves in the `browser` stream, filled in by the action as it learns it. */
export interface ActionTrace {
  tabId: string | null
  url: string | null
  target?: BrowserTarget
  detail?: BrowserDetail
  approvalId?: string | null
  /** The typed text went into a password field: the log keeps only its length. */
  intoPassword?: boolean
}

/** An action's body: it sees the engine principal and fills the trace; its answer is JSON or a built result. */
export type BrowserBody = (principal: string, trace: ActionTrace) => Promise<Record<string, unknown> | CallToolResult>

function isCallToolResult(answer: Record<string, unknown> | CallToolResult): answer is CallToolResult {
  return Array.isArray((answer as CallToolResult).content)
}

/**
 * Runs one browser action: refused while the embedded browser is off (BR.GEN.2, BRR.GEN.4), its failures turned into
 * tokens, and recorded in the `browser` stream whatever its outcome. The trace's URL is always a redacted one.
 */
export async function browserCall(context: ToolContext, operation: BrowserOperation | null, body: BrowserBody): Promise<RawResult> {
  const { services, caller } = context
  const trace: ActionTrace = { tabId: null, url: null }
  let result: CallToolResult
  let outcome: string
  if (!services.settings.state.embeddedBrowser) {
    outcome = 'BROWSER_DISABLED'
    result = tokenResult('BROWSER_DISABLED', 'the embedded browser is turned off in Quire\'s settings (embeddedBrowser); ask the user to turn it on')
  } else {
    try {
      const answer = await body(enginePrincipal(caller), trace)
      result = isCallToolResult(answer) ? answer : compactSuccess(answer)
      outcome = 'ok'
    } catch (error) {
      ;({ token: outcome, result } = failureOf(error))
    }
  }
  // A call that touches no page (workflow_status's poll) leaves no record: polling has no side effect.
  if (operation === null) return rawResult(result)
  try {
    await services.browserAccess.record({
      tabId: trace.tabId,
      operation,
      url: trace.url,
      ...(trace.target !== undefined ? { target: trace.target } : {}),
      ...(trace.detail !== undefined ? { detail: trace.detail } : {}),
      ...(trace.intoPassword === true ? { intoPassword: true } : {}),
      outcome,
      approvalId: trace.approvalId ?? null,
      actor: caller.actor,
    })
  } catch (error) {
    // The action happened (or was refused) but the log does not say so: the caller must not think all is well.
    const message = error instanceof Error ? error.message : String(error)
    return rawResult(tokenResult('INTERNAL', `the ${operation} ${outcome === 'ok' ? 'ran' : `was refused (${outcome})`} but its record in the browser log failed: ${message}`))
  }
  return rawResult(result)
}

/**
 * Asks whether the caller may do `request` now (grants, approvals, attachments: core/browser). A refusal is thrown
 * as its token with the approval the person is to decide, so the assistant can tell them which one.
 */
export async function authorize(context: ToolContext, request: BrowserAccessRequest, trace: ActionTrace, options: { waitMs?: number } = {}): Promise<void> {
  const { caller, services } = context
  const answer = await services.browserAccess.authorize(request, { connection: caller.connection, principal: caller.principal, actor: caller.actor }, browserWait(context, options.waitMs))
  if (answer.approvalId !== undefined) trace.approvalId = answer.approvalId
  if (answer.granted) return
  throw new BrowserRefusal(answer.token, answer.message, {
    ...(answer.approvalId !== undefined ? { approvalId: answer.approvalId } : {}),
    ...(answer.status !== undefined ? { approvalStatus: answer.status } : {}),
  })
}

/**
 * How a browser call waits for the person's decision: the browser's 9 s (below VMark's 10 s bridge deadline), or, for
 * a client that follows the call's progress, longer and telling it so (personWait); a cancelled call withdraws it.
 */
export function browserWait(context: ToolContext, waitMs = APPROVAL_WAIT_MS): { waitMs: number; wait: PersonWait } {
  const wait = personWait(context, waitMs)
  return { waitMs: wait.waitMs, wait }
}

/**
 * How an action uses its tab: reads it once or many times (`wait_for`), acts on it, or needs it to be AI-owned (the
 * engine refuses a human tab for those: navigate, wait, console, console_clear).
 */
export type TabUse = 'once' | 'many' | 'act' | 'ai-only'

export interface UsedTab {
  readonly tabId: string
  /** Redacted. */
  readonly url: string
  readonly generation: number
  /** The person's tab, reached through their attachment. */
  readonly human: boolean
}

/**
 * Runs `work` on the tab an action means: the one named, else the caller's foreground browser tab. A human tab is
 * reached only once the person has approved the attachment (BR.GEN.10, APPR.9); an assistant's own tab needs none.
 */
export async function withTab<T>(
  context: ToolContext,
  principal: string,
  tabId: string | undefined,
  trace: ActionTrace,
  use: TabUse,
  work: (tab: UsedTab) => Promise<T>,
): Promise<T> {
  const engine = context.services.browser
  const chosen = tabId ?? engine.foregroundTab(principal)?.tabId
  if (chosen === undefined) throw new BrowserRefusal('TAB_NOT_FOUND', 'you have no browser tab open; open one with browser.open {url}')
  trace.tabId = chosen
  try {
    const state = engine.tabPlace(principal, chosen)
    trace.url = state.url
    return await work({ tabId: chosen, url: state.url, generation: state.generation, human: false })
  } catch (error) {
    // Only the person's tabs answer TAB_NOT_AI_OWNED here, before anything reached the page.
    if (!(error instanceof BrowserError && error.code === 'TAB_NOT_AI_OWNED' && trace.url === null)) throw error
  }
  const human = (await engine.listTabs()).find((tab) => tab.tabId === chosen && tab.automationMode === 'human')
  if (human === undefined) throw new BrowserRefusal('TAB_NOT_FOUND', `no tab ${chosen}`)
  // Closing, navigating, waiting on or clearing the console of the person's tab is never theirs to allow.
  if (use === 'ai-only') throw new BrowserRefusal('TAB_NOT_AI_OWNED', `${chosen} is the person's tab: only your own tabs can be navigated, waited on or have their console read or cleared`)
  // Before the person allows it, the assistant learns no more of the person's tab than its origin.
  trace.url = originOnly(human.url)
  await authorize(context, { kind: 'attach', origin: originOnly(human.url), tabId: chosen, generation: human.generation, reads: use === 'many' ? 'many' : 'once' }, trace)
  return engine.attached(principal, chosen, async () => {
    const state = engine.tabPlace(principal, chosen)
    trace.url = state.url
    return work({ tabId: chosen, url: state.url, generation: state.generation, human: true })
  })
}

/** What open, navigate and wait answer after the load (BR.OPEN.2, BR.NAVIGATE.2, BRR.WAIT.5): the ticket's outcome, gate included. */
export function navigationAnswer(loaded: LoadedNavigation): Record<string, unknown> {
  const { tabId, navigationId, url, title, generation, gate } = loaded
  return { tabId, navigationId, url, title, generation, ...(gate !== undefined ? { gate } : {}) }
}
