import type { Actor } from '../events/actor.js'
import type { EventInput } from '../log/eventLog.js'
import type { BrowserDetail, BrowserOperation, BrowserTarget } from './events.js'
import { redactUrl } from './url.js'

/** One browser action as the tools report it, before the log's rules about what may be kept are applied. */
export interface BrowserActionEntry {
  readonly tabId: string | null
  readonly operation: BrowserOperation
  readonly url: string | null
  readonly target?: BrowserTarget
  readonly detail?: BrowserDetail
  /** Typed text went into a password field: the log keeps its length only. */
  readonly intoPassword?: boolean
  readonly outcome: string
  readonly approvalId: string | null
  readonly actor: Actor
}

/**
 * The `browser` stream's decide: an action becomes one event. Whatever the caller passed, a URL is stored redacted
 * (no userinfo, query or fragment) and text typed into a password field only as its length, so the audit log can be
 * shown to anyone who may see what the assistant did.
 */
export function decideBrowserAction(entry: BrowserActionEntry): EventInput[] {
  const detail = entry.detail && keepable(entry.detail, entry.intoPassword === true)
  return [
    {
      type: 'browser.action',
      actor: entry.actor,
      data: {
        tabId: entry.tabId,
        operation: entry.operation,
        url: entry.url === null ? null : redactUrl(entry.url),
        ...(entry.target !== undefined ? { target: entry.target } : {}),
        ...(detail !== undefined ? { detail } : {}),
        outcome: entry.outcome,
        approvalId: entry.approvalId,
      },
    },
  ]
}

function keepable(detail: BrowserDetail, intoPassword: boolean): BrowserDetail {
  if (detail.text === undefined) return detail
  const { text, ...rest } = detail
  return intoPassword ? { ...rest, textLength: text.length } : { ...rest, text, textLength: text.length }
}
