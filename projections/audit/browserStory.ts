import type { EventData } from '../../core/events/schema.js'
import type { BrowserActionRecorded } from '../../core/browser/events.js'

type BrowserAction = EventData<typeof BrowserActionRecorded>

const quoted = (text: string): string => JSON.stringify(text)

/** The element as the assistant named it: `button "Buy"`, `element e5g1`, `elements matching "h1"`. */
function targetWords(target: BrowserAction['target']): string {
  if (!target) return 'the page'
  if (target.role !== undefined) return `${target.role} ${quoted(target.name ?? '')}`
  if (target.selector !== undefined) return `elements matching ${quoted(target.selector)}`
  return `element ${target.ref ?? '?'}`
}

function actWords(action: BrowserAction): string {
  const detail = action.detail ?? {}
  const target = targetWords(action.target)
  switch (detail.act) {
    case 'click':
      return `clicked ${target}`
    case 'type':
      return detail.text !== undefined ? `typed ${quoted(detail.text)} into ${target}` : `typed ${detail.textLength ?? 0} characters into ${target} (a password field: the text is not kept)`
    case 'scroll':
      return detail.dy !== undefined ? `scrolled by ${detail.dy} px` : `scrolled ${target} into view`
    case 'key':
      return `pressed ${quoted(detail.key ?? '')}${action.target ? ` on ${target}` : ''}`
    default:
      return `acted on ${target}`
  }
}

/** A session's size as the log keeps it: counts, never a value. */
function counted(detail: BrowserAction['detail']): string {
  if (detail?.cookies === undefined || detail.localStorage === undefined) return ''
  return ` (${detail.cookies} cookies, ${detail.localStorage} localStorage items)`
}

function verb(action: BrowserAction): string {
  switch (action.operation) {
    case 'open': return action.detail?.profile !== undefined ? `opened a tab in the profile ${quoted(action.detail.profile)}` : 'opened a tab'
    case 'navigate': return 'navigated'
    case 'close': return 'closed the tab'
    case 'act': return actWords(action)
    case 'style': return `restyled ${targetWords(action.target)}`
    case 'execute_js': return `ran a script of ${action.detail?.scriptBytes ?? 0} bytes`
    case 'console_clear': return 'cleared the console'
    case 'workflow_run': return 'started a workflow run'
    case 'workflow_cancel': return 'cancelled a workflow run'
    case 'workflow_record': return action.detail?.act === 'stop' ? 'stopped a workflow recording' : 'started a workflow recording'
    case 'session_save': return `saved the session ${quoted(action.detail?.handle ?? '')}${counted(action.detail)}`
    case 'session_load': return `loaded the saved session ${quoted(action.detail?.handle ?? '')}${counted(action.detail)}`
    case 'read': return 'read the page'
    case 'screenshot': return 'took a screenshot'
    case 'query': return `queried ${targetWords(action.target)}`
    case 'extract': return 'extracted the article'
    case 'console': return 'read the console'
    case 'wait': return 'waited for the page to load'
    case 'wait_for': return `waited for ${targetWords(action.target)}`
  }
}

/**
 * One browser action as a sentence, so `quire log --stream browser` reads as the story of what the assistant did:
 * `tab-3 clicked button "Buy" at https://shop.test/cart (approval ap-2)`, or `… refused: NOT_GRANTED`.
 */
export function browserStory(action: BrowserAction): string {
  const where = `${action.url !== null ? ` at ${action.url}` : ''}`
  const grant = action.approvalId !== null ? ` (approval ${action.approvalId})` : ''
  const outcome = action.outcome === 'ok' ? '' : ` — refused: ${action.outcome}`
  return `${action.tabId ?? 'no tab'} ${verb(action)}${where}${grant}${outcome}`
}
