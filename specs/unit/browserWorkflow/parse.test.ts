import { describe, expect, it } from 'vitest'
import { parseWorkflow } from '../../../core/browser/workflow/parse.js'
import { DIAGNOSTIC_CODES, type DiagnosticCode, type ParseResult } from '../../../core/browser/workflow/types.js'

/**
 * The workflow source parser against VMark's language (vmark.md §9.5): one test per diagnostic code, named after it,
 * each checking the code, its line and its severity; then the accepted shapes.
 */
const source = (...lines: string[]) => lines.join('\n')

function errorsOf(result: ParseResult) {
  if (result.ok) throw new Error(`expected a failed parse, got ${JSON.stringify(result.workflow)}`)
  return result.errors.map(({ code, line, severity }) => ({ code, line, severity }))
}

function workflowOf(result: ParseResult) {
  if (!result.ok) throw new Error(`expected a parse, got ${JSON.stringify(result.errors)}`)
  return result.workflow
}

const warningsOf = (result: ParseResult) => result.warnings.map(({ code, line, severity }) => ({ code, line, severity }))

describe('diagnostic codes', () => {
  const tested = new Set<DiagnosticCode>()
  const code = (name: DiagnosticCode) => {
    tested.add(name)
    return name
  }

  it('missing-front-matter: the first line is not ---', () => {
    expect(errorsOf(parseWorkflow('goal: do a thing'))).toEqual([{ code: code('missing-front-matter'), line: 1, severity: 'error' }])
    expect(errorsOf(parseWorkflow(''))).toEqual([{ code: 'missing-front-matter', line: 1, severity: 'error' }])
    // A blank line before the fence is not a fence either.
    expect(errorsOf(parseWorkflow(source('', '---', 'site: x', '---', 'goal: a')))[0]!.code).toBe('missing-front-matter')
  })

  it('unterminated-front-matter: no closing ---, and what was diagnosed before the end is kept', () => {
    expect(errorsOf(parseWorkflow(source('---', 'site: x', 'goal: a')))).toEqual([{ code: code('unterminated-front-matter'), line: 1, severity: 'error' }])
    const result = parseWorkflow(source('---', 'site: a', 'site: b', 'colour: red', 'goal: x'))
    expect(errorsOf(result)).toEqual([
      { code: 'duplicate-front-matter-key', line: 3, severity: 'error' },
      { code: 'unterminated-front-matter', line: 1, severity: 'error' },
    ])
    // Inside the unclosed block the step reads as one more key.
    expect(warningsOf(result)).toEqual([
      { code: 'unknown-front-matter-key', line: 4, severity: 'warning' },
      { code: 'unknown-front-matter-key', line: 5, severity: 'warning' },
    ])
  })

  it('malformed-front-matter: a front-matter line that is not key: value is an error, not skipped', () => {
    // `inputs [title]` skipped in silence would give a workflow with no inputs that still parses.
    const result = parseWorkflow(source('---', 'site: x', 'inputs [title]', '  trigger: indented', '---', 'goal: post {title}'))
    expect(errorsOf(result)).toEqual([
      { code: code('malformed-front-matter'), line: 3, severity: 'error' },
      { code: 'malformed-front-matter', line: 4, severity: 'error' },
    ])
  })

  it('missing-site: no site key, or an empty one', () => {
    expect(errorsOf(parseWorkflow(source('---', 'inputs: [a]', '---', 'goal: {a}')))).toEqual([{ code: code('missing-site'), line: 1, severity: 'error' }])
    expect(errorsOf(parseWorkflow(source('---', 'site:   ', '---', 'goal: a')))).toEqual([{ code: 'missing-site', line: 1, severity: 'error' }])
  })

  it('duplicate-front-matter-key: the second occurrence is the error and the first value stands', () => {
    expect(errorsOf(parseWorkflow(source('---', 'site: a', 'trigger: t', 'site: b', '---', 'goal: go')))).toEqual([
      { code: code('duplicate-front-matter-key'), line: 4, severity: 'error' },
    ])
  })

  it('unknown-front-matter-key: a warning, hyphenated keys included, and the workflow still parses', () => {
    const result = parseWorkflow(source('---', 'site: x', 'colour: blue', 'some-key: v', '---', 'goal: go'))
    expect(workflowOf(result).site).toBe('x')
    expect(warningsOf(result)).toEqual([
      { code: code('unknown-front-matter-key'), line: 3, severity: 'warning' },
      { code: 'unknown-front-matter-key', line: 4, severity: 'warning' },
    ])
    expect(result.warnings[1]!.message).toContain('some-key')
  })

  it.each(['[a, b', 'a, b]', ']', '[', '[a,,b]', '[a,]', 'a,'])('malformed-inputs: %s', (list) => {
    code('malformed-inputs')
    expect(errorsOf(parseWorkflow(source('---', 'site: x', 'trigger: t', `inputs: ${list}`, '---', 'goal: go')))).toEqual([
      { code: 'malformed-inputs', line: 4, severity: 'error' },
    ])
  })

  it.each(['1bad', 'a b', 'é', '-a', 'a.b', '{a}'])('invalid-input-name: %s, on the inputs line', (name) => {
    code('invalid-input-name')
    expect(errorsOf(parseWorkflow(source('---', 'site: x', 'trigger: t', `inputs: [ok, ${name}]`, '---', 'goal: go')))).toEqual([
      { code: 'invalid-input-name', line: 4, severity: 'error' },
    ])
  })

  it('duplicate-input-name', () => {
    expect(errorsOf(parseWorkflow(source('---', 'site: x', 'inputs: [a, b, a]', '---', 'goal: go')))).toEqual([
      { code: code('duplicate-input-name'), line: 3, severity: 'error' },
    ])
  })

  it.each(['just some prose', 'action:', 'goal:    ', 'API: x', 'goal1: x', '12 goal: x', '- - goal: x', '1.5. goal: x', `x:${' '.repeat(5000)}`])(
    'malformed-step: %j',
    (line) => {
      code('malformed-step')
      expect(errorsOf(parseWorkflow(source('---', 'site: x', '---', 'goal: ok', line)))).toEqual([{ code: 'malformed-step', line: 5, severity: 'error' }])
    },
  )

  it.each(['frobnicate: b', 'gaol: x', 'extractt: x', 'click: "Go"'])('unknown-step-kind: %s', (line) => {
    code('unknown-step-kind')
    expect(errorsOf(parseWorkflow(source('---', 'site: x', '---', 'goal: a', line)))).toEqual([{ code: 'unknown-step-kind', line: 5, severity: 'error' }])
  })

  it('no-steps: reported on the line after the closing fence', () => {
    expect(errorsOf(parseWorkflow(source('---', 'site: x', '---', '', '# only a comment')))).toEqual([{ code: code('no-steps'), line: 4, severity: 'error' }])
    expect(errorsOf(parseWorkflow(source('---', 'site: x', '---')))).toEqual([{ code: 'no-steps', line: 4, severity: 'error' }])
  })

  it('undeclared-variable: a warning per reference, on the step line, in every step kind and inside quotes', () => {
    const result = parseWorkflow(source('---', 'site: x', 'inputs: [a]', '---', 'goal: use {a} and {b}', 'action: type "{c}" into "{a}"', 'confirm: {a{d}'))
    expect(workflowOf(result).steps).toHaveLength(3)
    expect(warningsOf(result)).toEqual([
      { code: code('undeclared-variable'), line: 5, severity: 'warning' },
      { code: 'undeclared-variable', line: 6, severity: 'warning' },
      { code: 'undeclared-variable', line: 7, severity: 'warning' },
    ])
    expect(result.warnings.map((warning) => warning.message.match(/\{[^}]+\}/)![0])).toEqual(['{b}', '{c}', '{d}'])
  })

  it('every code of the language is tested above', () => {
    expect([...tested].sort()).toEqual([...DIAGNOSTIC_CODES].sort())
  })
})

