import { findReferences, isInputName, scanName } from './names.js'
import { skipWhitespace, splitLines } from './scan.js'
import {
  STEP_KINDS,
  type DiagnosticCode,
  type ErrorDiagnostic,
  type ParseResult,
  type StepKind,
  type WarningDiagnostic,
  type WorkflowStep,
} from './types.js'

/**
 * The workflow source parser (VMark's `parseWorkflow`, vmark.md §9.5):
 *
 *     ---
 *     site: <id>            required
 *     inputs: [a, b]        optional; brackets optional but balanced
 *     trigger: <text>       optional
 *     ---
 *     1. action: click "Publish" (button)      `N.` and `-` list markers are optional
 *     goal: <prose>
 *
 * Errors make the result `ok: false`; an unknown front-matter key and a `{name}` no input declares are warnings, and
 * warnings come back on both outcomes. A leading BOM is dropped; CRLF, CR and LF all end a line. It never throws, and
 * every scan is hand-written and linear (a 64 KiB line of quotes, spaces or braces costs what its length costs).
 *
 * The run's bounds (≤ 64 KiB of source, BR.WORKFLOW_RUN.11; ≤ 25 steps, BR.WORKFLOW_RUN.10) are not diagnostics: as in
 * VMark, where the run request's validation enforces them, the runner refuses a run that exceeds them (limits.ts holds
 * the numbers and the check). The parser reads any length, so a 30-step file gets its diagnostics too.
 */
export function parseWorkflow(source: string): ParseResult {
  const lines = splitLines(source.charCodeAt(0) === 0xfeff ? source.slice(1) : source)
  const frontMatter = readFrontMatter(lines)
  if (!frontMatter.ok) return { ok: false, errors: frontMatter.errors, warnings: frontMatter.warnings }
  const errors: ErrorDiagnostic[] = [...frontMatter.errors]
  const warnings: WarningDiagnostic[] = [...frontMatter.warnings]

  const site = frontMatter.fields.get('site')
  if (site === undefined || site.value === '') {
    errors.push(error(1, 'missing-site', 'The front matter has no `site:` (which site the workflow is for is required).'))
  }
  const inputsField = frontMatter.fields.get('inputs')
  const inputs = inputsField === undefined ? { names: [], errors: [] } : readInputs(inputsField.value, inputsField.line)
  errors.push(...inputs.errors)
  const trigger = frontMatter.fields.get('trigger')?.value

  const body = readSteps(lines, frontMatter.bodyStart)
  errors.push(...body.errors)
  if (body.steps.length === 0) errors.push(error(frontMatter.bodyStart + 1, 'no-steps', 'The workflow has no steps.'))
  warnings.push(...undeclaredReferences(body.steps, inputs.names))

  if (errors.length > 0 || site === undefined) return { ok: false, errors, warnings }
  const workflow = { site: site.value, inputs: inputs.names, ...(trigger ? { trigger } : {}), steps: body.steps }
  return { ok: true, workflow, warnings }
}

const KNOWN_KEYS = new Set(['site', 'inputs', 'trigger'])
const STEP_KIND_SET: ReadonlySet<string> = new Set(STEP_KINDS)

const error = (line: number, code: DiagnosticCode, message: string): ErrorDiagnostic => ({ line, code, message, severity: 'error' })
const warning = (line: number, code: DiagnosticCode, message: string): WarningDiagnostic => ({ line, code, message, severity: 'warning' })

/** A line's text for a message: long lines are cut, so a 64 KiB hostile line does not become a 64 KiB diagnostic. */
function excerpt(text: string): string {
  const limit = 80
  return JSON.stringify(text.length > limit ? `${text.slice(0, limit)}…` : text)
}

const isBlankOrComment = (trimmed: string): boolean => trimmed === '' || trimmed.charCodeAt(0) === 0x23

type FrontMatter =
  | {
      readonly ok: true
      readonly fields: ReadonlyMap<string, { readonly value: string; readonly line: number }>
      readonly errors: readonly ErrorDiagnostic[]
      readonly warnings: readonly WarningDiagnostic[]
      /** 0-based index of the first line after the closing `---`. */
      readonly bodyStart: number
    }
  | { readonly ok: false; readonly errors: ErrorDiagnostic[]; readonly warnings: WarningDiagnostic[] }

/**
 * The `---` … `---` block as key → trimmed value. Only `key: value`, blank and `#` lines may stand in it: any other
 * line is `malformed-front-matter` (VMark's current parser; skipping it would turn `inputs [title]` into a workflow
 * with no inputs and no word said). Keys follow the input-name rule, so `some-key:` is an unknown key, not a typo.
 */
