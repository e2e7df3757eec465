/**
 * The `actionlint` binary as an engine (WF.VALIDATE.1): `actionlint -format '{{json .}}' -no-color -` with the
 * workflow on stdin, as VMark's `gha_lint` runs it (research/vmark.md §6). actionlint's exit codes: 0 = no problem,
 * 1 = problems found (both are answers), 2 = bad command line, 3 = fatal error (failures, reported with stderr).
 */
import { runBounded } from './boundedProcess.js'
import { readFindings, type ActionlintFinding } from './validation.js'

export type BinaryOutcome =
  | { readonly ok: true; readonly findings: ActionlintFinding[] }
  /** `started` false: the binary could not be run at all (gone, not executable). */
  | { readonly ok: false; readonly message: string; readonly started: boolean }

export interface BinaryRun {
  readonly binary: string
  readonly env: NodeJS.ProcessEnv
  readonly timeoutMs: number
}

const excerpt = (text: string): string => {
  const trimmed = text.trim()
  return trimmed.length > 2000 ? `${trimmed.slice(0, 2000)}…` : trimmed
}

/**
 * The findings in the binary's stdout. `{{json .}}` prints one JSON array (`null` when there are none); a stream of
 * JSON values, one a line, is read too (objects or arrays of them), as VMark did for older or wrapped builds.
 */
export function parseBinaryOutput(stdout: string): ActionlintFinding[] {
  const text = stdout.trim()
  if (text === '' || text === 'null') return []
  try {
    return readFindings(JSON.parse(text), 'actionlint')
  } catch (whole) {
    const lines = text.split('\n').filter((line) => line.trim() !== '')
    if (lines.length < 2) throw whole
    return lines.flatMap((line) => {
      const value: unknown = JSON.parse(line)
      return readFindings(Array.isArray(value) ? value : [value], 'actionlint')
    })
  }
}

/** Lints `source` with the binary; `fileName` is what actionlint calls the input in its messages. */
export async function lintWithBinary(run: BinaryRun, source: string, fileName: string | undefined): Promise<BinaryOutcome> {
  // `-stdin-filename=NAME` in one argument: a name starting with "-" cannot be read as a flag.
  const args = ['-format', '{{json .}}', '-no-color', ...(fileName === undefined ? [] : [`-stdin-filename=${fileName}`]), '-']
  const result = await runBounded({ command: run.binary, args, input: source, env: run.env, timeoutMs: run.timeoutMs })
  if (result.status === 'failed') return { ok: false, message: result.message, started: result.reason !== 'spawn' }
  const { code, signal, stdout, stderr } = result
  if (code !== 0 && code !== 1) {
    const how = code === null ? `was killed by ${signal}` : `exited with code ${code}`
    return { ok: false, started: true, message: `actionlint ${how}${stderr.trim() ? `: ${excerpt(stderr)}` : ''}` }
  }
  if (stdout.trim() === '' && stderr.trim() !== '') return { ok: false, started: true, message: `actionlint failed: ${excerpt(stderr)}` }
  try {
    const findings = parseBinaryOutput(stdout)
    if (code === 1 && findings.length === 0) {
      return { ok: false, started: true, message: `actionlint exited with code 1 but reported no problems${stderr.trim() ? `: ${excerpt(stderr)}` : ''}` }
    }
    return { ok: true, findings }
  } catch (error) {
    return { ok: false, started: true, message: `actionlint printed output that is not its JSON format (${(error as Error).message}): ${excerpt(stdout)}` }
  }
}

/** The first line of `actionlint -version` (e.g. `1.7.7`), or `unknown` when the binary will not say. */
export async function binaryVersion(run: BinaryRun): Promise<string> {
  const result = await runBounded({ command: run.binary, args: ['-version'], env: run.env, timeoutMs: run.timeoutMs })
  if (result.status !== 'exited' || result.code !== 0) return 'unknown'
  const first = result.stdout.split('\n')[0]?.trim() ?? ''
  return first === '' ? 'unknown' : first.replace(/^v(?=\d)/, '')
}
