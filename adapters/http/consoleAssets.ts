import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'

/**
 * The built console (`scripts/buildConsole.mjs` writes it to `dist/web/`). Only these files are served: a fixed
 * list, never a path taken from the request, so nothing else on disk can be reached through the console.
 */
export const CONSOLE_ASSETS = {
  'index.html': 'text/html; charset=utf-8',
  'console.js': 'text/javascript; charset=utf-8',
  'console.css': 'text/css; charset=utf-8',
  'console.js.map': 'application/json; charset=utf-8',
} as const
export type ConsoleAsset = keyof typeof CONSOLE_ASSETS

/**
 * `dist/web/` whether this module runs compiled (`dist/adapters/http/`) or from source under tsx
 * (`adapters/http/`, where `../../web/` would be the unbuilt sources).
 */
const here = fileURLToPath(new URL('.', import.meta.url))
const ASSET_DIR = /[\\/]dist[\\/]adapters[\\/]http[\\/]?$/.test(here)
  ? fileURLToPath(new URL('../../web/', import.meta.url))
  : fileURLToPath(new URL('../../dist/web/', import.meta.url))

/** One asset's bytes, or undefined when the console was not built. Read per request: a rebuild shows on reload. */
export async function readConsoleAsset(name: ConsoleAsset): Promise<Buffer | undefined> {
  return readFile(`${ASSET_DIR}${name}`).catch(() => undefined)
}
