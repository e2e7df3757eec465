import { isActionRole, printAction, type Action } from './action.js'
import { parseWorkflow } from './parse.js'
import { printWorkflow } from './print.js'
import { quote } from './quoted.js'
import { isWhitespace } from './scan.js'
import type { WorkflowStep } from './types.js'

/**
 * A recording in progress (BR.WORKFLOW_RECORD.*): what the person did on one tab, as the capture shim reported it, and
 * the workflow it becomes. Pure: the adapter feeds it the tab's page loads and the shim's events; this decides what
 * each becomes, applies the caps and writes the source with core's printer.
 *
 * What it is given holds locators only (a role and an accessible name) and, for a field, what kind of field it was:
 * the shim never reads what was typed (BR.WORKFLOW_RECORD.7), so there is nothing here to leak. Each text or choice
 * field becomes an `{input}` named after its accessible name (BR.WORKFLOW_RECORD.8); a password or one-time-code
 * field a `confirm:` step for the person at replay (BR.WORKFLOW_RECORD.9); a page's URL only its origin and path
 * (BR.WORKFLOW_RECORD.10).
 *
 * Navigation: the page the tab showed when the recording started is the first step (`navigate to`). A later page
 * load the page itself asked for (the person's click on a link or a submit, the page's own script) comes back at
 * replay with the step that caused it, so it adds no step; one the browser was told to make (the assistant's
 * `navigate`) adds a `navigate to`, and a `navigate to` that nothing was done on before the next one is replaced by it.
 */

export const RECORDING_LIMITS = {
  /** BR.WORKFLOW_RECORD.13: events kept per page load (document). */
  eventsPerPage: 200,
  /** BR.WORKFLOW_RECORD.13: events kept per recording. */
  eventsPerSession: 1_000,
  /** The bound a hand-issued act's name has: a longer one could not be approved or replayed whole. */
  nameChars: 1_000,
  /** An input name derived from a long label keeps this many characters. */
  inputNameChars: 40,
} as const

/** What kind of field an edit went into, as the shim tells it from the element's type and autocomplete tokens. */
export const FIELD_KINDS = ['text', 'choice', 'password', 'one-time-code'] as const
export type FieldKind = (typeof FIELD_KINDS)[number]

export type CapturedEvent =
  | { readonly kind: 'click'; readonly role: string; readonly name: string }
  | { readonly kind: 'edit'; readonly role: string; readonly name: string; readonly field: FieldKind }

/**
 * What became of one captured event: kept as a step, merged into the edit just before it (the same field typed on),
 * or dropped: past a cap, or with no accessible name a step could find it by.
 */
export type CaptureOutcome = 'kept' | 'merged' | 'page-cap' | 'session-cap' | 'unlocatable'

export interface RecordingCounts {
  /** Events kept (merged edits are part of the edit they continue). */
  readonly eventCount: number
  readonly stepCount: number
  readonly inputCount: number
  readonly confirmCount: number
  /** Page loads seen, the first included. */
  readonly pageCount: number
  readonly dropped: { readonly pageCap: number; readonly sessionCap: number; readonly unlocatable: number }
}

export interface ComposedRecording {
  /** Workflow text `workflow_run` accepts (printed by print.ts, parsed back before it is handed out). */
  readonly source: string
  readonly inputs: readonly string[]
  readonly eventCount: number
  readonly counts: RecordingCounts
}

type Entry =
  | { readonly step: 'navigate'; readonly url: string }
  | { readonly step: 'click'; readonly name: string; readonly role?: string }
  | { readonly step: 'type'; readonly input: string; readonly name: string; readonly role?: string }
  | { readonly step: 'confirm'; readonly field: 'password' | 'one-time-code'; readonly name: string; readonly role?: string }

export class RecordingDraft {
  readonly #entries: Entry[] = []
  readonly #inputs: string[] = []
  readonly #inputNames = new Set<string>()
  /** `page \0 role \0 name` of a text field → its input: a field edited twice on one page is one input. */
  readonly #fieldInputs = new Map<string, string>()
  #pages = 0
  #pageEvents = 0
  #events = 0
  #lastEdit: string | undefined
  readonly #dropped = { pageCap: 0, sessionCap: 0, unlocatable: 0 }

  constructor(startUrl: string) {
    this.visit(startUrl)
  }

