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
  | { readonly kind: 'destination'; readonly origin: string; readonly tabId: string }

export const APPROVAL_KIND_OF: Readonly<Record<BrowserAccessRequest['kind'], ApprovalKind>> = {
  act: 'browser_act',
  execute_js: 'browser_execute_js',
  attach: 'browser_attach',
  destination: 'browser_destination',
}

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
      return `use tab ${request.tabId} (${request.origin}, page ${request.generation})`
    case 'destination':
      return `load ${request.origin} in your browser profile (tab ${request.tabId})`
  }
}

/** `type`'s binding: the exact text. */
export const typedText = (text: string): string => `text ${quoted(text)}`
/** `key`'s binding: modifiers in a fixed order, then the key (`ctrl+shift+Enter`). */
export function pressedKey(key: string, modifiers: { ctrl?: boolean; shift?: boolean; alt?: boolean; meta?: boolean } = {}): string {
  const held = (['ctrl', 'shift', 'alt', 'meta'] as const).filter((name) => modifiers[name] === true)
  return `key ${quoted([...held, key].join('+'))}`
}
/** `scroll`'s binding: the vertical displacement in pixels. */
export const displacement = (dy: number): string => `dy ${dy}`
