import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { random, tempRoot, type RunOptions } from './util.js'

/**
 * The editing trace the benchmarks replay. A full run: $QUIRE_TRACE, else the automerge-paper trace kept in the
 * repository (specs/data/editing-traces). A smoke run: a small synthetic trace written by this process, so a
 * smoke run needs nothing outside the repository.
 */
export function tracePath(options: RunOptions): string {
  if (options.smoke) return smokeTracePath()
  // dist/bench/trace.js → the repository root is two levels up.
  const path = process.env.QUIRE_TRACE || fileURLToPath(new URL('../../specs/data/editing-traces/automerge-paper.json.gz', import.meta.url))
  if (!existsSync(path)) {
    throw new Error(`no editing trace at ${path}: set QUIRE_TRACE to a josephg editing trace (gzip'd JSON), or run with --smoke`)
  }
  return path
}

type Patch = [position: number, deleteCount: number, insert: string]

export interface SyntheticTrace {
  readonly startContent: string
  readonly endContent: string
  readonly txns: { patches: Patch[] }[]
}

const WORDS = 'the editor keeps every keystroke as an event so a document can be replayed to any revision it reached'.split(' ')

/**
 * A sequential editing trace in josephg's format (see adapters/trace/traceFile.ts): one typist writing words at a
 * moving cursor, with backspaces and jumps to other places, one character per transaction, like the start of a real
 * trace. ASCII only, so code points are UTF-16 units. Deterministic: the same `edits` and `seed` give the same trace.
 */
export function syntheticTrace(edits: number, seed = 1): SyntheticTrace {
  const next = random(seed)
  let text = ''
  let cursor = 0
  let pending = ''
  const txns: { patches: Patch[] }[] = []
  while (txns.length < edits) {
    const roll = next()
    let patch: Patch
    if (roll < 0.08 && cursor > 0) {
      patch = [cursor - 1, 1, '']
      text = text.slice(0, cursor - 1) + text.slice(cursor)
      cursor--
    } else {
      if (roll < 0.12 && text.length > 0) cursor = Math.floor(next() * (text.length + 1))
      if (pending === '') pending = WORDS[Math.floor(next() * WORDS.length)]! + (next() < 0.1 ? '.\n\n' : ' ')
      const char = pending[0]!
      pending = pending.slice(1)
      patch = [cursor, 0, char]
      text = text.slice(0, cursor) + char + text.slice(cursor)
      cursor++
    }
    txns.push({ patches: [patch] })
  }
  return { startContent: '', endContent: text, txns }
}

/** A smoke run's trace: enough edits for every fan-out phase at its smoke rate, and only a few fsync'd seconds to ingest. */
const SMOKE_EDITS = 2_000

let smokeTrace: string | undefined

/** Written once per process into a temp dir that is removed when the process exits. */
function smokeTracePath(): string {
  if (smokeTrace) return smokeTrace
  const dir = mkdtempSync(join(tempRoot(), 'quire-bench-trace-'))
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }))
  const path = join(dir, 'synthetic.json.gz')
  writeFileSync(path, gzipSync(JSON.stringify(syntheticTrace(SMOKE_EDITS))))
  smokeTrace = path
  return path
}
