import { describe, expect, it } from 'vitest'
import { parseAction, printActionLine } from '../../../core/browser/workflow/action.js'
import { parseWorkflow } from '../../../core/browser/workflow/parse.js'
import { printWorkflow, WorkflowPrintError } from '../../../core/browser/workflow/print.js'
import type { Workflow } from '../../../core/browser/workflow/types.js'

/** printWorkflow: the source it writes, what it refuses, and recorder-format lines read back. */

const base: Workflow = {
  site: 'blog',
  inputs: ['title', 'my-body'],
  trigger: 'manual',
  steps: [
    { index: 1, kind: 'action', text: 'navigate to https://blog.test/new', line: 0 },
    { index: 2, kind: 'action', text: 'type {title} into "Title" (textbox)', line: 0 },
    { index: 3, kind: 'goal', text: '# not a comment: "quotes" \\ {my-body} ---', line: 0 },
  ],
}

describe('printWorkflow', () => {
  it('writes the front matter and numbered steps, and parses back to the same workflow', () => {
    const text = printWorkflow(base)
    expect(text).toBe(
      [
        '---',
        'site: blog',
        'inputs: [title, my-body]',
        'trigger: manual',
        '---',
        '1. action: navigate to https://blog.test/new',
        '2. action: type {title} into "Title" (textbox)',
        '3. goal: # not a comment: "quotes" \\ {my-body} ---',
        '',
      ].join('\n'),
    )
    expect(parseWorkflow(text)).toEqual({
      ok: true,
      workflow: { ...base, steps: base.steps.map((step, index) => ({ ...step, line: 6 + index })) },
      warnings: [],
    })
  })

  it('leaves out an empty inputs list and an absent trigger', () => {
    expect(printWorkflow({ site: 'x', inputs: [], steps: [{ index: 1, kind: 'goal', text: 'go', line: 1 }] })).toBe('---\nsite: x\n---\n1. goal: go\n')
  })

  it.each<[string, Partial<Workflow>, RegExp]>([
    ['an empty site', { site: '' }, /^site:/],
    ['a padded site', { site: ' blog' }, /^site:/],
    ['a site holding a line break', { site: 'a\n---' }, /^site:/],
    ['a site ending in U+FEFF (trim removes it)', { site: 'a\ufeff' }, /^site:/],
    ['an empty trigger', { trigger: '' }, /^trigger:/],
    ['a trigger holding CR', { trigger: 'a\rb' }, /^trigger:/],
    ['an invalid input name', { inputs: ['1a'] }, /^inputs:/],
    ['an input name with a comma', { inputs: ['a, b'] }, /^inputs:/],
    ['a duplicate input', { inputs: ['a', 'a'] }, /^inputs:/],
    ['no steps', { steps: [] }, /^steps:/],
    ['a step index out of place', { steps: [{ index: 2, kind: 'goal', text: 'go', line: 1 }] }, /^steps:/],
    ['an unknown kind', { steps: [{ index: 1, kind: 'frob' as 'goal', text: 'go', line: 1 }] }, /^steps:/],
    ['empty step text', { steps: [{ index: 1, kind: 'goal', text: '', line: 1 }] }, /^steps:/],
    ['padded step text', { steps: [{ index: 1, kind: 'goal', text: 'go\u3000', line: 1 }] }, /^steps:/],
    ['step text that would forge a step', { steps: [{ index: 1, kind: 'goal', text: 'go\n2. action: click "Delete"', line: 1 }] }, /^steps:/],
  ])('refuses %s rather than writing something else', (_, change, message) => {
    expect(() => printWorkflow({ ...base, ...change })).toThrow(WorkflowPrintError)
    expect(() => printWorkflow({ ...base, ...change })).toThrow(message)
  })
})

describe("the recorder's output parses back", () => {
  it('a recording of a login-and-post chore: lines, inputs and confirm steps', () => {
    const lines = [
      printActionLine(1, { kind: 'navigate', url: 'https://blog.test/login' }),
      printActionLine(2, { kind: 'type', value: { input: 'Username' }, name: 'Username', role: 'textbox' }),
      '3. confirm: enter "Password"',
      printActionLine(4, { kind: 'click', name: 'Sign "in"\nnow', role: 'button' }),
      printActionLine(5, { kind: 'type', value: { input: 'Title' }, name: 'Title', role: 'textbox' }),
      printActionLine(6, { kind: 'click', name: 'Publish', role: 'button' }),
      '7. extract: content',
    ]
    const result = parseWorkflow(['---', 'site: recording', 'inputs: [Username, Title]', '---', ...lines].join('\n') + '\n')
    if (!result.ok) throw new Error(JSON.stringify(result.errors))
    expect(result.warnings).toEqual([])
    expect(result.workflow.steps.map((step) => step.kind)).toEqual(['action', 'action', 'confirm', 'action', 'action', 'action', 'extract'])
    expect(parseAction(result.workflow.steps[3]!.text)).toStrictEqual({ kind: 'click', name: 'Sign "in"\nnow', role: 'button' })
    expect(parseAction(result.workflow.steps[1]!.text)).toStrictEqual({ kind: 'type', value: { input: 'Username' }, name: 'Username', role: 'textbox' })
  })
})
