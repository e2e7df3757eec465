/**
 * The actionlint test corpus in the repository (specs/data/actionlint-testdata: upstream's testdata err/, examples/
 * and ok/ workflows with their expected `.out` files), and how to read those expectations.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ACTIONLINT_CORPUS_DIR } from './dataFiles.js'

export const CORPUS_DIR = ACTIONLINT_CORPUS_DIR

export type CorpusFolder = 'err' | 'examples' | 'ok'

export interface CorpusFile {
  readonly folder: CorpusFolder
  readonly name: string
  readonly path: string
  readonly source: string
  /** The `.out` lines (upstream's expected output), when the file has one. */
  readonly expected?: readonly string[]
}

export function corpusFiles(folder: CorpusFolder): CorpusFile[] {
  const dir = join(CORPUS_DIR, folder)
  return readdirSync(dir)
    .filter((name) => /\.ya?ml$/.test(name))
    .sort()
    .map((name) => {
      const path = join(dir, name)
      const out = join(dir, name.replace(/\.ya?ml$/, '.out'))
      let expected: string[] | undefined
      try {
        expected = readFileSync(out, 'utf8').split('\n').filter((line) => line.trim() !== '')
      } catch {
        expected = undefined
      }
      return { folder, name, path, source: readFileSync(path, 'utf8'), ...(expected ? { expected } : {}) }
    })
}

/** A finding as upstream's `.out` files print it. */
export const outLine = (finding: { line: number; column: number; message: string; kind: string }): string =>
  `test.yaml:${finding.line}:${finding.column}: ${finding.message} [${finding.kind}]`

/**
 * Whether `actual` (lines from `outLine`) is what a `.out` file expects: as many lines, in order, each equal to its
 * expected line or, for one wrapped in `/…/`, matching that regular expression (as upstream's harness reads them).
 */
export function matchesOut(actual: readonly string[], expected: readonly string[]): boolean {
  if (actual.length !== expected.length) return false
  return expected.every((want, index) => {
    const got = actual[index]!
    if (want.length > 1 && want.startsWith('/') && want.endsWith('/')) return new RegExp(want.slice(1, -1)).test(got)
    return got === want
  })
}
