import { isActionFailure, parseAction, printAction, type Action, type ActionFailure } from './action.js'
import { WORKFLOW_LIMITS, utf8Bytes } from './limits.js'
import { findReferences } from './names.js'
import { hasLineBreak } from './scan.js'
import type { StepKind, Workflow, WorkflowStep } from './types.js'

/**
 * A run's inputs put into its steps (BR.WORKFLOW_RUN.2–4). Binding comes first: every input the workflow declares
 * must be supplied (an own property: `constructor` is not supplied by every object), a supplied name the workflow does
 * not declare is refused rather than ignored, values are strings, and VMark's bounds hold (≤ 64 inputs, ≤ 4 KiB each).
 *
 * Then each step is substituted AFTER it is parsed, never as source text: `type {title} into "Title"` becomes the
 * action `type` with the literal value, so a value holding a quote, a `" into "`, a line break or a `{name}` of its
 * own stays one literal and cannot add a step, change the target or be substituted again. `{name}` inside a quoted
 * name or literal and in prose steps is replaced too (once, left to right); a `{name}` no input declares stays as
 * written there (the parser warned of it), but as a `type` value it is an error, there being nothing to type.
 *
 * In a `navigate to` URL a reference that is the whole URL supplies the URL; one inside a URL supplies a piece of it,
 * percent-encoded (`encodeURIComponent`, lone surrogates as U+FFFD) so it cannot add a path segment, a query
 * parameter, a fragment or userinfo. A substitution that leaves a target name blank (it would match every unlabelled
 * control) or a URL empty or holding a line break is refused.
 *
 * Errors are values, for the runner to turn into its refusal; nothing here throws.
 */

export type InputErrorCode =
  | 'missing-input'
  | 'undeclared-input'
  | 'input-not-string'
  | 'too-many-inputs'
  | 'input-too-large'
  | 'unbound-reference'
  | 'unusable-value'

export interface InputError {
  readonly code: InputErrorCode
  readonly message: string
  /** The input concerned, when one is. */
  readonly name?: string
  /** The step concerned (1-based index), for the substitution errors. */
  readonly step?: number
}

/** Input name → value, exactly the workflow's declared inputs once bound. */
export type BoundInputs = ReadonlyMap<string, string>

/** An action with every input put in: a `type` always has its literal text. */
export type BoundAction =
  | { readonly kind: 'click'; readonly name: string; readonly role?: string }
  | { readonly kind: 'type'; readonly value: { readonly literal: string }; readonly name: string; readonly role?: string }
  | { readonly kind: 'navigate'; readonly url: string }

interface ResolvedBase {
  readonly index: number
  readonly line: number
  /** The step's text as written in the source. */
  readonly source: string
  /** The text with the inputs in: for a runnable action the action as step text (printAction), else the prose. */
  readonly text: string
}

/** A step ready to run: a runnable action, an `action:` that cannot run (and why), or a step for the assistant. */
export type ResolvedStep =
  | (ResolvedBase & { readonly kind: 'action'; readonly action: BoundAction })
  | (ResolvedBase & { readonly kind: 'action'; readonly failure: ActionFailure })
  | (ResolvedBase & { readonly kind: Exclude<StepKind, 'action'> })

export type BindResult = { readonly ok: true; readonly inputs: BoundInputs } | { readonly ok: false; readonly errors: readonly InputError[] }

export type SubstitutionResult =
  | { readonly ok: true; readonly inputs: BoundInputs; readonly steps: readonly ResolvedStep[] }
  | { readonly ok: false; readonly errors: readonly InputError[] }