function readFrontMatter(lines: readonly string[]): FrontMatter {
  if (lines[0]?.trim() !== '---') {
    return { ok: false, errors: [error(1, 'missing-front-matter', 'A workflow starts with a `---` front-matter block.')], warnings: [] }
  }
  const fields = new Map<string, { value: string; line: number }>()
  const errors: ErrorDiagnostic[] = []
  const warnings: WarningDiagnostic[] = []
  for (let index = 1; index < lines.length; index++) {
    const raw = lines[index]!
    const trimmed = raw.trim()
    if (trimmed === '---') return { ok: true, fields, errors, warnings, bodyStart: index + 1 }
    if (isBlankOrComment(trimmed)) continue
    const line = index + 1
    const keyEnd = scanName(raw, 0)
    const colon = skipWhitespace(raw, keyEnd)
    if (keyEnd === 0 || raw.charCodeAt(colon) !== 0x3a) {
      errors.push(error(line, 'malformed-front-matter', `A front-matter line is \`key: value\`; this one is ${excerpt(trimmed)}.`))
      continue
    }
    const key = raw.slice(0, keyEnd)
    if (fields.has(key)) {
      errors.push(error(line, 'duplicate-front-matter-key', `The front-matter key "${key}" is given twice (first on line ${fields.get(key)!.line}).`))
      continue
    }
    if (!KNOWN_KEYS.has(key)) {
      warnings.push(warning(line, 'unknown-front-matter-key', `Unknown front-matter key "${key}" (known: site, inputs, trigger); it is ignored.`))
    }
    fields.set(key, { value: raw.slice(colon + 1).trim(), line })
  }
  // What was diagnosed inside the unclosed block is kept: one pass reports everything.
  errors.push(error(1, 'unterminated-front-matter', 'The front matter is never closed (no second `---` line).'))
  return { ok: false, errors, warnings }
}

/** `inputs: [a, b]` (or `a, b`): names by the input-name rule, no empty entry, no name twice. */
function readInputs(raw: string, line: number): { names: string[]; errors: ErrorDiagnostic[] } {
  const errors: ErrorDiagnostic[] = []
  const opens = raw.startsWith('[')
  const closes = raw.endsWith(']')
  if (opens !== closes) {
    return { names: [], errors: [error(line, 'malformed-inputs', `The inputs list ${excerpt(raw)} has unbalanced brackets.`)] }
  }
  const list = (opens ? raw.slice(1, -1) : raw).trim()
  if (list === '') return { names: [], errors }
  const names: string[] = []
  const seen = new Set<string>()
  for (const entry of list.split(',')) {
    const name = entry.trim()
    if (name === '') {
      errors.push(error(line, 'malformed-inputs', `The inputs list ${excerpt(raw)} has an empty entry.`))
    } else if (!isInputName(name)) {
      errors.push(error(line, 'invalid-input-name', `${excerpt(name)} is not an input name (a letter or _, then letters, digits, _ or -).`))
    } else if (seen.has(name)) {
      errors.push(error(line, 'duplicate-input-name', `The input "${name}" is declared twice.`))
    } else {
      seen.add(name)
      names.push(name)
    }
  }
  return { names, errors }
}

/**
 * A step line: optional white space, an optional `N.` or `-` marker with white space after it, a lowercase kind, `:`,
 * the text (trimmed, not empty). Read by hand in one left-to-right pass; VMark's
 * `^\s*(?:(?:\d+\.|-)\s*)?([a-z]+)\s*:\s*([\s\S]*)$` accepts the same lines.
 */
function readStep(raw: string): { kind: string; text: string } | undefined {
  let index = skipWhitespace(raw, 0)
  const first = raw.charCodeAt(index)
  if (first >= 0x30 && first <= 0x39) {
    while (isDigit(raw.charCodeAt(index))) index++
    if (raw.charCodeAt(index) !== 0x2e) return undefined
    index = skipWhitespace(raw, index + 1)
  } else if (first === 0x2d) {
    index = skipWhitespace(raw, index + 1)
  }
  const kindStart = index
  while (isLowercase(raw.charCodeAt(index))) index++
  if (index === kindStart) return undefined
  const kind = raw.slice(kindStart, index)
  index = skipWhitespace(raw, index)
  if (raw.charCodeAt(index) !== 0x3a) return undefined
  const text = raw.slice(index + 1).trim()
  return text === '' ? undefined : { kind, text }
}

const isDigit = (code: number): boolean => code >= 0x30 && code <= 0x39
const isLowercase = (code: number): boolean => code >= 0x61 && code <= 0x7a

function readSteps(lines: readonly string[], bodyStart: number): { steps: WorkflowStep[]; errors: ErrorDiagnostic[] } {
  const steps: WorkflowStep[] = []
  const errors: ErrorDiagnostic[] = []
  for (let index = bodyStart; index < lines.length; index++) {
    const raw = lines[index]!
    const trimmed = raw.trim()
    if (isBlankOrComment(trimmed)) continue
    const line = index + 1
    const step = readStep(raw)
    if (step === undefined) {
      errors.push(error(line, 'malformed-step', `A step is \`<kind>: <text>\` with some text; this line is ${excerpt(trimmed)}.`))
    } else if (!STEP_KIND_SET.has(step.kind)) {
      errors.push(error(line, 'unknown-step-kind', `Unknown step kind "${step.kind}" (known: ${STEP_KINDS.join(', ')}).`))
    } else {
      steps.push({ index: steps.length + 1, kind: step.kind as StepKind, text: step.text, line })
    }
  }
  return { steps, errors }
}

/** One warning per `{name}` in a step's text that no input declares (VMark warns; substitution decides later). */
function undeclaredReferences(steps: readonly WorkflowStep[], inputs: readonly string[]): WarningDiagnostic[] {
  const declared = new Set(inputs)
  const warnings: WarningDiagnostic[] = []
  for (const step of steps) {
    for (const reference of findReferences(step.text)) {
      if (declared.has(reference.name)) continue
      warnings.push(warning(step.line, 'undeclared-variable', `Step ${step.index} refers to {${reference.name}}, which no input declares.`))
    }
  }
  return warnings
}
