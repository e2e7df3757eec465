import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { repoRoot, runNode } from '../support/cli.js'
import { useTempHomes } from '../support/tempHome.js'

/**
 * Issue 24 item 8: the README's `npm ci && npm test` is the whole set-up on a machine with only Node and npm. The
 * tests' system packages (Debian's chromium, postgresql, redis-server) are found, or installed as root, by one script
 * `npm test` runs first (and .ci/run too); as anyone else it stops at once with the one command to run. Here it runs
 * with the binaries hidden (an empty PATH and an empty root to look under) and --dry-run, so nothing is installed.
 */

const newDir = useTempHomes()
const SCRIPT = join(repoRoot, 'scripts', 'systemPackages.mjs')

async function check(root: string, path: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const result = await runNode(SCRIPT, ['--dry-run', '--root', root], { env: { PATH: path }, timeoutMs: 30_000 })
  return { code: result.code, stdout: result.stdout, stderr: result.stderr }
}

async function program(dir: string, name: string): Promise<void> {
  await mkdir(dir, { recursive: true })
  await writeFile(join(dir, name), '#!/bin/sh\nexit 0\n')
  await chmod(join(dir, name), 0o755)
}

/** The one command the script prints: itself, under sudo unless it runs as root. */
const command = `${process.getuid?.() === 0 ? '' : 'sudo '}${process.execPath} ${SCRIPT}`

describe("the tests' system packages (issue 24 item 8)", () => {
  it('with nothing installed, reports all three and the one command to run, and installs nothing', async () => {
    const root = await newDir()
    const path = await newDir()
    const result = await check(root, path)
    expect(result.code).toBe(1)
    expect(result.stdout).toBe('')
    const lines = result.stderr.split('\n')
    expect(lines.find((line) => line.includes('/usr/bin/chromium'))).toMatch(/package chromium$/)
    expect(lines.find((line) => line.includes('initdb and pg_ctl'))).toMatch(/package postgresql$/)
    expect(lines.find((line) => line.includes('redis-server ('))).toMatch(/package redis-server$/)
    expect(result.stderr).toContain('apt-get install chromium postgresql redis-server')
    expect(lines).toContain(`  ${command}`)
    expect(lines).toContain('(--dry-run: nothing was installed)')
  })

  it('names only what is missing: PostgreSQL on PATH and Chromium in place leave redis-server', async () => {
    const root = await newDir()
    const path = await newDir()
    await program(join(root, 'usr/bin'), 'chromium')
    await program(path, 'initdb')
    await program(path, 'pg_ctl')
    const result = await check(root, path)
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('apt-get install redis-server,')
    expect(result.stderr).not.toContain('/usr/bin/chromium ')
    expect(result.stderr).not.toContain('initdb and pg_ctl')
    // initdb without pg_ctl is not PostgreSQL.
    const half = await newDir()
    await program(half, 'initdb')
    await program(half, 'redis-server')
    expect((await check(root, half)).stderr).toContain('apt-get install postgresql,')
  })

  it('with everything present, does nothing and says nothing', async () => {
    const root = await newDir()
    const path = await newDir()
    await program(join(root, 'usr/bin'), 'chromium')
    await program(join(root, 'usr/lib/postgresql/15/bin'), 'initdb')
    await program(join(root, 'usr/lib/postgresql/15/bin'), 'pg_ctl')
    await program(join(root, 'usr/bin'), 'redis-server')
    expect(await check(root, path)).toEqual({ code: 0, stdout: '', stderr: '' })
    // A file that is not executable is not the program.
    await chmod(join(root, 'usr/bin/chromium'), 0o644)
    expect((await check(root, path)).stderr).toContain('package chromium')
  })

  it('npm test runs it before anything else, and .ci/run runs the same script', async () => {
    const scripts = (JSON.parse(await readFile(join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts
    expect(scripts.test).toMatch(/^node scripts\/systemPackages\.mjs && /)
    expect(await readFile(join(repoRoot, '.ci/run'), 'utf8')).toContain('scripts/systemPackages.mjs')
  })
})
