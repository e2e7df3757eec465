/**
 * Temporary folders holding an executable named `actionlint`, to put first on the PATH given to the validator:
 * the stand-in of actionlintCli.ts (the real engine behind actionlint's CLI), or shell scripts that misbehave
 * (hang, fail) in the ways the validator must survive.
 */
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { supportScript } from './cli.js'

export interface FakeBinDir {
  /** The folder; put it on PATH. */
  readonly dir: string
  /** The `actionlint` file in it. */
  readonly binary: string
  remove(): Promise<void>
}

/** A folder whose `actionlint` is a `/bin/sh` script with `body` after the shebang line. */
export async function actionlintScript(body: string): Promise<FakeBinDir> {
  const dir = await mkdtemp(join(tmpdir(), 'quire-actionlint-'))
  const binary = join(dir, 'actionlint')
  await writeFile(binary, `#!/bin/sh\n${body}\n`)
  await chmod(binary, 0o755)
  return { dir, binary, remove: () => rm(dir, { recursive: true, force: true }) }
}

const shellQuote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`

/**
 * A folder whose `actionlint` runs the compiled actionlintCli.js with this Node. `--liftoff-only` (V8's baseline WASM
 * compiler only) changes nothing in what the engine answers; it makes a one-shot process start in ≈0.2 s instead of
 * ≈1.7 s, most of which V8 otherwise spends optimising the 9.5 MB module.
 */
export const actionlintCliDir = (): Promise<FakeBinDir> =>
  actionlintScript(`exec ${shellQuote(process.execPath)} --liftoff-only ${shellQuote(supportScript('actionlintCli'))} "$@"`)
