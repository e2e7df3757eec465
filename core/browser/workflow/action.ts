import { scanName } from './names.js'
import { quote, scanQuoted, type QuotedScan } from './quoted.js'
import { hasLineBreak, isTrimmed, isWhitespace, skipWhitespace } from './scan.js'

/**
 * The text of an `action:` step as something the daemon can run (VMark's `parseAction`, vmark.md §9.5):
 *
 *     click "<name>" [(<role>)]
 *     type "<literal>" into "<name>" [(<role>)]
 *     type {<input>} into "<name>" [(<role>)]
 *     navigate to <url>
 *
 * Names and literals are JSON string literals (quoted.ts); a role is lowercase words joined by `-` (`doc-pagebreak`).
 * What it cannot run says why: `not-executable` (prose, an unquoted name, a bare `navigate`: the run pauses for the
 * assistant), `malformed-target` (a quoted name that is empty, blank, unterminated, badly escaped or followed by
 * anything but a role) and `malformed-value` (the same for a `type` value, or no ` into ` after it). A malformed
 * name never becomes an empty one: an empty name would match every unlabelled control of its role.
 *
 * An `{input}` value follows the front matter's name rule (names.ts), hyphens included, so every input a workflow can
 * declare can be typed; VMark's executor grammar allows no hyphen there.
 */
export type ActionValue = { readonly literal: string } | { readonly input: string }

export type Action =
  | { readonly kind: 'click'; readonly name: string; readonly role?: string }
  | { readonly kind: 'type'; readonly value: ActionValue; readonly name: string; readonly role?: string }
  | { readonly kind: 'navigate'; readonly url: string }

export type ActionFailureCode = 'not-executable' | 'malformed-target' | 'malformed-value'

export interface ActionFailure {
  readonly failure: ActionFailureCode
  readonly message: string
}

export const isActionFailure = <T extends object>(result: T | ActionFailure): result is ActionFailure => 'failure' in result

const fail = (failure: ActionFailureCode, message: string): ActionFailure => ({ failure, message })

/** Whether `text` continues at `index` with `word` and then white space. */
function keywordAt(text: string, index: number, word: string): boolean {
  return text.startsWith(word, index) && isWhitespace(text.charCodeAt(index + word.length))
}

export function parseAction(text: string): Action | ActionFailure {
  const trimmed = text.trim()
  if (keywordAt(trimmed, 0, 'navigate')) {
    const to = skipWhitespace(trimmed, 'navigate'.length)
    if (!keywordAt(trimmed, to, 'to')) return fail('not-executable', 'a navigation is `navigate to <url>`')
    return { kind: 'navigate', url: trimmed.slice(to + 2).trim() }
  }
  if (keywordAt(trimmed, 0, 'click')) {
    const target = parseTarget(trimmed, skipWhitespace(trimmed, 'click'.length))
    if (isActionFailure(target)) return target
    return { kind: 'click', ...target }
  }
  if (keywordAt(trimmed, 0, 'type')) return parseType(trimmed, skipWhitespace(trimmed, 'type'.length))
  return fail('not-executable', 'not a click, type or navigate action')
}

function parseType(text: string, from: number): Action | ActionFailure {
  let value: ActionValue
  let afterValue: number
  if (text.charCodeAt(from) === 0x22) {
    const scanned = scanQuoted(text, from)
    if (!scanned.ok) return fail('malformed-value', `the typed value ${describeProblem(scanned)}`)
    value = { literal: scanned.value }
    afterValue = scanned.end
  } else if (text.charCodeAt(from) === 0x7b) {
    const nameEnd = scanName(text, from + 1)
    if (nameEnd === from + 1 || text.charCodeAt(nameEnd) !== 0x7d) return fail('not-executable', 'a typed value is a "quoted literal" or an {input}')
    value = { input: text.slice(from + 1, nameEnd) }
    afterValue = nameEnd + 1
  } else {
    return fail('not-executable', 'a typed value is a "quoted literal" or an {input}')
  }
  const into = skipWhitespace(text, afterValue)
  if (into === afterValue || !keywordAt(text, into, 'into')) return fail('malformed-value', 'the typed value is not followed by ` into "<name>"`')
  const target = parseTarget(text, skipWhitespace(text, into + 'into'.length))
  if (isActionFailure(target)) return target
  return { kind: 'type', value, ...target }
}

