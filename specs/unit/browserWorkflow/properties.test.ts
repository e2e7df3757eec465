import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isActionFailure, parseAction, printAction, type Action } from '../../../core/browser/workflow/action.js'
import { isInputName } from '../../../core/browser/workflow/names.js'
import { parseWorkflow } from '../../../core/browser/workflow/parse.js'
import { printWorkflow } from '../../../core/browser/workflow/print.js'
import { scanQuoted } from '../../../core/browser/workflow/quoted.js'
import { hasLineBreak, isTrimmed } from '../../../core/browser/workflow/scan.js'
import { substituteInputs } from '../../../core/browser/workflow/substitute.js'
import { DIAGNOSTIC_CODES, STEP_KINDS, type ParseResult, type Workflow } from '../../../core/browser/workflow/types.js'
import { fuzzParameters } from '../../support/fuzz.js'

/**
 * Properties of the workflow language, seeded like every property here (specs/support/fuzz.ts: fixed under
 * `npx vitest run`, fresh under QUIRE_FUZZ=1). A counterexample found is kept in regressions.test.ts.
 *
 * Text is built from pieces that matter to the grammar — quotes, backslashes and escapes, braces and references,
 * `#`, `---`, `:`, list markers, keywords, every kind of white space the parser trims (NBSP, U+3000, BOM) and the
 * line separators it does not split on, CR and LF, lone surrogates, control characters — mixed with arbitrary units.
 */
const PIECES = [
  '"', '\\', '\\"', '\\\\', '\\n', '\\u00', '\\u0041', '{', '}', '{a}', '{b-c}', '{1}', '#', '---', ':', ': ', '(', ')', '(button)',
  '[', ']', ',', '1. ', '- ', '.', '-', '_', 'a', 'Z', '7', ' ', '  ', '\t', '\u00a0', '\u3000', '\ufeff', '\u2028', '\u2029', '\r',
  '\n', '\r\n', '\u0000', '\u001f', '\ud800', '\udc00', '中', '😀', 'é', 'click ', 'type ', ' into ', 'navigate to ', 'action: ',
  'goal: ', 'site: ', 'inputs: ', 'https://x.test/',
]
const hostile = (maxLength = 24) =>
  fc.array(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...PIECES) }, { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 3 }) }), { maxLength }).map((pieces) => pieces.join(''))

/** One line that the parser keeps as it is: no CR or LF, nothing trim would take, not empty. */
const singleLine = (maxLength?: number) =>
  hostile(maxLength)
    .map((text) => text.replace(/[\r\n]/g, '').trim())
    .filter((text) => text !== '')

const inputName = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_-]{0,6}$/)
const role = fc.stringMatching(/^[a-z]{1,6}(-[a-z]{1,4}){0,2}$/)
const targetName = hostile().filter((name) => name.trim() !== '')

const withRole = <T extends object>(action: T, chosen: string | undefined): T => (chosen === undefined ? action : { ...action, role: chosen })

const action = (inputs: readonly string[]): fc.Arbitrary<Action> =>
  fc.oneof(
    fc.record({ name: targetName, role: fc.option(role, { nil: undefined }) }).map(({ name, role: chosen }) => withRole({ kind: 'click' as const, name }, chosen)),
    fc
      .record({
        value: inputs.length > 0 ? fc.oneof(hostile().map((literal) => ({ literal })), fc.constantFrom(...inputs).map((input) => ({ input }))) : hostile().map((literal) => ({ literal })),
        name: targetName,
        role: fc.option(role, { nil: undefined }),
      })
      .map(({ value, name, role: chosen }) => withRole({ kind: 'type' as const, value, name }, chosen)),
    singleLine().map((url) => ({ kind: 'navigate' as const, url })),
  )

const workflow: fc.Arbitrary<Workflow> = fc
  .record({
    site: singleLine(8),
    trigger: fc.option(singleLine(8), { nil: undefined }),
    inputs: fc.uniqueArray(inputName, { maxLength: 5 }),
  })
  .chain(({ site, trigger, inputs }) =>
    fc
      .array(
        fc.oneof(
          fc.record({ kind: fc.constantFrom(...STEP_KINDS), text: singleLine() }),
          action(inputs).map((chosen) => ({ kind: 'action' as const, text: printAction(chosen) })),
        ),
        { minLength: 1, maxLength: 30 },
      )
      .map((steps) => ({
        site,
        inputs,
        ...(trigger === undefined ? {} : { trigger }),
        steps: steps.map((step, position) => ({ index: position + 1, ...step, line: 0 })),
      })),
  )

const withoutLines = (value: Workflow) => ({ ...value, steps: value.steps.map(({ line: _line, ...step }) => step) })

