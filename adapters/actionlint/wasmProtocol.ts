import type { ActionlintFinding } from './validation.js'

/** Messages between the WASM engine's owner (wasmEngine.ts) and its worker (wasmWorker.ts). */

/** Lint `source` as the workflow file `path`; answered by a `result` or `failed` with the same id. */
export interface LintRequest {
  readonly id: number
  readonly source: string
  readonly path: string
}

export type WorkerMessage =
  /** The engine is loaded; `version` was read from main.wasm. */
  | { readonly type: 'ready'; readonly version: string }
  /** The engine could not be loaded; the worker exits after sending this. */
  | { readonly type: 'loadFailed'; readonly message: string }
  | { readonly type: 'result'; readonly id: number; readonly findings: ActionlintFinding[] }
  | { readonly type: 'failed'; readonly id: number; readonly message: string }
