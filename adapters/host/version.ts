import { readFileSync } from 'node:fs'

/** Quire's version, from its package.json (the built tree keeps the same relative layout). */
export const QUIRE_VERSION: string = (() => {
  for (const relative of ['../../package.json', '../../../package.json']) {
    try {
      const manifest = JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as { name?: string; version?: string }
      if (manifest.name === 'quire' && manifest.version) return manifest.version
    } catch {
      // Try the next layout.
    }
  }
  return '0.0.0'
})()