/** What every parse result must look like, whatever the input. */
function checkWellFormed(source: string, result: ParseResult): void {
  const lineCount = source.split(/\r\n|\r|\n/).length
  const diagnostics = [...(result.ok ? [] : result.errors), ...result.warnings]
  for (const diagnostic of diagnostics) {
    expect(DIAGNOSTIC_CODES).toContain(diagnostic.code)
    expect(diagnostic.line).toBeGreaterThanOrEqual(1)
    expect(diagnostic.line).toBeLessThanOrEqual(lineCount + 1)
  }
  if (!result.ok) {
    expect(result.errors.length).toBeGreaterThan(0)
    expect(result.errors.every((diagnostic) => diagnostic.severity === 'error')).toBe(true)
  }
  expect(result.warnings.every((diagnostic) => diagnostic.severity === 'warning')).toBe(true)
  if (!result.ok) return
  const { site, trigger, inputs, steps } = result.workflow
  for (const value of [site, ...(trigger === undefined ? [] : [trigger])]) expect(value !== '' && isTrimmed(value) && !hasLineBreak(value)).toBe(true)
  expect(inputs.every(isInputName)).toBe(true)
  expect(new Set(inputs).size).toBe(inputs.length)
  expect(steps.length).toBeGreaterThan(0)
  steps.forEach((step, position) => {
    expect(step.index).toBe(position + 1)
    expect(step.text !== '' && isTrimmed(step.text) && !hasLineBreak(step.text)).toBe(true)
  })
}

/** A printed workflow with characters inserted, deleted or replaced: sources near the grammar, not only far from it. */
const mutatedSource = fc
  .tuple(workflow, fc.array(fc.tuple(fc.nat(), fc.nat({ max: 3 }), hostile(2)), { maxLength: 6 }))
  .map(([chosen, edits]) => {
    let text = printWorkflow(chosen)
    for (const [at, remove, insert] of edits) {
      const position = at % (text.length + 1)
      text = text.slice(0, position) + insert + text.slice(position + remove)
    }
    return text
  })

