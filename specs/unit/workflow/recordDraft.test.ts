/**
 * The recorder's draft (core/browser/workflow/recordDraft.ts): what the capture shim's locators become, the caps
 * (BR.WORKFLOW_RECORD.13), input naming (.8), confirm steps (.9), URLs (.10), navigations (.12), and that every
 * recording prints a workflow that parses back to itself (.5).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseWorkflow } from '../../../core/browser/workflow/parse.js'
import { inputNameBase, RECORDING_LIMITS, RecordingDraft, type CapturedEvent } from '../../../core/browser/workflow/recordDraft.js'
import { isInputName } from '../../../core/browser/workflow/names.js'

const START = 'https://blog.example/login?next=%2Fhome#top'
const click = (name: string, role = 'button'): CapturedEvent => ({ kind: 'click', role, name })
const edit = (name: string, field: 'text' | 'choice' | 'password' | 'one-time-code' = 'text', role = 'textbox'): CapturedEvent => ({ kind: 'edit', role, name, field })

function steps(draft: RecordingDraft, site = 'recording'): string[] {
  const { source } = draft.compose(site)
  return source.split('\n').slice(source.split('\n').indexOf('---', 1) + 1).filter(Boolean)
}

describe('RecordingDraft', () => {
  it('BR.WORKFLOW_RECORD.5 / BR.WORKFLOW_RECORD.6 / BR.WORKFLOW_RECORD.10 the start page is the first step, by origin and path; site and inputs head the source', () => {
    const draft = new RecordingDraft(START)
    draft.capture(edit('Email'))
    const composed = draft.compose('blog')
    expect(composed.source).toBe('---\nsite: blog\ninputs: [email]\n---\n1. action: navigate to https://blog.example/login\n2. action: type {email} into "Email" (textbox)\n')
    expect(composed).toMatchObject({ inputs: ['email'], eventCount: 1 })
  })

  it('BR.WORKFLOW_RECORD.8 each text or choice field is one named input, unique, reused when the same field is edited again on its page', () => {
    const draft = new RecordingDraft(START)
    for (const event of [edit('Title'), edit('Body'), edit('Title'), edit('Title'), edit('Category', 'choice', 'combobox'), edit('Título'), edit('2nd line'), edit('标题'), edit('标题 2')]) draft.capture(event)
    draft.visit('https://blog.example/next', { byPage: true })
    draft.capture(edit('Title'))
    expect(steps(draft)).toEqual([
      '1. action: navigate to https://blog.example/login',
      '2. action: type {title} into "Title" (textbox)',
      '3. action: type {body} into "Body" (textbox)',
      '4. action: type {title} into "Title" (textbox)',
      '5. action: type {category} into "Category" (combobox)',
      '6. action: type {titulo} into "Título" (textbox)',
      '7. action: type {field_2nd_line} into "2nd line" (textbox)',
      '8. action: type {field} into "标题" (textbox)',
      '9. action: type {field_2} into "标题 2" (textbox)',
      '10. action: type {title_2} into "Title" (textbox)',
    ])
    expect(draft.compose('recording').inputs).toEqual(['title', 'body', 'category', 'titulo', 'field_2nd_line', 'field', 'field_2', 'title_2'])
  })

  it('BR.WORKFLOW_RECORD.9 a password or one-time-code field is a confirm step for the person, never an input', () => {
    const draft = new RecordingDraft(START)
    draft.capture(edit('Password', 'password'))
    draft.capture(edit('Password', 'password'))
    draft.capture(edit('Code', 'one-time-code'))
    draft.capture(click('Log in'))
    expect(steps(draft).slice(1)).toEqual([
      '2. confirm: type the password into "Password" (textbox) yourself, then resume',
      '3. confirm: type the one-time code into "Code" (textbox) yourself, then resume',
      '4. action: click "Log in" (button)',
    ])
    expect(draft.compose('recording').inputs).toEqual([])
    expect(draft.counts).toMatchObject({ eventCount: 3, confirmCount: 2, inputCount: 0 })
  })

  it('BR.WORKFLOW_RECORD.11 names are kept as the page gives them (white space folded, quotes escaped); a role outside the grammar is left out; nameless events are dropped', () => {
    const draft = new RecordingDraft(START)
    expect(draft.capture(click('  Say\n "hi"\\  ', 'button'))).toBe('kept')
    expect(draft.capture(click('Odd', 'Weird_Role'))).toBe('kept')
    expect(draft.capture(click('   '))).toBe('unlocatable')
    expect(draft.capture(click('x'.repeat(RECORDING_LIMITS.nameChars + 1)))).toBe('unlocatable')
    expect(steps(draft).slice(1)).toEqual(['2. action: click "Say \\"hi\\"\\\\" (button)', '3. action: click "Odd"'])
    expect(draft.counts.dropped).toEqual({ pageCap: 0, sessionCap: 0, unlocatable: 2 })
  })

  it('BR.WORKFLOW_RECORD.12 a load the page asked for adds no step; the browser\'s own adds a navigate, and a navigate with nothing done on it gives way to the next', () => {
    const draft = new RecordingDraft(START)
    draft.capture(click('Next', 'link'))
    draft.visit('https://blog.example/second?token=abc', { byPage: true })
    draft.capture(click('Go'))
    draft.visit('https://other.example/third?x=1')
    draft.visit('https://other.example/fourth#frag')
    draft.capture(click('Done'))
    draft.visit('about:blank')
    expect(steps(draft)).toEqual([
      '1. action: navigate to https://blog.example/login',
      '2. action: click "Next" (link)',
      '3. action: click "Go" (button)',
      '4. action: navigate to https://other.example/fourth',
      '5. action: click "Done" (button)',
    ])
    expect(draft.counts.pageCount).toBe(5)
  })

  it('BR.WORKFLOW_RECORD.13 200 events per page and 1,000 per recording; edits continuing the same field are one event', () => {
    const draft = new RecordingDraft(START)
    for (let n = 0; n < 205; n++) draft.capture(click(`B${n}`))
    expect(draft.counts).toMatchObject({ eventCount: 200, dropped: { pageCap: 5, sessionCap: 0, unlocatable: 0 } })
    for (let page = 0; page < 5; page++) {
      draft.visit(`https://blog.example/p${page}`, { byPage: true })
      for (let n = 0; n < 200; n++) draft.capture(click(`P${page}-${n}`))
    }
    expect(draft.counts).toMatchObject({ eventCount: 1_000, dropped: { pageCap: 5, sessionCap: 200, unlocatable: 0 } })
    const merged = new RecordingDraft(START)
    expect([merged.capture(edit('Title')), merged.capture(edit('Title')), merged.capture(click('Publish')), merged.capture(edit('Title'))]).toEqual(['kept', 'merged', 'kept', 'kept'])
    expect(merged.counts.eventCount).toBe(3)
  })

  it('an empty recording of a page without an http address is still a workflow: a goal saying nothing was recorded', () => {
    const draft = new RecordingDraft('about:blank')
    expect(draft.compose('recording').source).toBe('---\nsite: recording\n---\n1. goal: nothing was recorded\n')
  })

  it('BR.WORKFLOW_RECORD.5 whatever the page names things, the source parses back cleanly with exactly the recorded inputs', () => {
    const name = fc.string({ minLength: 0, maxLength: 40, unit: 'binary' })
    const event = fc.oneof(
      fc.record({ kind: fc.constant('click' as const), role: fc.oneof(fc.constantFrom('button', 'link', 'checkbox', 'doc-pagebreak'), fc.string({ maxLength: 12 })), name }),
      fc.record({ kind: fc.constant('edit' as const), role: fc.constantFrom('textbox', 'combobox', 'searchbox', ''), name, field: fc.constantFrom('text' as const, 'choice' as const, 'password' as const, 'one-time-code' as const) }),
    )
    const visit = fc.record({ visit: fc.webUrl({ withQueryParameters: true, withFragments: true }), byPage: fc.boolean() })
    fc.assert(
      fc.property(fc.array(fc.oneof(event, visit), { maxLength: 40 }), (entries) => {
        const draft = new RecordingDraft(START)
        for (const entry of entries) {
          if ('visit' in entry) draft.visit(entry.visit, { byPage: entry.byPage })
          else draft.capture(entry)
        }
        const composed = draft.compose('site id')
        const parsed = parseWorkflow(composed.source)
        expect(parsed.ok && parsed.warnings).toEqual([])
        if (!parsed.ok) return
        expect(parsed.workflow.inputs).toEqual(composed.inputs)
        expect(parsed.workflow.steps).toHaveLength(draft.counts.stepCount)
        expect(composed.source).not.toMatch(/[?#]\S*\n/)
        for (const input of composed.inputs) expect(isInputName(input)).toBe(true)
      }),
      { numRuns: 100 },
    )
  })

  it('inputNameBase always gives a name the front matter accepts', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (label) => {
      expect(isInputName(inputNameBase(label))).toBe(true)
    }))
    expect(inputNameBase('Email address')).toBe('email_address')
    expect(inputNameBase('E-mail (work)')).toBe('e_mail_work')
  })
})
