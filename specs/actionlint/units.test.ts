import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseBinaryOutput } from '../../adapters/actionlint/binaryEngine.js'
import { findOnPath, PathFinder } from '../../adapters/actionlint/findOnPath.js'
import { readFinding, readFindings, toDiagnostics } from '../../adapters/actionlint/validation.js'
import { engineVersionIn, wasmAssets } from '../../adapters/actionlint/wasmAssets.js'
import { directEngineVersion } from '../support/actionlintCliEngine.js'

describe('findings and diagnostics', () => {
  it('WF.VALIDATE.2 findings become diagnostics with line, col, message, severity error and kind, sorted by position', () => {
    const diagnostics = toDiagnostics([
      { message: 'c', line: 9, column: 1, kind: 'expression' },
      { message: 'b', line: 2, column: 7, kind: 'syntax-check' },
      { message: 'a', line: 2, column: 3, kind: 'runner-label' },
      { message: 'a2', line: 2, column: 3, kind: 'action' },
    ])
    expect(diagnostics).toEqual([
      { line: 2, col: 3, message: 'a', severity: 'error', kind: 'runner-label' },
      { line: 2, col: 3, message: 'a2', severity: 'error', kind: 'action' },
      { line: 2, col: 7, message: 'b', severity: 'error', kind: 'syntax-check' },
      { line: 9, col: 1, message: 'c', severity: 'error', kind: 'expression' },
    ])
  })

  it('malformed findings are refused, extra fields ignored', () => {
    expect(readFinding({ message: 'm', line: 1, column: 2, kind: 'k', snippet: 's', end_column: 4 })).toEqual({ message: 'm', line: 1, column: 2, kind: 'k' })
    expect(readFinding({ message: 'm', line: '1', column: 2, kind: 'k' })).toBeUndefined()
    expect(readFinding({ message: 'm', line: 1.5, column: 2, kind: 'k' })).toBeUndefined()
    expect(readFinding(null)).toBeUndefined()
    expect(() => readFindings({}, 'engine')).toThrow(/list of findings/)
    expect(() => readFindings([{ message: 'm' }], 'engine')).toThrow(/malformed finding at index 0/)
  })

  it('the binary\'s output: a JSON array, null, nothing, or JSON lines', () => {
    const finding = { message: 'm', filepath: '<stdin>', line: 3, column: 4, kind: 'k', snippet: 'x', end_column: 5 }
    expect(parseBinaryOutput(JSON.stringify([finding]))).toEqual([{ message: 'm', line: 3, column: 4, kind: 'k' }])
    expect(parseBinaryOutput('null\n')).toEqual([])
    expect(parseBinaryOutput('[]')).toEqual([])
    expect(parseBinaryOutput('')).toEqual([])
    expect(parseBinaryOutput(`${JSON.stringify(finding)}\n${JSON.stringify([finding])}\n`)).toHaveLength(2)
    expect(() => parseBinaryOutput('test.yaml:1:1: oops')).toThrow()
  })
})

describe('findOnPath', () => {
  let root: string
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'quire-findonpath-'))
    for (const dir of ['plain', 'dir', 'exec', 'later']) await mkdir(join(root, dir))
    await writeFile(join(root, 'plain', 'tool'), 'not executable')
    await mkdir(join(root, 'dir', 'tool'))
    await writeFile(join(root, 'exec', 'tool'), '#!/bin/sh\n')
    await chmod(join(root, 'exec', 'tool'), 0o755)
  })
  afterAll(() => rm(root, { recursive: true, force: true }))

  it('finds the first executable regular file, skipping non-executables, folders, empty and relative entries', async () => {
    const path = ['', 'exec', join(root, 'missing'), join(root, 'plain'), join(root, 'dir'), join(root, 'exec')].join(delimiter)
    expect(await findOnPath('tool', path)).toBe(join(root, 'exec', 'tool'))
    expect(await findOnPath('tool', [join(root, 'plain'), join(root, 'dir')].join(delimiter))).toBeUndefined()
    expect(await findOnPath('tool', undefined)).toBeUndefined()
    expect(await findOnPath('tool', '')).toBeUndefined()
  })

  it('PathFinder remembers an answer per PATH value until told to forget it', async () => {
    const finder = new PathFinder('tool')
    const path = join(root, 'later')
    expect(await finder.find(path)).toBeUndefined()
    await writeFile(join(root, 'later', 'tool'), '#!/bin/sh\n')
    await chmod(join(root, 'later', 'tool'), 0o755)
    expect(await finder.find(path)).toBeUndefined()
    expect(await finder.find(`${path}${delimiter}`)).toBe(join(root, 'later', 'tool'))
    finder.forget(path)
    expect(await finder.find(path)).toBe(join(root, 'later', 'tool'))
  })
})

describe('the bundled WASM engine files', () => {
  it('are found through the package\'s main entry, and the engine version is read from main.wasm', async () => {
    const { readFile } = await import('node:fs/promises')
    const { wasmPath, wasmExecPath } = wasmAssets()
    expect(wasmPath).toMatch(/@tktco\/node-actionlint\/main\.wasm$/)
    expect(wasmExecPath).toMatch(/@tktco\/node-actionlint\/wasm_exec\.js$/)
    const version = engineVersionIn(await readFile(wasmPath))
    expect(version).toMatch(/^\d+\.\d+\.\d+$/)
    expect(version).toBe(directEngineVersion())
    expect(engineVersionIn(Buffer.from('no version here'))).toBe('unknown')
    expect(engineVersionIn(Buffer.from('xx rhysd/actionlint@v1.2.3\u0000'))).toBe('1.2.3')
  })
})