describe('workflow language properties', () => {
  it('print → parse gives back any workflow, up to the lines, which point at where each step was printed', () => {
    fc.assert(
      fc.property(workflow, (chosen) => {
        const text = printWorkflow(chosen)
        const result = parseWorkflow(text)
        if (!result.ok) throw new Error(`did not parse back: ${JSON.stringify(result.errors)}\n${text}`)
        expect(withoutLines(result.workflow)).toEqual(withoutLines(chosen))
        const printed = text.split('\n')
        for (const step of result.workflow.steps) expect(printed[step.line - 1]).toBe(`${step.index}. ${step.kind}: ${step.text}`)
      }),
      fuzzParameters({ numRuns: 300 }),
    )
  })

  it('parse never throws, and what it returns is well formed: arbitrary strings, hostile text, mutated workflows', () => {
    const sources = fc.oneof(fc.string({ unit: 'binary', maxLength: 200 }), hostile(60), hostile(30).map((body) => `---\n${body}`), mutatedSource)
    fc.assert(
      fc.property(sources, (source) => {
        checkWellFormed(source, parseWorkflow(source))
      }),
      fuzzParameters({ numRuns: 500 }),
    )
  })

  it('any workflow the parser accepts is printable and parses back to itself (print is a fixed point of parse)', () => {
    fc.assert(
      fc.property(mutatedSource, (source) => {
        const first = parseWorkflow(source)
        if (!first.ok) return
        const again = parseWorkflow(printWorkflow(first.workflow))
        if (!again.ok) throw new Error(JSON.stringify(again.errors))
        expect(withoutLines(again.workflow)).toEqual(withoutLines(first.workflow))
      }),
      fuzzParameters({ numRuns: 300 }),
    )
  })

  it("the hand-written line scanners accept exactly the lines VMark's documented patterns accept", () => {
    // vmark.md §9.5's patterns, as the specification of a step line and a front-matter line (short inputs only: these
    // are the regular expressions that backtrack on long hostile ones).
    const stepLine = /^\s*(?:(?:\d+\.|-)\s*)?([a-z]+)\s*:\s*([\s\S]*)$/
    const keyLine = /^([a-zA-Z_][\w-]*)\s*:\s*([\s\S]*)$/
    const line = hostile(12).map((text) => text.replace(/[\r\n]/g, ''))
    const kinds: ReadonlySet<string> = new Set(STEP_KINDS)
    fc.assert(
      fc.property(fc.oneof(line, fc.tuple(fc.constantFrom('', ' ', '\u3000', '1.', '- '), fc.constantFrom(...STEP_KINDS, 'goa', 'x'), line).map((parts) => parts.join(''))), (text) => {
        const trimmed = text.trim()
        const step = parseWorkflow(`---\nsite: x\n---\ngoal: g\n${text}`)
        const match = stepLine.exec(text)
        const expected =
          trimmed === '' || trimmed.startsWith('#')
            ? 'skipped'
            : match === null || match[2]!.trim() === ''
              ? 'malformed-step'
              : kinds.has(match[1]!)
                ? `${match[1]}: ${match[2]!.trim()}`
                : 'unknown-step-kind'
        const actual = step.ok
          ? step.workflow.steps.length === 1 ? 'skipped' : `${step.workflow.steps[1]!.kind}: ${step.workflow.steps[1]!.text}`
          : step.errors.map((diagnostic) => diagnostic.code).join(',')
        expect(actual).toBe(expected)

        const frontMatter = parseWorkflow(`---\n${text}\nsite: x\n---\ngoal: g`)
        const malformed = !frontMatter.ok && frontMatter.errors.some((diagnostic) => diagnostic.code === 'malformed-front-matter')
        expect(malformed).toBe(!(trimmed === '' || trimmed.startsWith('#') || trimmed === '---') && keyLine.exec(text) === null)
      }),
      fuzzParameters({ numRuns: 1000 }),
    )
  })

  it('printAction → parseAction gives back any action; any action parsed from a line prints back to itself', () => {
    fc.assert(
      fc.property(action(['a', 'b-c']), (chosen) => {
        expect(parseAction(printAction(chosen))).toStrictEqual(chosen)
      }),
      fuzzParameters({ numRuns: 300 }),
    )
    const actionLike = fc.oneof(hostile(), fc.tuple(fc.constantFrom('click ', 'type ', 'navigate to ', 'type {a} into '), hostile()).map(([head, tail]) => head + tail))
    fc.assert(
      fc.property(actionLike.map((text) => text.replace(/[\r\n]/g, '')), (text) => {
        const parsed = parseAction(text)
        if (isActionFailure(parsed)) {
          expect(['not-executable', 'malformed-target', 'malformed-value']).toContain(parsed.failure)
          return
        }
        expect(parseAction(printAction(parsed))).toStrictEqual(parsed)
      }),
      fuzzParameters({ numRuns: 500 }),
    )
  })

  it('the quoted-string scanner agrees with JSON.parse on every string literal, and stops at the first closing quote', () => {
    fc.assert(
      fc.property(hostile(), (inner) => {
        const text = `"${inner}"`
        let parsed: { value: string } | undefined
        try {
          parsed = { value: JSON.parse(text) as string }
        } catch {
          parsed = undefined
        }
        const scanned = scanQuoted(text, 0)
        if (parsed !== undefined) expect(scanned).toEqual({ ok: true, value: parsed.value, end: text.length })
        else if (scanned.ok) expect(JSON.parse(text.slice(0, scanned.end))).toBe(scanned.value)
      }),
      fuzzParameters({ numRuns: 1000 }),
    )
  })

  it('substitution never changes a step: same count, kinds and targets, a typed value is exactly the value', () => {
    const chore: Workflow = {
      site: 'blog',
      inputs: ['title', 'label'],
      steps: [
        { index: 1, kind: 'action', text: 'type {title} into "Title" (textbox)', line: 5 },
        { index: 2, kind: 'action', text: 'type "{title}" into "Body"', line: 6 },
        { index: 3, kind: 'action', text: 'click "{label}" (button)', line: 7 },
        { index: 4, kind: 'goal', text: 'check {title}', line: 8 },
      ],
    }
    fc.assert(
      fc.property(hostile(), targetName, (title, label) => {
        const result = substituteInputs(chore, { title, label })
        if (!result.ok) throw new Error(JSON.stringify(result.errors))
        expect(result.steps.map((step) => step.kind)).toEqual(['action', 'action', 'action', 'goal'])
        expect(result.steps[0]).toMatchObject({ action: { kind: 'type', value: { literal: title }, name: 'Title', role: 'textbox' } })
        expect(result.steps[1]).toMatchObject({ action: { kind: 'type', value: { literal: title }, name: 'Body' } })
        expect(result.steps[2]).toMatchObject({ action: { kind: 'click', name: label, role: 'button' } })
        for (const step of result.steps.slice(0, 3)) {
          if (!('action' in step)) throw new Error('expected an action')
          expect(hasLineBreak(step.text)).toBe(false)
          expect(parseAction(step.text)).toStrictEqual(step.action)
        }
      }),
      fuzzParameters({ numRuns: 300 }),
    )
  })
})
