import { readFile } from 'node:fs/promises'
import { delimiter } from 'node:path'
import { isDeepStrictEqual } from 'node:util'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { findOnPath } from '../../adapters/actionlint/findOnPath.js'
import { createWorkflowValidator, type WorkflowValidator } from '../../adapters/actionlint/validator.js'
import { corpusFiles } from '../support/actionlintCliCorpus.js'
import { directEngine, type DirectEngine } from '../support/actionlintCliEngine.js'
import { actionlintCliDir, actionlintScript, type FakeBinDir } from '../support/actionlintCliWrappers.js'

/**
 * The binary engine (WF.VALIDATE.1, .3): an `actionlint` on PATH is preferred and spawned with actionlint's CLI
 * contract. The Go binary cannot be installed here, so the contract is exercised with actionlintCli.ts — the same
 * real engine behind actionlint's command line — and with shell scripts that hang or fail; a real binary on PATH is
 * tested too when there is one.
 */

const CLEAN = 'on: push\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo hi\n'
const BROKEN = 'on: push\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ nope.value }}\n'

const withFirst = (dir: string): NodeJS.ProcessEnv => ({ ...process.env, PATH: `${dir}${delimiter}${process.env.PATH ?? ''}` })

/** Whether `pid` is alive: a killed process whose parent died may linger as a zombie no one reaps (state Z). */
async function stillRunning(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined)
  if (stat === undefined) {
    try {
      process.kill(pid, 0)
      return process.platform !== 'linux'
    } catch {
      return false
    }
  }
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
}

const dirs: FakeBinDir[] = []
const validators: WorkflowValidator[] = []
const validatorWith = (options: Parameters<typeof createWorkflowValidator>[0]): WorkflowValidator => {
  const validator = createWorkflowValidator(options)
  validators.push(validator)
  return validator
}
async function script(body: string): Promise<FakeBinDir> {
  const dir = await actionlintScript(body)
  dirs.push(dir)
  return dir
}
afterEach(async () => {
  await Promise.all(validators.splice(0).map((validator) => validator.close()))
})
afterAll(async () => {
  await Promise.all(dirs.splice(0).map((dir) => dir.remove()))
})

describe('binary engine, with the real engine behind actionlint\'s CLI (actionlintCli.ts)', () => {
  let cli: FakeBinDir
  let engine: DirectEngine
  beforeAll(async () => {
    cli = await actionlintCliDir()
    dirs.push(cli)
    engine = await directEngine()
  })

  it('WF.VALIDATE.1 an actionlint on PATH answers: engine actionlint-binary, its -version, same diagnostics as the engine', async () => {
    const validator = validatorWith({ env: withFirst(cli.dir) })
    const picks = [
      ...corpusFiles('err').filter((file) => ['assign_expression.yaml', 'dedup_errors.yaml', 'case_sensitive_keys.yaml'].includes(file.name)),
      ...corpusFiles('examples').slice(0, 3),
      ...corpusFiles('ok').slice(0, 2),
    ]
    expect(picks.length).toBe(8)
    for (const file of picks) {
      const result = await validator.validate(file.source, file.name)
      expect(result.engine).toEqual({ name: 'actionlint-binary', version: engine.version })
      expect(result.binaryAvailable).toBe(true)
      expect(result.error).toBeUndefined()
      const direct = engine.lint(file.source, file.name).sort((a, b) => a.line - b.line || a.column - b.column)
      const got = result.diagnostics.map(({ line, col, message, kind }) => ({ message, line, column: col, kind }))
      expect(isDeepStrictEqual(got, direct), `${file.name}: ${JSON.stringify(got)} vs ${JSON.stringify(direct)}`).toBe(true)
      expect(result.ok).toBe(direct.length === 0)
    }
  })

  it('WF.VALIDATE.2 the binary\'s findings become {line, col, message, severity, kind}', async () => {
    const result = await validatorWith({ env: withFirst(cli.dir) }).validate(BROKEN, 'ci.yml')
    expect(result.ok).toBe(false)
    expect(result.diagnostics).toEqual([{ line: 6, col: 23, message: expect.stringContaining('undefined variable "nope"'), severity: 'error', kind: 'expression' }])
  })

  it('preferBinary: false uses the WASM engine even with an actionlint on PATH', async () => {
    const result = await validatorWith({ env: withFirst(cli.dir), preferBinary: false }).validate(CLEAN)
    expect(result).toEqual({ ok: true, diagnostics: [], binaryAvailable: true, engine: { name: 'actionlint-wasm', version: engine.version } })
  })
})

