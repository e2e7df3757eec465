import { describe, expect, it } from 'vitest'
import { parseAction } from '../../../core/browser/workflow/action.js'
import { parseWorkflow } from '../../../core/browser/workflow/parse.js'
import { scanQuoted } from '../../../core/browser/workflow/quoted.js'

/**
 * Counterexamples of the workflow-language properties (properties.test.ts), kept as examples so they are checked on
 * every run whatever the seed. A new one goes here with the seed that found it (replay: QUIRE_FUZZ=1
 * QUIRE_FUZZ_SEED=<seed> npx vitest run specs/unit/browserWorkflow/properties.test.ts). No QUIRE_FUZZ run has failed
 * yet; the first cases are the shrunk counterexamples the properties gave against deliberately broken scanners while
 * they were written (so each property is shown to catch that mistake), and VMark's own hostile inputs.
 */
describe('workflow language regressions', () => {
  it('U+001F is a raw control character JSON refuses (found by the JSON.parse agreement property, scanner refusing < 0x1f)', () => {
    expect(scanQuoted('"\u001f"', 0)).toMatchObject({ ok: false, problem: 'control-character' })
    expect(parseAction('click "\u001f"')).toMatchObject({ failure: 'malformed-target' })
  })

  it('U+3000 before a step kind is white space, as \\s is (found by the pattern agreement property, U+3000 left out)', () => {
    expect(parseWorkflow('---\nsite: x\n---\ngoal: ok\n\u3000apihttps://x.test/')).toMatchObject({ ok: false, errors: [{ code: 'unknown-step-kind', line: 5 }] })
    expect(parseWorkflow('---\nsite: x\n---\n\u3000goal: g')).toMatchObject({ ok: true, workflow: { steps: [{ kind: 'goal', text: 'g' }] } })
  })

  it("VMark's hostile inputs: 30,000 escaped quotes never closed, and 50,000 spaces after a colon or before a kind", () => {
    expect(parseAction(`click "${'\\"'.repeat(30_000)}`)).toMatchObject({ failure: 'malformed-target' })
    expect(parseWorkflow(`---\nsite: x\n---\ngoal: ok\nx:${' '.repeat(50_000)}`)).toMatchObject({ ok: false, errors: [{ code: 'malformed-step', line: 5 }] })
    expect(parseWorkflow(`---\nsite: x\n---\ngoal: ok\n${' '.repeat(50_000)}!`)).toMatchObject({ ok: false, errors: [{ code: 'malformed-step', line: 5 }] })
  })
})
