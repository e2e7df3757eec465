import { mkdir, readFile, rm, utimes, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { repoRoot, runNode } from '../support/cli.js'
import { useTempHomes } from '../support/tempHome.js'

/**
 * `npm start` rebuilds only when an input of the build changed (scripts/buildIfChanged.mjs). Run here as a real
 * process on a small tree of its own, with a stand-in build command that makes the outputs and counts its runs, so
 * the test neither rebuilds the repository nor depends on how long a build takes.
 */

const newDir = useTempHomes()
const SCRIPT = join(repoRoot, 'scripts', 'buildIfChanged.mjs')

/** A stand-in for `npm run build`: writes the outputs `quire serve` needs and appends a line to builds.log. */
const FAKE_BUILD = [
  "const fs = require('node:fs')",
  "for (const f of ['dist/adapters/cli/main.js', 'dist/web/console.js', 'dist/web/index.html']) { fs.mkdirSync(require('node:path').dirname(f), { recursive: true }); fs.writeFileSync(f, '') }",
  "fs.appendFileSync('builds.log', 'built\\n')",
  "if (fs.existsSync('fail-build')) process.exit(3)",
].join('; ')

async function put(root: string, path: string, text: string): Promise<void> {
  await mkdir(dirname(join(root, path)), { recursive: true })
  await writeFile(join(root, path), text)
}

async function tree(): Promise<string> {
  const root = await newDir()
  await put(root, 'package.json', '{"name":"x"}\n')
  await put(root, 'tsconfig.json', '{}\n')
  await put(root, 'core/engine.ts', 'export const a = 1\n')
  await put(root, 'web/console/console.css', 'body {}\n')
  await put(root, 'specs/data/trace.txt', 'not an input of the build\n')
  await put(root, 'build.cjs', FAKE_BUILD)
  return root
}

async function start(root: string): Promise<{ code: number | null; builds: number; stderr: string }> {
  const result = await runNode(SCRIPT, ['--root', root, '--build-command', `${JSON.stringify(process.execPath)} build.cjs`])
  const log = await readFile(join(root, 'builds.log'), 'utf8').catch(() => '')
  return { code: result.code, builds: log.split('\n').filter(Boolean).length, stderr: result.stderr }
}

describe('scripts/buildIfChanged.mjs (npm start)', () => {
  it('builds a fresh tree, then not again until a source or configuration file changes in content', async () => {
    const root = await tree()
    expect(await start(root)).toEqual({ code: 0, builds: 1, stderr: '' })
    expect(await start(root)).toEqual({ code: 0, builds: 1, stderr: '' })

    // Touched, same content: not a change.
    const later = new Date(Date.now() + 60_000)
    await utimes(join(root, 'core/engine.ts'), later, later)
    expect(await start(root)).toEqual({ code: 0, builds: 1, stderr: '' })
    // A file the build does not read: not a change either.
    await put(root, 'specs/data/trace.txt', 'changed\n')
    expect(await start(root)).toEqual({ code: 0, builds: 1, stderr: '' })

    await put(root, 'core/engine.ts', 'export const a = 2\n')
    expect((await start(root)).builds).toBe(2)
    expect((await start(root)).builds).toBe(2)
    await put(root, 'core/new.ts', 'export const b = 1\n')
    expect((await start(root)).builds).toBe(3)
    await rm(join(root, 'core/new.ts'))
    expect((await start(root)).builds).toBe(4)
    await put(root, 'web/console/console.css', 'body { margin: 0 }\n')
    expect((await start(root)).builds).toBe(5)
    await put(root, 'package-lock.json', '{}\n')
    expect((await start(root)).builds).toBe(6)
    expect((await start(root)).builds).toBe(6)
  })

  it('builds when an output is missing, whatever the fingerprint says', async () => {
    const root = await tree()
    expect((await start(root)).builds).toBe(1)
    await rm(join(root, 'dist/web/console.js'))
    expect((await start(root)).builds).toBe(2)
    expect((await start(root)).builds).toBe(2)
  })

  it('a failed build stops npm start (its status) and is tried again on the next start', async () => {
    const root = await tree()
    await put(root, 'fail-build', '')
    const failed = await start(root)
    expect(failed.code).toBe(3)
    expect(failed.stderr).toContain('the build failed')
    await rm(join(root, 'fail-build'))
    expect(await start(root)).toEqual({ code: 0, builds: 2, stderr: '' })
    expect(await start(root)).toEqual({ code: 0, builds: 2, stderr: '' })
  })
})
