#!/usr/bin/env node
/**
 * A stand-in `actionlint` executable for the tests: the REAL actionlint engine (v1.7.7, the bundled WASM build,
 * loaded by actionlintCliEngine.ts) behind actionlint's command-line contract, so the validator's binary engine —
 * spawn, stdin, JSON parsing, exit codes, version, time-outs — is exercised end to end. It exists because the Go
 * binary cannot be installed on these machines (no network but npm and Debian, and Debian 12 has no actionlint).
 * When a real binary is on PATH, specs/actionlint/binary.test.ts tests that one too.
 *
 * Implemented: `-version` (version, then how it was installed, as actionlint prints it), and
 * `-format '{{json .}}' -no-color [-stdin-filename NAME] -` (lint stdin; print actionlint's JSON error list with its
 * field names; exit 1 when there are findings, 0 when none). Anything else exits 2 with usage on stderr, as
 * actionlint does for a bad command line. The engine reports no end column or snippet: `end_column` is the column and
 * `snippet` is the source line with a caret under the column, like actionlint's.
 *
 * Run compiled: `node dist/specs/support/actionlintCli.js ARGS` (the tests wrap it in a shell script named
 * `actionlint`; see actionlintCliWrappers.ts).
 */
import { directEngine, directEngineVersion } from './actionlintCliEngine.js'

interface JsonError {
  message: string
  filepath: string
  line: number
  column: number
  kind: string
  snippet: string
  end_column: number
}

function usage(message: string): never {
  process.stderr.write(`${message}\nUsage: actionlint [FLAGS] [FILES...] [-]\n`)
  process.exit(2)
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

async function main(args: readonly string[]): Promise<number> {
  if (args.length === 1 && (args[0] === '-version' || args[0] === '--version')) {
    process.stdout.write(`${directEngineVersion()}\ninstalled by the Quire test suite (actionlint's WASM engine behind its CLI)\nbuilt with node ${process.version}\n`)
    return 0
  }
  let format: string | undefined
  let stdinFileName = '<stdin>'
  let stdin = false
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!
    if (arg === '-format') format = args[++index] ?? usage('flag needs an argument: -format')
    else if (arg === '-no-color') continue
    else if (arg === '-stdin-filename') stdinFileName = args[++index] ?? usage('flag needs an argument: -stdin-filename')
    else if (arg.startsWith('-stdin-filename=')) stdinFileName = arg.slice('-stdin-filename='.length)
    else if (arg === '-') stdin = true
    else usage(`flag provided but not defined (in this stand-in): ${arg}`)
  }
  if (format !== '{{json .}}' || !stdin) usage("this stand-in implements only -format '{{json .}}' ... -")
  const source = await readStdin()
  const engine = await directEngine()
  const lines = source.split('\n')
  const errors: JsonError[] = engine.lint(source, stdinFileName).map((finding) => {
    const text = lines[finding.line - 1] ?? ''
    return {
      message: finding.message,
      filepath: stdinFileName,
      line: finding.line,
      column: finding.column,
      kind: finding.kind,
      snippet: finding.line > 0 ? `${text}\n${' '.repeat(Math.max(0, finding.column - 1))}^` : '',
      end_column: finding.column,
    }
  })
  process.stdout.write(`${JSON.stringify(errors)}\n`)
  return errors.length > 0 ? 1 : 0
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`)
    process.exit(3)
  },
)
