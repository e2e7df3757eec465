// `npm test` runs this first, and .ci/run too: the tests need three programs from Debian, besides Node and npm.
// Chromium at /usr/bin/chromium (the browser tests drive it through playwright-core, which never downloads one),
// PostgreSQL's initdb and pg_ctl (the log's PostgreSQL tests start throwaway clusters) and redis-server (presence
// across nodes). With all of them here it does nothing. Otherwise, as root, it installs the missing packages with
// apt-get, a policy-rc.d keeping their services from starting (the tests start servers of their own); as anyone
// else it stops at once, printing the one command to run.
//
//   node scripts/systemPackages.mjs [--dry-run] [--root DIR]
//
// --dry-run reports what is missing and the command, installing nothing; --root DIR looks for /usr/... under DIR.
// Both exist for the tests (specs/cli/systemPackages.test.ts); npm test and .ci/run pass neither.
import { spawnSync } from 'node:child_process'
import { accessSync, constants, existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const { values } = parseArgs({ options: { 'dry-run': { type: 'boolean', default: false }, root: { type: 'string', default: '/' } } })
const root = values.root
const searchPath = (process.env.PATH ?? '').split(delimiter).filter((dir) => dir !== '')

const executable = (path) => {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}
const onPath = (name, extra = []) => [...searchPath, ...extra.map((dir) => join(root, dir))].some((dir) => executable(join(dir, name)))
/** Debian keeps each PostgreSQL version's server programs in /usr/lib/postgresql/<version>/bin, off PATH. */
const postgresBins = () => {
  const versions = join(root, 'usr/lib/postgresql')
  return existsSync(versions) ? readdirSync(versions).map((version) => join(versions, version, 'bin')) : []
}
const hasPostgres = () => [...searchPath, ...postgresBins()].some((dir) => executable(join(dir, 'initdb')) && executable(join(dir, 'pg_ctl')))

/** What the tests look for, where they look for it (specs/support/browser.ts, postgresServer.ts, redisServer.ts). */
const NEEDED = [
  { name: '/usr/bin/chromium', pkg: 'chromium', present: () => executable(join(root, 'usr/bin/chromium')) },
  { name: 'initdb and pg_ctl (on PATH or in /usr/lib/postgresql/*/bin)', pkg: 'postgresql', present: hasPostgres },
  { name: 'redis-server (on PATH or in /usr/bin, /usr/sbin)', pkg: 'redis-server', present: () => onPath('redis-server', ['usr/bin', 'usr/sbin']) },
]

const missing = NEEDED.filter((need) => !need.present())
if (missing.length === 0) process.exit(0)

const packages = missing.map((need) => need.pkg)
const isRoot = process.getuid?.() === 0
if (!isRoot || values['dry-run']) {
  const quoted = (word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`)
  const command = [...(isRoot ? [] : ['sudo']), process.execPath, fileURLToPath(import.meta.url)].map(quoted).join(' ')
  const lines = [
    "The tests need Debian's packages this machine lacks:",
    ...missing.map((need) => `  ${need.name.padEnd(64)} package ${need.pkg}`),
    `Install them with this one command (apt-get install ${packages.join(' ')}, keeping their services from starting), then run npm test again:`,
    `  ${command}`,
  ]
  if (values['dry-run']) lines.push('(--dry-run: nothing was installed)')
  process.stderr.write(`${lines.join('\n')}\n`)
  process.exit(1)
}

process.stderr.write(`installing Debian's ${packages.join(', ')} for the tests (apt-get, as root)\n`)
const POLICY = join(root, 'usr/sbin/policy-rc.d')
// Installing postgresql or redis-server would start their services; a policy that refuses every start keeps them
// from running (only their programs are wanted). One placed by someone else is left as it is.
const placedPolicy = !existsSync(POLICY)
if (placedPolicy) writeFileSync(POLICY, '#!/bin/sh\nexit 101\n', { mode: 0o755 })
let installed = false
try {
  const apt = (...args) => spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } })
  const update = apt('update', '-qq')
  installed = update.status === 0 && apt('install', '-y', '-qq', ...packages).status === 0
  if (update.error) process.stderr.write(`apt-get did not run: ${update.error.message}\n`)
} finally {
  if (placedPolicy) rmSync(POLICY, { force: true })
}
const still = NEEDED.filter((need) => !need.present())
if (!installed || still.length > 0) {
  process.stderr.write(`could not install ${packages.join(', ')}; still missing: ${still.map((need) => need.name).join('; ') || 'nothing, but apt-get failed'}\n`)
  process.exit(1)
}
