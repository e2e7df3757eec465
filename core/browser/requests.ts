import { createHmac, randomBytes } from 'node:crypto'
import type { ApprovalKind } from '../approvals/events.js'

/**
 * What an assistant asks of the person before a browser action runs, and the exact words the person approves. The
 * subject is both the prompt and the binding: a retry matches an approval only if it asks exactly the same thing, so
 * a click approval binds role + name (BR.ACT.19), a type, key or scroll approval also the text, key with modifiers or
 * displacement (BR.ACT.20), an execute_js approval the script (BR.EXECUTE_JS.5).
 */

export type ActOperation = 'click' | 'type' | 'scroll' | 'key' | 'style'

/** An element named so a person can judge it (role + name), or a handle from a read, or a CSS selector (style). */
export type ActTarget =
  | { readonly role: string; readonly name: string }
  | { readonly ref: string }
  | { readonly selector: string }

export type BrowserAccessRequest =
  | {
      readonly kind: 'act'
      readonly operation: ActOperation
      readonly origin: string
      readonly tabId: string
      readonly target?: ActTarget
      /** The exact text typed, key pressed (`ctrl+shift+Enter`), displacement (`dy 400`) or style change. */
      readonly binding?: string
    }
  | { readonly kind: 'execute_js'; readonly origin: string; readonly tabId: string; readonly script: string }
  | {
      readonly kind: 'attach'
      readonly origin: string
      readonly tabId: string
      /** The tab's navigation generation: an attachment "until navigation" ends when it changes. */
      readonly generation: number
      /** `many` for calls that read more than once (`wait_for`): an "Allow once" attachment is not enough. */
      readonly reads: 'once' | 'many'
    }
  | {
      readonly kind: 'destination'
      readonly origin: string
      readonly tabId: string
      /** The origin the tab shows now: loading another page of it is not a new origin. */
      readonly currentOrigin?: string
    }
  | {
      /** Saving the tab's cookies and localStorage under `handle`, or loading them from it, on `origin`. */
      readonly kind: 'session'
      readonly operation: 'save' | 'load'
      readonly origin: string
      readonly tabId: string
      readonly handle: string
      /** The named profile whose logins the session holds: the tab's own profile (save), or the one it was saved from (load). */
      readonly profile?: string
    }
  | {
      /** Opening a new tab at `origin` in the named persistent profile `profile`, or loading it in that profile's tab `tabId`. */
      readonly kind: 'profile'
      readonly origin: string
      readonly profile: string
      readonly tabId?: string
      /** The agent whose profile it is, when the person shared another agent's profile with the caller. */
      readonly owner?: string
    }
  | {
      /** Recording what the person does on the assistant's tab `tabId` as a workflow (BR.WORKFLOW_RECORD.2). */
      readonly kind: 'record'
      readonly origin: string
      readonly tabId: string
      /** The front matter's `site` of the workflow it will become. */
      readonly site: string
    }

export const APPROVAL_KIND_OF: Readonly<Record<BrowserAccessRequest['kind'], ApprovalKind>> = {
  act: 'browser_act',
  execute_js: 'browser_execute_js',
  attach: 'browser_attach',
  destination: 'browser_destination',
  session: 'browser_session',
  profile: 'browser_profile',
  record: 'browser_record',
}

/** The kinds approved for one use only, never by a standing grant (APPR.4, APPR.5). */
export const PER_USE_KINDS: ReadonlySet<BrowserAccessRequest['kind']> = new Set(['execute_js', 'session', 'profile', 'record'])

const quoted = (text: string): string => JSON.stringify(text)

function describeTarget(target: ActTarget | undefined): string {
  if (target === undefined) return 'the page'
  if ('role' in target) return `${target.role} ${quoted(target.name)}`
  if ('selector' in target) return `elements matching ${quoted(target.selector)}`
  return `element ${target.ref}`
}

