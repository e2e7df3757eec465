import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { repoRoot } from '../support/cli.js'
import { fencedBlocks, NOTES_AFTER, normalise, runFirstHour, type Block, type Observed } from './firstHourScript.js'

// Issue 12: docs/first-hour.md is a script of real commands and what they print; this runs it and compares.
const DOC = join(repoRoot, 'docs', 'first-hour.md')

let root: string
let observed: Observed

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'quire-first-hour-')))
  observed = await runFirstHour(root)
}, 300_000)

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true })
})

const render = (blocks: readonly Block[]): string => blocks.map((block) => '```' + block.lang + '\n' + block.body + '\n```').join('\n\n') + '\n'

describe('docs/first-hour.md', () => {
  it('every command of the first hour succeeds, the approval gates the save_as, and the daemon stops cleanly', () => {
    expect(observed.failures.join('\n')).toBe('')
    expect(observed.firstSaveAsWasError).toBe(true)
    expect(observed.retriedSaveAsWasError).toBe(false)
    expect(observed.serveExit).toEqual({ code: 0, signal: null })
    expect(observed.serveOutputAfterStart).toBe('')
    expect(observed.portFileLeft).toBe(false)
  })

  it("shows exactly the blocks the run prints, in order (commands, calls and their normalised output)", async () => {
    const doc = fencedBlocks(await readFile(DOC, 'utf8'))
    if (JSON.stringify(doc) !== JSON.stringify(observed.blocks)) {
      // The run's own version of the blocks, to paste from when a command's output changed on purpose.
      const actual = join(tmpdir(), 'first-hour.actual.md')
      await writeFile(actual, render(observed.blocks))
      console.error(`docs/first-hour.md differs from the run; the run's blocks are in ${actual}`)
    }
    expect(doc).toEqual(observed.blocks)
  })

  it('the normalised blocks keep no secret or run-specific value: token, port, folder', () => {
    const shown = observed.blocks.map((block) => block.body).join('\n')
    expect(observed.raw).toContain(observed.agentToken)
    expect(shown).not.toContain(observed.agentToken)
    expect(shown).not.toContain(root)
    expect(shown).not.toMatch(new RegExp(`:${observed.port}\\b`))
    expect(shown).toContain(NOTES_AFTER.trim())
  })

  it('normalise replaces each varying part by its placeholder and leaves the rest alone', () => {
    const line = '/r/H ap-0123456789 tab-abcdef0123 wsi-0a1b2c3d4e d-9876543210 mcp-1234abcd http://127.0.0.1:4100/?code=x_Y-z 2026-12-01T10:55:52.033Z process 42 sha256 25c3b57ea153 40 B update rev-7'
    expect(normalise(line, '/r')).toBe(
      '<dir>/H <approval-id> <tab-id> <workspace-id> <doc-id> <connection> http://127.0.0.1:<port>/?code=<code> <time> process <pid> sha256 <hash> <n> B update rev-7',
    )
  })
})