describe('what parses', () => {
  it('front matter, numbered, dashed and bare steps, their indexes and lines', () => {
    const result = parseWorkflow(
      source('---', 'site: zhihu', 'inputs: [article_path, my-title]', 'trigger: manual', '---', '1. goal: open my dashboard', '', '# a comment', '- extract: new comments', 'action: click 回复 and submit', '  2.confirm :  show me  '),
    )
    expect(result).toEqual({
      ok: true,
      workflow: {
        site: 'zhihu',
        inputs: ['article_path', 'my-title'],
        trigger: 'manual',
        steps: [
          { index: 1, kind: 'goal', text: 'open my dashboard', line: 6 },
          { index: 2, kind: 'extract', text: 'new comments', line: 9 },
          { index: 3, kind: 'action', text: 'click 回复 and submit', line: 10 },
          { index: 4, kind: 'confirm', text: 'show me', line: 11 },
        ],
      },
      warnings: [],
    })
  })

  it.each(['api', 'action', 'goal', 'confirm', 'extract'])('the %s step kind', (kind) => {
    expect(workflowOf(parseWorkflow(source('---', 'site: x', '---', `${kind}: do the thing`))).steps[0]!.kind).toBe(kind)
  })

  it('inputs without brackets, an empty list, and none at all', () => {
    expect(workflowOf(parseWorkflow(source('---', 'site: x', 'inputs: a, b', '---', 'goal: go'))).inputs).toEqual(['a', 'b'])
    expect(workflowOf(parseWorkflow(source('---', 'site: x', 'inputs: [ ]', '---', 'goal: go'))).inputs).toEqual([])
    expect(workflowOf(parseWorkflow(source('---', 'site: x', 'inputs:', '---', 'goal: go'))).inputs).toEqual([])
    expect(workflowOf(parseWorkflow(source('---', 'site: x', '---', 'goal: go'))).inputs).toEqual([])
  })

  it('an absent or empty trigger is absent from the workflow', () => {
    expect('trigger' in workflowOf(parseWorkflow(source('---', 'site: x', '---', 'goal: go')))).toBe(false)
    expect('trigger' in workflowOf(parseWorkflow(source('---', 'site: x', 'trigger:', '---', 'goal: go')))).toBe(false)
  })

  it('blank and # lines inside the front matter; values are trimmed; a value may hold colons and #', () => {
    const result = parseWorkflow(source('---', '', '# what this does', 'site :  a: b # c  ', '  ', '---', 'goal: go'))
    expect(workflowOf(result).site).toBe('a: b # c')
  })

  it('a BOM is dropped, and CRLF and lone CR sources parse exactly like LF', () => {
    const lf = source('---', 'site: x', 'inputs: [a]', '---', '1. goal: first {a}', '', '2. action: click "Go" (button)')
    const expected = parseWorkflow(lf)
    expect(expected.ok).toBe(true)
    expect(parseWorkflow(lf.replaceAll('\n', '\r\n'))).toEqual(expected)
    expect(parseWorkflow(lf.replaceAll('\n', '\r'))).toEqual(expected)
    expect(parseWorkflow(`\uFEFF${lf.replaceAll('\n', '\r\n')}`)).toEqual(expected)
  })

  it('U+2028 and U+2029 are characters inside a line, not line ends', () => {
    const result = parseWorkflow(source('---', 'site: a\u2028b', '---', 'goal: one\u2028two\u2029three'))
    expect(workflowOf(result).site).toBe('a\u2028b')
    expect(workflowOf(result).steps).toEqual([{ index: 1, kind: 'goal', text: 'one\u2028two\u2029three', line: 4 }])
  })

  it('collects every error of a file in one pass, with the warnings', () => {
    const result = parseWorkflow(source('---', 'colour: blue', 'inputs: [1a, b, b]', '---', 'bogus: a', 'prose', 'goal: {zz}'))
    expect(errorsOf(result)).toEqual([
      { code: 'missing-site', line: 1, severity: 'error' },
      { code: 'invalid-input-name', line: 3, severity: 'error' },
      { code: 'duplicate-input-name', line: 3, severity: 'error' },
      { code: 'unknown-step-kind', line: 5, severity: 'error' },
      { code: 'malformed-step', line: 6, severity: 'error' },
    ])
    expect(warningsOf(result)).toEqual([
      { code: 'unknown-front-matter-key', line: 2, severity: 'warning' },
      { code: 'undeclared-variable', line: 7, severity: 'warning' },
    ])
  })

  it('reads more than the run limits (the runner refuses those): 30 steps parse', () => {
    const steps = Array.from({ length: 30 }, (_, index) => `${index + 1}. goal: step ${index + 1}`)
    expect(workflowOf(parseWorkflow(source('---', 'site: x', '---', ...steps))).steps).toHaveLength(30)
  })

  it('a diagnostic quotes at most 80 characters of a hostile line', () => {
    const result = parseWorkflow(source('---', 'site: x', '---', 'goal: a', '"'.repeat(60_000)))
    if (result.ok) throw new Error('expected an error')
    expect(result.errors[0]!.message.length).toBeLessThan(300)
  })
})
