import { execFileSync, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync, appendFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll } from 'vitest'

/**
 * A PostgreSQL server for tests, and fresh databases on it.
 *
 * With `QUIRE_TEST_POSTGRES` set (a connection string to a server the test may create databases on), that server is
 * used. Otherwise a throwaway cluster is started here: `initdb` into a temp directory, `pg_ctl start` listening only
 * on a unix socket inside that directory (no TCP at all, so nothing else on the machine can reach it and no port can
 * clash), stopped and removed by `stop`, or when the process exits. PostgreSQL refuses to run as root, so as root the
 * cluster belongs to the `postgres` user (`runuser`), in a temp directory that user owns.
 *
 * The binaries are looked up on PATH, then in Debian's /usr/lib/postgresql/<version>/bin (newest version first).
 */
export interface TestPostgres {
  /** A connection string to the server's maintenance database, as a superuser (or whatever QUIRE_TEST_POSTGRES grants). */
  readonly connectionString: string
  /** A connection string to a database created for the caller, dropped by `stop`. */
  createDatabase(): Promise<string>
  /** Drops the databases made here, and stops and removes a throwaway cluster. */
  stop(): Promise<void>
}

const SOCKET_PORT = 5432

/**
 * For a test file: a server started before its tests (QUIRE_TEST_POSTGRES or a throwaway cluster) with one database
 * made for the file, both gone after them. Returns the database's connection string, once `beforeAll` has run.
 */
export function usePostgresDatabase(): () => string {
  let server: TestPostgres | undefined
  let database: string | undefined
  beforeAll(async () => {
    server = await startTestPostgres()
    database = await server.createDatabase()
  })
  afterAll(async () => {
    await server?.stop()
  })
  return () => {
    if (!database) throw new Error('the test database is made in beforeAll: ask for it inside a test or hook')
    return database
  }
}

/**
 * For a test file on `usePostgresDatabase`'s database: an administrator's pool opened before its tests and ended
 * after them (to look at and alter a log's rows behind the nodes' backs), and the store URL naming one schema.
 */
export function usePostgresAdmin(database: () => string): { admin: () => pg.Pool; storeOf: (schema: string) => string } {
  let pool: pg.Pool | undefined
  beforeAll(() => {
    pool = new pg.Pool({ connectionString: database(), max: 2 })
  })
  afterAll(async () => {
    await pool?.end()
  })
  return {
    admin: () => {
      if (!pool) throw new Error('the administrator pool is made in beforeAll: ask for it inside a test or hook')
      return pool
    },
    storeOf: (schema) => `${database()}${database().includes('?') ? '&' : '?'}schema=${schema}`,
  }
}

export async function startTestPostgres(): Promise<TestPostgres> {
  const given = process.env['QUIRE_TEST_POSTGRES']
  if (given) return onServer(given, () => {})
  const cluster = startThrowawayCluster()
  return onServer(cluster.connectionString, cluster.stop)
}

/** A throwaway cluster (whatever QUIRE_TEST_POSTGRES says) that a test may shut down and start again mid-run. */
export interface RestartablePostgres extends TestPostgres {
  /** `pg_ctl stop -m fast`: every session is cut, and no connection is accepted until `startServer`. */
  stopServer(): void
  /** `pg_ctl start` on the same data directory and socket. */
  startServer(): void
}

export async function startRestartablePostgres(): Promise<RestartablePostgres> {
  const cluster = startThrowawayCluster()
  return { ...onServer(cluster.connectionString, cluster.stop), stopServer: cluster.halt, startServer: cluster.resume }
}

function onServer(connectionString: string, stopServer: () => void): TestPostgres {
  const databases: string[] = []
  const admin = () => new pg.Client({ connectionString })
  return {
    connectionString,
    async createDatabase() {
      const name = `quire_test_${randomBytes(6).toString('hex')}`
      const client = admin()
      await client.connect()
      try {
        await client.query(`CREATE DATABASE ${name}`)
      } finally {
        await client.end()
      }
      databases.push(name)
      return withDatabase(connectionString, name)
    },
    async stop() {
      try {
        if (databases.length > 0) {
          const client = admin()
          await client.connect()
          try {
            for (const name of databases.splice(0)) await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
          } finally {
            await client.end()
          }
        }
      } finally {
        stopServer()
      }
    },
  }
}