function describeProblem(scan: Extract<QuotedScan, { ok: false }>): string {
  if (scan.problem === 'unterminated') return 'has no closing quote'
  if (scan.problem === 'invalid-escape') return 'has an escape JSON does not know'
  return 'has a raw control character (write it as an escape)'
}

/** `"<name>"` then, optionally, `(<role>)`, then nothing: the rest of `text` from `from`. */
function parseTarget(text: string, from: number): { name: string; role?: string } | ActionFailure {
  if (text.charCodeAt(from) !== 0x22) return fail('not-executable', 'a target is a "quoted" accessible name')
  const scanned = scanQuoted(text, from)
  if (!scanned.ok) return fail('malformed-target', `the target name ${describeProblem(scanned)}`)
  if (scanned.value.trim() === '') return fail('malformed-target', 'the target name is empty')
  const rest = skipWhitespace(text, scanned.end)
  if (rest === text.length) return { name: scanned.value }
  const roleEnd = scanRole(text, rest)
  if (roleEnd !== text.length) {
    return fail('malformed-target', `after the target name comes only a (role) in lowercase, not ${JSON.stringify(text.slice(rest, rest + 40))}`)
  }
  return { name: scanned.value, role: text.slice(rest + 1, roleEnd - 1) }
}

const isLowercase = (code: number): boolean => code >= 0x61 && code <= 0x7a

/** The index just past `(word(-word)*)` at `from`, or `from` when there is none. */
function scanRole(text: string, from: number): number {
  if (text.charCodeAt(from) !== 0x28) return from
  let index = from + 1
  for (;;) {
    const wordStart = index
    while (isLowercase(text.charCodeAt(index))) index++
    if (index === wordStart) return from
    const next = text.charCodeAt(index)
    if (next === 0x29) return index + 1
    if (next !== 0x2d) return from
    index++
  }
}

/** Whether `role` is one `parseAction` reads back: lowercase words joined by single hyphens. */
export const isActionRole = (role: string): boolean => scanRole(`(${role})`, 0) === role.length + 2

export class ActionPrintError extends Error {
  override readonly name = 'ActionPrintError'
}

/**
 * An action as step text, the recorder's format (`click "Publish" (button)`, `type {title} into "Title" (textbox)`,
 * `navigate to https://…`): names and literals JSON-quoted, so `parseAction` gives back the same action. An action that
 * text cannot carry (a blank name, a role outside the grammar, a URL that is empty, padded or holds a line break, an
 * input name outside the rule) is refused with an ActionPrintError rather than written as something else.
 */
export function printAction(action: Action): string {
  if (action.kind === 'navigate') {
    if (action.url === '' || !isTrimmed(action.url) || hasLineBreak(action.url)) {
      throw new ActionPrintError(`a navigate URL must be non-empty, unpadded and on one line: ${JSON.stringify(action.url)}`)
    }
    return `navigate to ${action.url}`
  }
  const target = printTarget(action.name, action.role)
  if (action.kind === 'click') return `click ${target}`
  if ('input' in action.value) {
    const input = action.value.input
    if (scanName(input, 0) !== input.length || input === '') throw new ActionPrintError(`${JSON.stringify(input)} is not an input name`)
    return `type {${input}} into ${target}`
  }
  return `type ${quote(action.value.literal)} into ${target}`
}

function printTarget(name: string, role: string | undefined): string {
  if (name.trim() === '') throw new ActionPrintError('a target name must not be blank')
  if (role === undefined) return quote(name)
  if (!isActionRole(role)) throw new ActionPrintError(`${JSON.stringify(role)} is not a role (lowercase words joined by -)`)
  return `${quote(name)} (${role})`
}

/** The recorder's whole line for an action step: `N. action: <text>`. */
export const printActionLine = (index: number, action: Action): string => `${index}. action: ${printAction(action)}`