/** Checks `supplied` against the declared inputs; every problem is reported, not just the first. */
export function bindInputs(workflow: Workflow, supplied: Readonly<Record<string, unknown>> | undefined): BindResult {
  const given = supplied ?? {}
  const declared = new Set(workflow.inputs)
  const errors: InputError[] = []
  const names = Object.keys(given)
  if (names.length > WORKFLOW_LIMITS.inputs) {
    errors.push({ code: 'too-many-inputs', message: `${names.length} inputs were supplied; at most ${WORKFLOW_LIMITS.inputs} are accepted.` })
  }
  for (const name of workflow.inputs) {
    if (!Object.hasOwn(given, name)) errors.push({ code: 'missing-input', name, message: `The workflow's input "${name}" was not supplied.` })
  }
  const bound = new Map<string, string>()
  for (const name of names) {
    const value = given[name]
    if (!declared.has(name)) {
      errors.push({ code: 'undeclared-input', name, message: `The workflow declares no input "${name}" (it declares: ${workflow.inputs.join(', ') || 'none'}).` })
    } else if (typeof value !== 'string') {
      errors.push({ code: 'input-not-string', name, message: `The input "${name}" must be a string.` })
    } else if (utf8Bytes(value) > WORKFLOW_LIMITS.inputValueBytes) {
      errors.push({ code: 'input-too-large', name, message: `The input "${name}" is ${utf8Bytes(value)} bytes; at most ${WORKFLOW_LIMITS.inputValueBytes} are accepted.` })
    } else {
      bound.set(name, value)
    }
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, inputs: bound }
}

/** Replaces each `{name}` of a bound input with its value, in one pass; other braces stay as written. */
export function substituteText(text: string, inputs: BoundInputs, encode: (value: string) => string = (value) => value): string {
  const parts: string[] = []
  let copied = 0
  for (const reference of findReferences(text)) {
    const value = inputs.get(reference.name)
    if (value === undefined) continue
    parts.push(text.slice(copied, reference.start), encode(value))
    copied = reference.end
  }
  if (copied === 0) return text
  parts.push(text.slice(copied))
  return parts.join('')
}

const encodeUrlPiece = (value: string): string => encodeURIComponent(value.toWellFormed())

function unusable(step: number, message: string): InputError {
  return { code: 'unusable-value', step, message: `Step ${step}: ${message}` }
}

/** The action with the inputs in, or why the inputs make it unusable. */
export function substituteAction(action: Action, inputs: BoundInputs, step: number): BoundAction | InputError {
  if (action.kind === 'navigate') {
    const references = findReferences(action.url)
    const whole = references.length === 1 && references[0]!.start === 0 && references[0]!.end === action.url.length
    const url = (whole ? substituteText(action.url, inputs) : substituteText(action.url, inputs, encodeUrlPiece)).trim()
    if (url === '' || hasLineBreak(url)) return unusable(step, 'the URL is empty or holds a line break once its inputs are in.')
    return { kind: 'navigate', url }
  }
  const name = substituteText(action.name, inputs)
  if (name.trim() === '') return unusable(step, 'the target name is blank once its inputs are in; it would match every unlabelled control.')
  const target = action.role === undefined ? { name } : { name, role: action.role }
  if (action.kind === 'click') return { kind: 'click', ...target }
  if ('literal' in action.value) return { kind: 'type', value: { literal: substituteText(action.value.literal, inputs) }, ...target }
  const value = inputs.get(action.value.input)
  if (value === undefined) {
    return { code: 'unbound-reference', name: action.value.input, step, message: `Step ${step} types {${action.value.input}}, which no input declares.` }
  }
  return { kind: 'type', value: { literal: value }, ...target }
}

const isInputError = (value: BoundAction | InputError): value is InputError => 'code' in value

export function resolveStep(step: WorkflowStep, inputs: BoundInputs): ResolvedStep | InputError {
  const base = { index: step.index, line: step.line, source: step.text }
  if (step.kind !== 'action') return { ...base, kind: step.kind, text: substituteText(step.text, inputs) }
  const parsed = parseAction(step.text)
  if (isActionFailure(parsed)) return { ...base, kind: 'action', text: substituteText(step.text, inputs), failure: parsed }
  const action = substituteAction(parsed, inputs, step.index)
  if (isInputError(action)) return action
  return { ...base, kind: 'action', text: printAction(action), action }
}

/** Binds the inputs, then resolves every step; all errors of the failing stage are reported. */
export function substituteInputs(workflow: Workflow, supplied: Readonly<Record<string, unknown>> | undefined): SubstitutionResult {
  const bound = bindInputs(workflow, supplied)
  if (!bound.ok) return bound
  const steps: ResolvedStep[] = []
  const errors: InputError[] = []
  for (const step of workflow.steps) {
    const resolved = resolveStep(step, bound.inputs)
    if ('code' in resolved) errors.push(resolved)
    else steps.push(resolved)
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, inputs: bound.inputs, steps }
}