/** `connectionString` with its database replaced by `database` (a unix-socket string keeps its host parameter). */
function withDatabase(connectionString: string, database: string): string {
  const url = new URL(connectionString)
  url.pathname = `/${database}`
  return url.toString()
}

interface ThrowawayCluster {
  readonly connectionString: string
  readonly stop: () => void
  readonly halt: () => void
  readonly resume: () => void
}

function startThrowawayCluster(): ThrowawayCluster {
  const bin = postgresBinaries()
  const asRoot = process.getuid?.() === 0
  const root = mkdtempSync(join(tmpdir(), 'quire-pg-'))
  const data = join(root, 'data')
  const run = (program: string, args: string[]) => {
    const command = asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, program), ...args]] as const : [join(bin, program), args] as const
    execFileSync(command[0], command[1], { stdio: ['ignore', 'pipe', 'pipe'], cwd: root })
  }
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim())
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim())
    chownSync(root, uid, gid)
  }
  chmodSync(root, 0o755)
  let started = false
  const stop = () => {
    process.off('exit', stop)
    if (started) {
      const program = join(bin, 'pg_ctl')
      const args = ['stop', '-D', data, '-m', 'immediate', '-w']
      spawnSync(asRoot ? 'runuser' : program, asRoot ? ['-u', 'postgres', '--', program, ...args] : args, { stdio: 'ignore', cwd: root })
      started = false
    }
    rmSync(root, { recursive: true, force: true, maxRetries: 5 })
  }
  process.on('exit', stop)
  try {
    run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync'])
    // Only the socket in our own directory: no TCP listener, so nothing else reaches the server and no port clashes.
    appendFileSync(
      join(data, 'postgresql.conf'),
      [`listen_addresses = ''`, `unix_socket_directories = '${root}'`, `port = ${SOCKET_PORT}`, 'max_connections = 200', ''].join('\n'),
    )
    writeFileSync(join(root, 'server.log'), '')
    if (asRoot) execFileSync('chown', ['postgres', join(root, 'server.log')])
    run('pg_ctl', ['start', '-D', data, '-l', join(root, 'server.log'), '-w', '-t', '60'])
    started = true
  } catch (error) {
    stop()
    throw new Error(`could not start a throwaway PostgreSQL cluster with ${bin}: ${describe(error)}`, { cause: error })
  }
  const connectionString = `postgresql://postgres@localhost/postgres?host=${encodeURIComponent(root)}&port=${SOCKET_PORT}`
  const halt = () => {
    run('pg_ctl', ['stop', '-D', data, '-m', 'fast', '-w', '-t', '60'])
    started = false
  }
  const resume = () => {
    run('pg_ctl', ['start', '-D', data, '-l', join(root, 'server.log'), '-w', '-t', '60'])
    started = true
  }
  return { connectionString, stop, halt, resume }
}

/** The directory holding initdb and pg_ctl: PATH first, then Debian's versioned directories, newest first. */
function postgresBinaries(): string {
  const hasBoth = (dir: string) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) if (dir && hasBoth(dir)) return dir
  const debian = '/usr/lib/postgresql'
  if (existsSync(debian)) {
    const versions = readdirSync(debian).filter((name) => /^\d+$/.test(name)).sort((a, b) => Number(b) - Number(a))
    for (const version of versions) if (hasBoth(join(debian, version, 'bin'))) return join(debian, version, 'bin')
  }
  throw new Error('PostgreSQL is not installed: no initdb and pg_ctl on PATH or under /usr/lib/postgresql/<version>/bin (Debian: apt-get install postgresql), and QUIRE_TEST_POSTGRES is not set')
}

function describe(error: unknown): string {
  const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim()
  return stderr || (error instanceof Error ? error.message : String(error))
}