/** The approval's subject: what the person reads in the prompt, word for word what a retry must ask again. */
export function subjectOf(request: BrowserAccessRequest): string {
  switch (request.kind) {
    case 'act': {
      const target = describeTarget(request.target)
      const binding = request.binding === undefined ? '' : ` with ${request.binding}`
      return `${request.operation} ${target}${binding} on ${request.origin}`
    }
    case 'execute_js':
      return `run a script on ${request.origin} (tab ${request.tabId}):\n${request.script}`
    case 'attach':
      return attachmentSubject(request)
    case 'destination':
      return `load ${request.origin} in your browser profile (tab ${request.tabId})`
    case 'session': {
      // The handle is in the words, so an approval for one handle matches no call for another (BR.SESSION_SAVE.6);
      // so is a named profile, whose logins the person would otherwise not know they are moving.
      const profile = request.profile === undefined ? undefined : quoted(request.profile)
      return request.operation === 'save'
        ? `save the session (cookies and localStorage) of ${request.origin}${profile === undefined ? '' : ` from the browser profile ${profile}, with its logins,`} as ${quoted(request.handle)} (tab ${request.tabId})`
        : `load the saved session ${quoted(request.handle)}${profile === undefined ? '' : ` (the logins of the browser profile ${profile})`} into ${request.origin} (tab ${request.tabId})`
    }
    case 'profile': {
      const profile = `the browser profile ${quoted(request.profile)}${request.owner === undefined ? '' : ` of agent ${quoted(request.owner)}`}`
      return request.tabId === undefined
        ? `open ${request.origin} in ${profile}, with its saved logins`
        : `load ${request.origin} in tab ${request.tabId} of ${profile}, with its saved logins`
    }
    case 'record':
      return `record what you do on tab ${request.tabId} (${request.origin}) as the workflow ${quoted(request.site)}: which elements you click and which fields you edit, never what you type`
  }
}

/**
 * An attachment's subject. A call that reads more than once (`wait_for`) asks with its own words, so that after an
 * "Allow once" it can ask again for "until it navigates" instead of meeting the same used-once approval.
 */
export function attachmentSubject(request: { readonly tabId: string; readonly origin: string; readonly generation: number; readonly reads: 'once' | 'many' }): string {
  const base = `use tab ${request.tabId} (${request.origin}, page ${request.generation})`
  return request.reads === 'many' ? `${base} for repeated reads (wait_for): allow until it navigates` : base
}

/** `type`'s binding: the exact text. */
export const typedText = (text: string): string => `text ${quoted(text)}`
/** Per process: binds a password's approval to the exact text without the text (or a guessable hash of it) in the log. */
const SECRET_BINDING_KEY = randomBytes(32)

/**
 * `type`'s binding for a password field: the length and a keyed digest, so a retry with other text asks again
 * (BR.ACT.20) while the approval, which the log keeps, holds nothing to recover the text from. The key lives only as
 * long as the process, so an approval for a password does not outlive a restart.
 */
export function typedSecret(text: string): string {
  const digest = createHmac('sha256', SECRET_BINDING_KEY).update(text, 'utf8').digest('hex').slice(0, 12)
  return `password text of ${[...text].length} characters (${digest})`
}

export interface KeyModifiers {
  readonly ctrl?: boolean
  readonly shift?: boolean
  readonly alt?: boolean
  readonly meta?: boolean
}

/** A key with its modifiers in a fixed order (`ctrl+shift+Enter`), as approvals bind it and the log keeps it. */
export function keyChord(key: string, modifiers: KeyModifiers = {}): string {
  const held = (['ctrl', 'shift', 'alt', 'meta'] as const).filter((name) => modifiers[name] === true)
  return [...held, key].join('+')
}

/** `key`'s binding. */
export const pressedKey = (key: string, modifiers: KeyModifiers = {}): string => `key ${quoted(keyChord(key, modifiers))}`
/** `scroll`'s binding: the vertical displacement in pixels. */
export const displacement = (dy: number): string => `dy ${dy}`