describe('binary engine failures', () => {
  it('a binary that hangs is killed at the time limit (its children too) and the call answers with an error', async () => {
    const dir = await script('sleep 30 &\necho $! > "$(dirname "$0")/sleeper.pid"\nwait')
    const started = performance.now()
    const result = await validatorWith({ env: withFirst(dir.dir), timeoutMs: 500 }).validate(CLEAN)
    expect(performance.now() - started).toBeLessThan(3_000)
    expect(result).toMatchObject({ ok: false, diagnostics: [], binaryAvailable: true, engine: { name: 'actionlint-binary', version: 'unknown' } })
    expect(result.error).toMatch(/did not finish within 500 ms/)
    const sleeper = Number((await readFile(`${dir.dir}/sleeper.pid`, 'utf8')).trim())
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(await stillRunning(sleeper)).toBe(false)
  })

  it('a binary that exits 3 reports its stderr as the error', async () => {
    const dir = await script('case "$1" in -version) echo 1.7.7; exit 0;; esac\ncat > /dev/null\necho "could not read config file .github/actionlint.yaml: bad indentation" >&2\nexit 3')
    const result = await validatorWith({ env: withFirst(dir.dir) }).validate(CLEAN)
    expect(result).toMatchObject({ ok: false, diagnostics: [], binaryAvailable: true, engine: { name: 'actionlint-binary', version: '1.7.7' } })
    expect(result.error).toContain('exited with code 3')
    expect(result.error).toContain('could not read config file .github/actionlint.yaml: bad indentation')
  })

  it('empty stdout with stderr is a failure with the stderr text', async () => {
    const dir = await script('echo "something went wrong" >&2\nexit 1')
    const result = await validatorWith({ env: withFirst(dir.dir) }).validate(CLEAN)
    expect(result).toMatchObject({ ok: false, binaryAvailable: true, error: expect.stringContaining('something went wrong') })
  })

  it('output that is not actionlint\'s JSON is a failure, not an empty answer', async () => {
    const dir = await script('echo "test.yaml:1:1: oops [syntax-check]"\nexit 1')
    const result = await validatorWith({ env: withFirst(dir.dir) }).validate(CLEAN)
    expect(result).toMatchObject({ ok: false, binaryAvailable: true, error: expect.stringContaining('not its JSON format') })
  })

  it('exit 0 with `null` or `[]` is a clean answer; the stdin reached the binary and the file name was passed', async () => {
    const dir = await script('case "$1" in -version) printf "v1.7.12\\ninstalled by a test\\n"; exit 0;; esac\n' +
      'cat > "$(dirname "$0")/stdin.txt"\nprintf "%s\\n" "$@" > "$(dirname "$0")/args.txt"\necho null')
    const result = await validatorWith({ env: withFirst(dir.dir) }).validate(CLEAN, '-odd name.yml')
    expect(result).toEqual({ ok: true, diagnostics: [], binaryAvailable: true, engine: { name: 'actionlint-binary', version: '1.7.12' } })
    expect(await readFile(`${dir.dir}/stdin.txt`, 'utf8')).toBe(CLEAN)
    expect((await readFile(`${dir.dir}/args.txt`, 'utf8')).split('\n').filter(Boolean)).toEqual(['-format', '{{json .}}', '-no-color', '-stdin-filename=-odd name.yml', '-'])
  })

  it('WF.VALIDATE.3 with no actionlint on PATH (empty PATH) the WASM engine answers and binaryAvailable is true', async () => {
    const result = await validatorWith({ env: { PATH: '' } }).validate(BROKEN)
    expect(result).toMatchObject({ ok: false, binaryAvailable: true, engine: { name: 'actionlint-wasm', version: expect.stringMatching(/^\d+\.\d+\.\d+$/) } })
    expect(result.diagnostics).toHaveLength(1)
  })

  it('a non-executable `actionlint` on PATH is not a binary: the WASM engine answers', async () => {
    const dir = await script('exit 0')
    const { chmod } = await import('node:fs/promises')
    await chmod(dir.binary, 0o644)
    const result = await validatorWith({ env: { PATH: dir.dir } }).validate(CLEAN)
    expect(result.engine?.name).toBe('actionlint-wasm')
  })
})

describe('a real actionlint binary', async () => {
  const real = await findOnPath('actionlint', process.env.PATH)
  it.runIf(real !== undefined)('WF.VALIDATE.1 the installed actionlint answers, with its version', async () => {
    const validator = validatorWith({ env: process.env })
    const clean = await validator.validate(CLEAN, 'ci.yml')
    expect(clean).toMatchObject({ ok: true, diagnostics: [], binaryAvailable: true, engine: { name: 'actionlint-binary', version: expect.stringMatching(/\d+\.\d+\.\d+/) } })
    const broken = await validator.validate(BROKEN, 'ci.yml')
    expect(broken.ok).toBe(false)
    expect(broken.error).toBeUndefined()
    expect(broken.diagnostics[0]).toMatchObject({ line: 6, col: 23, severity: 'error', kind: 'expression' })
  })
})
