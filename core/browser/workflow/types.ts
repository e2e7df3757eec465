/**
 * The browser workflow's parsed form (VMark's workflow_run source language, TOOLS.md §8.2): the front matter's
 * `site`, `inputs` and `trigger`, and the steps in order. Pure data; parse.ts builds it, print.ts writes it back.
 */

/**
 * What a step is. `action` and `extract` run in the daemon (deterministic); `goal`, `confirm` and `api` pause the run
 * for the assistant or the person (BR.WORKFLOW_RUN.5–6). The tuple is the one list the parser checks against.
 */
export const STEP_KINDS = ['api', 'action', 'goal', 'confirm', 'extract'] as const

export type StepKind = (typeof STEP_KINDS)[number]

export interface WorkflowStep {
  /** 1-based position among the steps (not the source line). */
  readonly index: number
  readonly kind: StepKind
  /** What follows `kind:`, trimmed: never empty, never holding a line break. */
  readonly text: string
  /** 1-based source line the step was read from. */
  readonly line: number
}

export interface Workflow {
  readonly site: string
  /** Declared input names, in declaration order, unique. */
  readonly inputs: readonly string[]
  /** Absent when the front matter has none (or an empty one). */
  readonly trigger?: string
  readonly steps: readonly WorkflowStep[]
}

/** VMark's diagnostic codes, the same strings (a client localizes or tests by code, never by message). */
export const DIAGNOSTIC_CODES = [
  'missing-front-matter',
  'unterminated-front-matter',
  'malformed-front-matter',
  'missing-site',
  'duplicate-front-matter-key',
  'unknown-front-matter-key',
  'malformed-inputs',
  'invalid-input-name',
  'duplicate-input-name',
  'malformed-step',
  'unknown-step-kind',
  'no-steps',
  'undeclared-variable',
] as const

export type DiagnosticCode = (typeof DIAGNOSTIC_CODES)[number]

export type DiagnosticSeverity = 'error' | 'warning'

export interface Diagnostic<S extends DiagnosticSeverity = DiagnosticSeverity> {
  /** 1-based source line. */
  readonly line: number
  readonly code: DiagnosticCode
  /** English for logs and developers; callers decide by `code`. */
  readonly message: string
  readonly severity: S
}

export type ErrorDiagnostic = Diagnostic<'error'>
export type WarningDiagnostic = Diagnostic<'warning'>

/** A failed parse still carries its warnings, so one pass shows every diagnostic. */
export type ParseResult =
  | { readonly ok: true; readonly workflow: Workflow; readonly warnings: readonly WarningDiagnostic[] }
  | { readonly ok: false; readonly errors: readonly ErrorDiagnostic[]; readonly warnings: readonly WarningDiagnostic[] }
