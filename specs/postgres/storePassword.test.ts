import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../support/cli.js'
import { startRestartablePostgres, type RestartablePostgres } from '../support/postgresServer.js'

/**
 * A wrong password in `--store` (issue 25, item 9): `quire serve` says in one line what to check (the user, the
 * host, the database; never the password), exits 1, and leaves the data directory as it found it. The throwaway
 * cluster trusts every local connection, so a role of its own is made to need its password (pg_hba.conf, reloaded);
 * the cluster is always a throwaway one, since the test rewrites its pg_hba.conf.
 */
const ROLE = 'quire_store_pw'
const RIGHT = 'right-secret-4c1f'
const WRONG = 'wrong-secret-9d2e'

let server: RestartablePostgres
let database: string

/** `connectionString` as `user` with `password`. */
function as(connectionString: string, user: string, password: string): string {
  const url = new URL(connectionString)
  url.username = user
  url.password = password
  return url.toString()
}

/** The SQLSTATE a connection as `user` with `password` fails with, or 'connected'. */
async function tryConnect(user: string, password: string): Promise<string> {
  const client = new pg.Client({ connectionString: as(database, user, password) })
  try {
    await client.connect()
    return 'connected'
  } catch (error) {
    return (error as { code?: string }).code ?? (error as Error).message
  } finally {
    await client.end().catch(() => undefined)
  }
}

beforeAll(async () => {
  server = await startRestartablePostgres()
  database = await server.createDatabase()
  const admin = new pg.Client({ connectionString: database })
  await admin.connect()
  try {
    await admin.query(`CREATE ROLE ${ROLE} LOGIN PASSWORD '${RIGHT}'`)
    await admin.query(`GRANT ALL ON DATABASE ${new URL(database).pathname.slice(1)} TO ${ROLE}`)
    const hbaFile = (await admin.query<{ hba_file: string }>('SHOW hba_file')).rows[0]!.hba_file
    // First match wins: this role needs its password, everyone else is trusted as before.
    await writeFile(hbaFile, `local all ${ROLE} scram-sha-256\n${await readFile(hbaFile, 'utf8')}`)
    await admin.query('SELECT pg_reload_conf()')
  } finally {
    await admin.end()
  }
  // The reload is asynchronous: the role's password is asked for once the postmaster has read the file.
  const deadline = Date.now() + 10_000
  while ((await tryConnect(ROLE, WRONG)) === 'connected') {
    if (Date.now() > deadline) throw new Error('pg_hba.conf was not reloaded in 10 s')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
})

afterAll(async () => {
  await server?.stop()
})

/** Every entry under `directory`, as relative paths, sorted (directories end with "/"). */
async function listing(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true }).catch(() => [])
  return entries.map((entry) => `${join(entry.parentPath, entry.name).slice(directory.length + 1)}${entry.isDirectory() ? '/' : ''}`).sort()
}

describe('issue 25 item 9: a wrong database password in --store', () => {
  it('the role needs its password: the right one connects, the wrong one is refused (28P01)', async () => {
    expect(await tryConnect(ROLE, RIGHT)).toBe('connected')
    expect(await tryConnect(ROLE, WRONG)).toBe('28P01')
  })

  it('quire serve says in one line what to check, never the password, exits 1, and leaves the data directory as it was', async () => {
    const root = await mkdtemp(join(tmpdir(), 'quire-store-pw-'))
    try {
      const home = join(root, 'home')
      await mkdir(home)
      // A directory that is not empty: what was there stays, byte for byte, and nothing is added.
      await writeFile(join(home, 'notes.txt'), 'kept\n')
      const before = await listing(home)
      const store = as(database, ROLE, WRONG)
      // Nothing of this process's environment may name another data directory or store.
      const { QUIRE_HOME: _home, QUIRE_TOKEN: _token, QUIRE_STORE: _store, ...env } = process.env
      const result = await runCli(['--home', home, 'serve', '--store', store], { env, timeoutMs: 30_000 })

      expect(result.timedOut).toBe(false)
      expect(result.code).toBe(1)
      const lines = result.stderr.trimEnd().split('\n')
      expect(lines, result.stderr).toHaveLength(1)
      const [line] = lines as [string]
      expect(line).not.toMatch(/unexpected error|\bat .*:\d+:\d+/)
      expect(line).toContain(ROLE)
      expect(line).toContain(new URL(database).pathname.slice(1))
      expect(line).toContain(new URL(database).searchParams.get('host')!)
      expect(line).toMatch(/password/)
      expect(result.stderr + result.stdout).not.toContain(WRONG)
      expect(result.stderr + result.stdout).not.toContain(RIGHT)

      expect(await listing(home)).toEqual(before)
      expect(await readFile(join(home, 'notes.txt'), 'utf8')).toBe('kept\n')
    } finally {
      await rm(root, { recursive: true, force: true })
    }
  })
})