  /** The tab loaded a new document (BR.WORKFLOW_RECORD.12): the per-page cap starts over. */
  visit(url: string, options: { readonly byPage?: boolean } = {}): void {
    this.#pages++
    this.#pageEvents = 0
    this.#lastEdit = undefined
    const reduced = originAndPath(url)
    if (reduced === undefined || (this.#pages > 1 && options.byPage === true)) return
    const last = this.#entries.at(-1)
    if (last?.step === 'navigate') this.#entries[this.#entries.length - 1] = { step: 'navigate', url: reduced }
    else this.#entries.push({ step: 'navigate', url: reduced })
  }

  capture(event: CapturedEvent): CaptureOutcome {
    const name = normalizeName(event.name)
    if (name === '' || name.length > RECORDING_LIMITS.nameChars) return this.#drop('unlocatable')
    // A role the action grammar cannot carry is left out: the replay then takes the one role the name has.
    const role = isActionRole(event.role) ? event.role : undefined
    const fieldKey = `${this.#pages}\u0000${role ?? ''}\u0000${name}`
    if (event.kind === 'edit' && this.#lastEdit === fieldKey) return 'merged'
    if (this.#events >= RECORDING_LIMITS.eventsPerSession) return this.#drop('session-cap')
    if (this.#pageEvents >= RECORDING_LIMITS.eventsPerPage) return this.#drop('page-cap')
    this.#events++
    this.#pageEvents++
    const located = role === undefined ? { name } : { name, role }
    if (event.kind === 'click') {
      this.#entries.push({ step: 'click', ...located })
      this.#lastEdit = undefined
      return 'kept'
    }
    this.#lastEdit = fieldKey
    if (event.field === 'password' || event.field === 'one-time-code') {
      this.#entries.push({ step: 'confirm', field: event.field, ...located })
      return 'kept'
    }
    let input = this.#fieldInputs.get(fieldKey)
    if (input === undefined) {
      input = this.#newInputName(name)
      this.#fieldInputs.set(fieldKey, input)
    }
    this.#entries.push({ step: 'type', input, ...located })
    return 'kept'
  }

  #drop(reason: 'page-cap' | 'session-cap' | 'unlocatable'): CaptureOutcome {
    if (reason === 'page-cap') this.#dropped.pageCap++
    else if (reason === 'session-cap') this.#dropped.sessionCap++
    else this.#dropped.unlocatable++
    return reason
  }

  #newInputName(label: string): string {
    const base = inputNameBase(label)
    let candidate = base
    for (let n = 2; this.#inputNames.has(candidate); n++) candidate = `${base}_${n}`
    this.#inputNames.add(candidate)
    this.#inputs.push(candidate)
    return candidate
  }

  get counts(): RecordingCounts {
    return {
      eventCount: this.#events,
      stepCount: Math.max(1, this.#entries.length),
      inputCount: this.#inputs.length,
      confirmCount: this.#entries.filter((entry) => entry.step === 'confirm').length,
      pageCount: this.#pages,
      dropped: { ...this.#dropped },
    }
  }

  /** The steps so far as step text (`click "Publish" (button)`), for the person watching the recording. */
  stepTexts(): string[] {
    return this.#steps().map((step) => `${step.kind}: ${step.text}`)
  }

  #steps(): WorkflowStep[] {
    const texts: Array<Pick<WorkflowStep, 'kind' | 'text'>> = this.#entries.map(stepOf)
    // A workflow has at least one step: a recording of nothing says so, and `workflow_run` pauses on it.
    if (texts.length === 0) texts.push({ kind: 'goal', text: 'nothing was recorded' })
    return texts.map((step, position) => ({ index: position + 1, line: 0, ...step }))
  }

  /** The workflow of everything kept, front matter `site` and `inputs`; parsed back before it is answered. */
  compose(site: string): ComposedRecording {
    const source = printWorkflow({ site, inputs: [...this.#inputs], steps: this.#steps() })
    const parsed = parseWorkflow(source)
    if (!parsed.ok || parsed.warnings.length > 0) {
      const problems = parsed.ok ? parsed.warnings : parsed.errors
      throw new Error(`the recorder printed a workflow that does not read back cleanly: ${problems.map((problem) => problem.code).join(', ')}`)
    }
    return { source, inputs: [...this.#inputs], eventCount: this.#events, counts: this.counts }
  }
}

function stepOf(entry: Entry): Pick<WorkflowStep, 'kind' | 'text'> {
  if (entry.step === 'confirm') {
    const what = entry.field === 'password' ? 'the password' : 'the one-time code'
    const where = entry.role === undefined ? quote(entry.name) : `${quote(entry.name)} (${entry.role})`
    return { kind: 'confirm', text: `type ${what} into ${where} yourself, then resume` }
  }
  const action: Action =
    entry.step === 'navigate' ? { kind: 'navigate', url: entry.url }
    : entry.step === 'click' ? { kind: 'click', name: entry.name, ...(entry.role !== undefined ? { role: entry.role } : {}) }
    : { kind: 'type', value: { input: entry.input }, name: entry.name, ...(entry.role !== undefined ? { role: entry.role } : {}) }
  return { kind: 'action', text: printAction(action) }
}

/** `scheme://host:port/path` of an http(s) URL, nothing of its userinfo, query or fragment; undefined for any other. */
export function originAndPath(raw: string): string | undefined {
  if (!URL.canParse(raw)) return undefined
  const url = new URL(raw)
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined
  return `${url.origin}${url.pathname}`
}

/** White space runs (line breaks among them) as one space, trimmed: a name on one line, as the page shows it. */
export function normalizeName(name: string): string {
  let out = ''
  let pendingSpace = false
  for (let index = 0; index < name.length; index++) {
    const code = name.charCodeAt(index)
    if (isWhitespace(code)) {
      pendingSpace = out.length > 0
      continue
    }
    if (pendingSpace) out += ' '
    pendingSpace = false
    out += name[index]
  }
  return out
}

const COMBINING_MARK = /^\p{M}$/u

/**
 * An input name from a field's accessible name (`Email address` → `email_address`, `Título` → `titulo`): its ASCII
 * letters and digits, lowercased, runs joined by `_`, at most RECORDING_LIMITS.inputNameChars; `field` when nothing
 * is left, prefixed with `field_` when it would start with a digit. Always a name the front matter accepts.
 */
export function inputNameBase(label: string): string {
  const plain = label.normalize('NFKD').toLowerCase()
  const words: string[] = []
  let word = ''
  for (const char of plain) {
    // The accents NFKD split off letters belong to their letter: `í` reads as `i`, not as a break.
    if (COMBINING_MARK.test(char)) continue
    if ((char >= 'a' && char <= 'z') || (char >= '0' && char <= '9')) {
      word += char
    } else if (word !== '') {
      words.push(word)
      word = ''
    }
  }
  if (word !== '') words.push(word)
  let base = words.join('_').slice(0, RECORDING_LIMITS.inputNameChars).replace(/_+$/, '')
  if (base === '') return 'field'
  if (base[0]! >= '0' && base[0]! <= '9') base = `field_${base}`
  return base
}
