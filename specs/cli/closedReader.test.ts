import { spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cliPath, onStdoutLines, runCli } from '../support/cli.js'
import { FRIENDSFOREVER_TRACE } from '../support/dataFiles.js'
import { launchDaemon } from '../support/mcpHarness.js'

/**
 * `quire log | head`: the reader closes the pipe after the lines it wanted. The CLI then ends quietly (status 0,
 * nothing on stderr) instead of dying of an unhandled EPIPE with a stack trace.
 */

let home: string
let docId: string

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'quire-closed-reader-'))
  // Thousands of events: `quire log` prints megabytes, far more than a pipe holds, so it is still writing when the
  // reader goes away.
  const ingested = await runCli(['ingest-trace', FRIENDSFOREVER_TRACE], { home, timeoutMs: 60_000 })
  expect(ingested.code, ingested.stderr).toBe(0)
  docId = ingested.stdout.trim().split('\n').at(-1)!
  // A document of a few megabytes: `quire replay` writes it in one piece, which the pipe cannot take at once.
  const big = join(home, 'big.md')
  await writeFile(big, 'a line of the big document\n'.repeat(200_000))
  const created = await runCli(['doc', 'create', big], { home })
  expect(created.code, created.stderr).toBe(0)
}, 90_000)

afterAll(async () => {
  await rm(home, { recursive: true, force: true })
})

interface ClosedReaderResult {
  readonly firstLine: string
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stderr: string
}

/** Runs the CLI with a reader that takes one line of stdout and then closes the pipe. */
function readOneLineThenClose(args: readonly string[]): Promise<ClosedReaderResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, '--home', home, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    let firstLine: string | undefined
    let stderr = ''
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    onStdoutLines(child, (line) => {
      if (firstLine !== undefined) return
      firstLine = line
      child.stdout!.destroy()
    })
    // Only a safety net against a hang, never an assertion on how long it took.
    const guard = setTimeout(() => child.kill('SIGKILL'), 60_000)
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(guard)
      resolve({ firstLine: firstLine ?? '', code, signal, stderr })
    })
  })
}

describe('a reader that closes the pipe early', () => {
  it('quire log | head -1: the first event, then a quiet end', async () => {
    const result = await readOneLineThenClose(['log'])
    expect(result.firstLine).toMatch(/^\s+1\s.*document\.created/)
    expect({ code: result.code, signal: result.signal, stderr: result.stderr }).toEqual({ code: 0, signal: null, stderr: '' })
  })

  it('quire log --json | head -1', async () => {
    const result = await readOneLineThenClose(['log', '--json'])
    expect(JSON.parse(result.firstLine)).toMatchObject({ position: 1, type: 'document.created' })
    expect({ code: result.code, signal: result.signal, stderr: result.stderr }).toEqual({ code: 0, signal: null, stderr: '' })
  })

  it('quire replay (one large raw write) | head -1', async () => {
    const list = await runCli(['doc', 'list'], { home })
    const bigId = list.stdout.split('\n').find((line) => line.includes('big.md'))!.split(' ')[0]!
    const result = await readOneLineThenClose(['replay', '--doc', bigId])
    expect(result.firstLine).toBe('a line of the big document')
    expect({ code: result.code, signal: result.signal, stderr: result.stderr }).toEqual({ code: 0, signal: null, stderr: '' })
  })

  it('quire log | head -1 while a daemon owns the directory (the events come over its admin API)', async () => {
    const daemon = await launchDaemon({ home })
    try {
      const result = await readOneLineThenClose(['log', '--stream', `doc:${docId}`])
      expect(result.firstLine).toMatch(/document\.created/)
      expect({ code: result.code, signal: result.signal, stderr: result.stderr }).toEqual({ code: 0, signal: null, stderr: '' })
    } finally {
      await daemon.stop()
    }
  })
})
