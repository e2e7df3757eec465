/**
 * Domain outcomes that refuse a command. `code` is the spec's error code (TOOLS.md §13) or a core-only code the
 * adapters map; `details` carries the code-specific fields (`current_revision`, `reason`, ...).
 */
export class QuireError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details: Readonly<Record<string, unknown>> = {},
  ) {
    super(message)
    this.name = 'QuireError'
  }
}

export const isQuireError = (error: unknown, code?: string): error is QuireError =>
  error instanceof QuireError && (code === undefined || error.code === code)
