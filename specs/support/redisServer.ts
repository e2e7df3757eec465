import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { afterAll, beforeAll } from 'vitest'

/**
 * A throwaway `redis-server` for tests: listening only on a unix socket in a temp directory (no TCP at all, so
 * nothing else on the machine reaches it and no port can clash), without persistence, stopped and removed by `stop`
 * or when the process exits. `kill` ends it with SIGKILL, as a crash would; `restart` starts it again on the same
 * socket, so clients configured with its address find it back. Debian's binary (`apt-get install redis-server`) is
 * looked up on PATH, then in /usr/bin and /usr/sbin.
 */
export interface TestRedis {
  /** The address to give the presence bus (`unix:///…/redis.sock`). */
  readonly url: string
  /** SIGKILL: the server is gone without a word to its clients. Resolves once the process has exited. */
  kill(): Promise<void>
  /** Starts it again on the same socket (after `kill`); resolves once it accepts connections. */
  restart(): Promise<void>
  /** Stops it and removes its directory. */
  stop(): Promise<void>
}

/** For a test file: a server started before its tests and stopped after them; returns it once `beforeAll` has run. */
export function useRedisServer(): () => TestRedis {
  let server: TestRedis | undefined
  beforeAll(async () => {
    server = await startTestRedis()
  })
  afterAll(async () => {
    await server?.stop()
  })
  return () => {
    if (!server) throw new Error('the test Redis server is started in beforeAll: ask for it inside a test or hook')
    return server
  }
}

/**
 * A server for a test that never stops it: the run's (QUIRE_TEST_REDIS, which .ci/run starts and stops) when set,
 * else a throwaway one. A test sharing it must use a pub/sub channel of its own.
 */
export async function sharedTestRedis(): Promise<Pick<TestRedis, 'url' | 'stop'>> {
  const given = process.env['QUIRE_TEST_REDIS']
  if (given) return { url: given, stop: async () => {} }
  return startTestRedis()
}

export async function startTestRedis(): Promise<TestRedis> {
  const binary = redisServerBinary()
  const root = mkdtempSync(join(tmpdir(), 'quire-redis-'))
  const socket = join(root, 'redis.sock')
  let child: ChildProcess | undefined
  const exited = (process: ChildProcess) => process.exitCode !== null || process.signalCode !== null
  const end = (signal: NodeJS.Signals) => {
    const running = child
    child = undefined
    if (!running || exited(running)) return Promise.resolve()
    return new Promise<void>((resolve) => {
      running.once('exit', () => resolve())
      running.kill(signal)
    })
  }
  const cleanUp = () => {
    if (child && !exited(child)) child.kill('SIGKILL')
    rmSync(root, { recursive: true, force: true })
  }
  process.on('exit', cleanUp)
  const start = async () => {
    // A socket file left by a killed server is removed by the new one as it binds.
    const started = spawn(
      binary,
      ['--port', '0', '--unixsocket', socket, '--unixsocketperm', '700', '--save', '', '--appendonly', 'no', '--dir', root, '--daemonize', 'no', '--loglevel', 'notice'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    )
    child = started
    let output = ''
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => fail(new Error('did not accept connections within 15 s')), 15_000)
      const fail = (error: Error) => {
        clearTimeout(timer)
        started.kill('SIGKILL')
        reject(new Error(`could not start ${binary}: ${error.message}\n${output}`))
      }
      const read = (chunk: Buffer) => {
        output += chunk.toString()
        if (/ready to accept connections/i.test(output)) {
          clearTimeout(timer)
          started.stdout!.off('data', read)
          resolve()
        }
      }
      started.stdout!.on('data', read)
      started.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
      started.once('error', fail)
      started.once('exit', (code, signal) => fail(new Error(`exited (${code ?? signal}) before it was ready`)))
    })
    // Drained from here on, so a chatty server never blocks on a full pipe.
    started.stdout!.resume()
    started.removeAllListeners('exit')
  }
  try {
    await start()
  } catch (error) {
    cleanUp()
    process.off('exit', cleanUp)
    throw error
  }
  return {
    url: `unix://${socket}`,
    kill: () => end('SIGKILL'),
    async restart() {
      if (child && !exited(child)) throw new Error('the test Redis server is still running: kill it first')
      await start()
    },
    async stop() {
      await end('SIGTERM')
      process.off('exit', cleanUp)
      cleanUp()
    },
  }
}

function redisServerBinary(): string {
  for (const dir of [...(process.env['PATH'] ?? '').split(delimiter), '/usr/bin', '/usr/sbin']) {
    if (dir && existsSync(join(dir, 'redis-server'))) return join(dir, 'redis-server')
  }
  throw new Error('redis-server is not installed: no redis-server on PATH or in /usr/bin (Debian: apt-get install redis-server)')
}
