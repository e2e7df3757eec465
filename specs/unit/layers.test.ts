import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'

/**
 * The layering check (scripts/checkLayers.mjs) on small trees written to a temporary folder: each rule fires on an
 * import that breaks it, names the file and line, and stays quiet on the imports the rules allow.
 */
const SCRIPT = new URL('../../scripts/checkLayers.mjs', import.meta.url).pathname
const run = promisify(execFile)
const roots: string[] = []

afterAll(async () => {
  await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })))
})

/** Writes `files` (path → source) to a fresh root and runs the check on it. */
async function check(files: Record<string, string>): Promise<{ code: number; lines: string[] }> {
  const root = await mkdtemp(join(tmpdir(), 'quire-layers-'))
  roots.push(root)
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true })
    await writeFile(join(root, path), text)
  }
  try {
    await run(process.execPath, [SCRIPT, root])
    return { code: 0, lines: [] }
  } catch (error) {
    const failure = error as { code: number; stderr: string }
    return { code: failure.code, lines: failure.stderr.split('\n').slice(1).filter((line) => line.length > 0) }
  }
}

describe('scripts/checkLayers.mjs', () => {
  it('passes a tree that keeps its layers, and ignores package imports and imports written in comments or strings', async () => {
    const result = await check({
      'core/errors.ts': "import { z } from 'zod'\nexport const e = 1\n",
      'core/log/store.ts': "import { e } from '../errors.js'\n// import { a } from '../../adapters/a.js'\nexport const s = `import x from '../../web/w.js'` + e\n",
      'projections/history/h.ts': "import { s } from '../../core/log/store.js'\nimport { o } from '../other.js'\n",
      'projections/other.ts': "import type { s } from '../core/log/store.js'\nexport const o = 1\n",
      'adapters/http/a.ts': "import { s } from '../../core/log/store.js'\nimport { h } from '../../projections/history/h.js'\nimport { b } from './b.js'\n",
      'adapters/http/b.ts': "import { a } from './a.js'\n",
      'web/console/w.ts': "import { s } from '../../core/log/store.js'\n",
      'specs/unit/t.ts': "import { a } from '../../adapters/http/a.js'\nimport { w } from '../../web/console/w.js'\n",
    })
    expect(result).toEqual({ code: 0, lines: [] })
  })

  it('core/ must not import projections/, adapters/ or web/ (static, export-from, side-effect and dynamic imports)', async () => {
    const result = await check({
      'core/a.ts': "import { p } from '../projections/p.js'\nexport { x } from '../adapters/x.js'\nimport '../web/w.js'\nconst later = () => import('../adapters/y.js')\n",
      'projections/p.ts': 'export const p = 1\n',
      'adapters/x.ts': 'export const x = 1\n',
      'adapters/y.ts': 'export const y = 1\n',
      'web/w.ts': 'export const w = 1\n',
    })
    expect(result.code).toBe(1)
    expect(result.lines).toEqual([
      "core/a.ts:1 imports '../projections/p.js' (projections/p.ts): core/ imports nothing from projections/, adapters/ or web/",
      "core/a.ts:2 imports '../adapters/x.js' (adapters/x.ts): core/ imports nothing from projections/, adapters/ or web/",
      "core/a.ts:3 imports '../web/w.js' (web/w.ts): core/ imports nothing from projections/, adapters/ or web/",
      "core/a.ts:4 imports '../adapters/y.js' (adapters/y.ts): core/ imports nothing from projections/, adapters/ or web/",
    ])
  })

  it('core/ imports no storage package (classic-level, pg, ioredis, subpaths and types too); adapters/ may, and core may import other packages', async () => {
    const result = await check({
      'core/log/store.ts': "import { z } from 'zod'\nimport pg from 'pg'\nimport { ClassicLevel } from 'classic-level'\nimport type { Redis } from 'ioredis'\nimport Client from 'pg/lib/client.js'\n",
      'core/log/eventStore.ts': "import { ClassicLevel } from 'classic-level'\nimport pg from 'pg'\n",
      'adapters/leveldb/levelLog.ts': "import { ClassicLevel } from 'classic-level'\nimport { s } from '../../core/log/store.js'\n",
      'adapters/postgres/pgLog.ts': "import pg from 'pg'\nimport Redis from 'ioredis'\n",
    })
    expect(result.code).toBe(1)
    expect(result.lines).toEqual([
      "core/log/eventStore.ts:1 imports 'classic-level' (classic-level): core/ imports no storage package: drivers live in adapters/",
      "core/log/eventStore.ts:2 imports 'pg' (pg): core/ imports no storage package: drivers live in adapters/",
      "core/log/store.ts:2 imports 'pg' (pg): core/ imports no storage package: drivers live in adapters/",
      "core/log/store.ts:3 imports 'classic-level' (classic-level): core/ imports no storage package: drivers live in adapters/",
      "core/log/store.ts:4 imports types from 'ioredis' (ioredis): core/ imports no storage package: drivers live in adapters/",
      "core/log/store.ts:5 imports 'pg/lib/client.js' (pg/lib/client.js): core/ imports no storage package: drivers live in adapters/",
    ])
  })

  it('projections/ imports only core/ (and itself); a type-only import counts and is marked', async () => {
    const result = await check({
      'projections/p.ts': "import { c } from '../core/c.js'\nimport type { A } from '../adapters/a.js'\nimport { b } from '../bench/b.js'\n",
      'core/c.ts': 'export const c = 1\n',
      'adapters/a.ts': 'export type A = 1\n',
      'bench/b.ts': 'export const b = 1\n',
    })
    expect(result.lines).toEqual([
      "projections/p.ts:2 imports types from '../adapters/a.js' (adapters/a.ts): projections/ imports only core/",
      "projections/p.ts:3 imports '../bench/b.js' (bench/b.ts): projections/ imports only core/",
    ])
  })

  it('web/ must not import projections/, and from adapters/ only types (the wire contracts); core/ is allowed', async () => {
    const result = await check({
      'web/console/w.ts':
        "import { c } from '../../core/c.js'\nimport type { Api } from '../../adapters/http/api.js'\nimport { p } from '../../projections/p.js'\nimport { code } from '../../adapters/http/code.js'\n",
      'core/c.ts': 'export const c = 1\n',
      'adapters/http/api.ts': 'export type Api = 1\n',
      'adapters/http/code.ts': 'export const code = 1\n',
      'projections/p.ts': 'export const p = 1\n',
    })
    expect(result.lines).toEqual([
      "web/console/w.ts:3 imports '../../projections/p.js' (projections/p.ts): web/ imports nothing from projections/, and only types from adapters/",
      "web/console/w.ts:4 imports '../../adapters/http/code.js' (adapters/http/code.ts): web/ imports nothing from projections/, and only types from adapters/",
    ])
  })

  it('a cycle between top-level folders is reported as a path with one example import per edge', async () => {
    const result = await check({
      'adapters/a.ts': "import { b } from '../bench/b.js'\nexport const a = 1\n",
      'bench/b.ts': "import { a } from '../adapters/a.js'\nexport const b = 1\n",
    })
    expect(result.lines).toEqual([
      'import cycle between folders: adapters -> bench -> adapters',
      "  adapters -> bench: adapters/a.ts:1 imports '../bench/b.js'",
      "  bench -> adapters: bench/b.ts:1 imports '../adapters/a.js'",
    ])
  })

  it("an edge's example is a run-time import when it has one, a type-only one (marked) when that is all it has", async () => {
    const result = await check({
      'adapters/a.ts': "import type { B } from '../bench/b.js'\nimport { b } from '../bench/b.js'\nexport const a = 1\n",
      'bench/b.ts': "import type { A } from '../adapters/a.js'\nexport const b = 1\nexport type B = 1\n",
    })
    expect(result.lines).toEqual([
      'import cycle between folders: adapters -> bench -> adapters',
      "  adapters -> bench: adapters/a.ts:2 imports '../bench/b.js'",
      "  bench -> adapters: bench/b.ts:1 imports types from '../adapters/a.js'",
    ])
  })

  it('a cycle between sibling folders deep inside core/ is found, through three folders', async () => {
    const result = await check({
      'core/text/cjk/a.ts': "import { b } from '../latin/b.js'\n",
      'core/text/latin/b.ts': "import { c } from '../../text/rules/c.js'\n",
      'core/text/rules/c.ts': "\n\nimport { a } from '../cjk/a.js'\n",
    })
    expect(result.lines).toEqual([
      'import cycle between folders: core/text/cjk -> core/text/latin -> core/text/rules -> core/text/cjk',
      "  core/text/cjk -> core/text/latin: core/text/cjk/a.ts:1 imports '../latin/b.js'",
      "  core/text/latin -> core/text/rules: core/text/latin/b.ts:1 imports '../../text/rules/c.js'",
      "  core/text/rules -> core/text/cjk: core/text/rules/c.ts:3 imports '../cjk/a.js'",
    ])
  })

  it('a file sitting directly in a folder is a node of its level: a cycle through it counts', async () => {
    const result = await check({
      'adapters/http/a.ts': "import { r } from '../registry.js'\nexport const a = 1\n",
      'adapters/registry.ts': "export { a } from './http/a.js'\nexport const r = 1\n",
    })
    expect(result.lines).toEqual([
      'import cycle between folders: adapters/http -> adapters/registry.ts -> adapters/http',
      "  adapters/http -> adapters/registry.ts: adapters/http/a.ts:1 imports '../registry.js'",
      "  adapters/registry.ts -> adapters/http: adapters/registry.ts:1 imports './http/a.js'",
    ])
  })

  it("issue 28 item 4: a folder's files importing its subfolder while the subfolder imports back into the folder's files, through a file of the folder that imports another", async () => {
    const result = await check({
      'core/x/a.ts': "import { b } from './y/b.js'\nexport const a = 1\n",
      'core/x/y/b.ts': "import { c } from '../c.js'\nexport const b = 1\n",
      'core/x/c.ts': "\nimport { a } from './a.js'\nexport const c = 1\n",
    })
    expect(result.code).toBe(1)
    expect(result.lines).toEqual([
      "import cycle between a folder's files and its subfolders: core/x/y -> core/x/c.ts -> core/x/a.ts -> core/x/y",
      "  core/x/y -> core/x/c.ts: core/x/y/b.ts:1 imports '../c.js'",
      "  core/x/c.ts -> core/x/a.ts: core/x/c.ts:2 imports './a.js'",
      "  core/x/a.ts -> core/x/y: core/x/a.ts:1 imports './y/b.js'",
    ])
  })

  it("issue 28 item 4: a subfolder importing its parent's barrel, which re-exports a file that imports the subfolder (types count)", async () => {
    const result = await check({
      'adapters/x/index.ts': "export { s } from './s.js'\n",
      'adapters/x/s.ts': "import type { R } from './y/r.js'\nexport const s = 1\n",
      'adapters/x/y/r.ts': "import { s } from '../index.js'\nexport type R = typeof s\n",
      'specs/unit/t.ts': "import { s } from '../../adapters/x/index.js'\n",
    })
    expect(result.lines).toEqual([
      "import cycle between a folder's files and its subfolders: adapters/x/y -> adapters/x/index.ts -> adapters/x/s.ts -> adapters/x/y",
      "  adapters/x/y -> adapters/x/index.ts: adapters/x/y/r.ts:1 imports '../index.js'",
      "  adapters/x/index.ts -> adapters/x/s.ts: adapters/x/index.ts:1 imports './s.js'",
      "  adapters/x/s.ts -> adapters/x/y: adapters/x/s.ts:1 imports types from './y/r.js'",
    ])
  })

  it("issue 28 item 4: a file importing its own folder's barrel, which re-exports it", async () => {
    const result = await check({
      'projections/x/index.ts': "export { a } from './a.js'\nexport { b } from './b.js'\n",
      'projections/x/a.ts': 'export const a = 1\n',
      'projections/x/b.ts': "import { a } from './index.js'\nexport const b = a\n",
      'adapters/u.ts': "import { b } from '../projections/x/index.js'\n",
    })
    expect(result.code).toBe(1)
    expect(result.lines).toEqual([
      "import cycle through a folder's barrel: projections/x/index.ts -> projections/x/b.ts -> projections/x/index.ts",
      "  projections/x/index.ts -> projections/x/b.ts: projections/x/index.ts:2 imports './b.js'",
      "  projections/x/b.ts -> projections/x/index.ts: projections/x/b.ts:1 imports './index.js'",
    ])
  })

  it('files of one folder importing each other, and cycles among folders of specs/ or web/, are not folder cycles of the checked levels', async () => {
    const result = await check({
      'core/log/a.ts': "import { b } from './b.js'\n",
      'core/log/b.ts': "import { a } from './a.js'\n",
      'core/log/index.ts': "export { a } from './a.js'\n",
      'core/engine.ts': "import { a } from './log/index.js'\nimport { e } from './errors.js'\n",
      'core/errors.ts': 'export const e = 1\n',
      'core/files/f.ts': "import { e } from '../errors.js'\nimport { a } from '../log/index.js'\n",
      'specs/unit/u.ts': "import { s } from '../support/s.js'\n",
      'specs/support/s.ts': "import { u } from '../unit/u.js'\n",
      'web/console/x/a.ts': "import { b } from '../y/b.js'\n",
      'web/console/y/b.ts': "import { a } from '../x/a.js'\n",
    })
    expect(result).toEqual({ code: 0, lines: [] })
  })
})
