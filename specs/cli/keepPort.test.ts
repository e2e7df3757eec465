import { spawn, type ChildProcess } from 'node:child_process'
import { readFile, rm } from 'node:fs/promises'
import { createServer, type Server } from 'node:net'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterEach, describe, expect, it } from 'vitest'
import { cliPath } from '../support/cli.js'
import { useTempHomes } from '../support/tempHome.js'

/** `quire serve` keeps its port across restarts unless another program took it; the port file says which it got. */

const newHome = useTempHomes()
const running: ChildProcess[] = []
const holders: Server[] = []
afterEach(async () => {
  for (const child of running.splice(0)) await stop(child)
  await Promise.all(holders.splice(0).map((server) => new Promise((resolve) => server.close(resolve))))
})

interface Served {
  readonly child: ChildProcess
  readonly port: number
  readonly stdout: () => string
}

/** Starts `quire serve` and waits for its port file (removed first, so an old one is not mistaken for it). */
async function serve(home: string, ...args: string[]): Promise<Served> {
  await rm(join(home, 'port'), { force: true })
  const child = spawn(process.execPath, [cliPath, '--home', home, 'serve', ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  running.push(child)
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  for (let attempt = 0; attempt < 600; attempt++) {
    const text = await readFile(join(home, 'port'), 'utf8').catch(() => undefined)
    // Ready once it has also said where it serves (it writes the port file first).
    if (text && stdout.includes('console: ')) return { child, port: Number(text.split(':')[0]), stdout: () => stdout }
    if (child.exitCode !== null) throw new Error(`quire serve exited ${child.exitCode}: ${stderr}`)
    await sleep(25)
  }
  throw new Error(`quire serve wrote no port file: ${stderr}`)
}

async function stop(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill(signal)
  await exited
}

/** Another program on the loopback port. */
async function occupy(port: number): Promise<void> {
  const server = createServer()
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => resolve())
  })
  holders.push(server)
}

describe('quire serve and its port', () => {
  it('takes the previous port again after a clean stop and after being killed', async () => {
    const home = await newHome()
    const first = await serve(home)
    expect(first.stdout()).toContain(`http://127.0.0.1:${first.port}`)
    await stop(first.child)

    const second = await serve(home)
    expect(second.port).toBe(first.port)
    // Killed: its port file stays behind, and the next daemon takes that port.
    await stop(second.child, 'SIGKILL')
    const third = await serve(home)
    expect(third.port).toBe(first.port)
    expect(await readFile(join(home, 'port'), 'utf8')).toMatch(new RegExp(`^${first.port}:qp_`))
  })

  it('falls back to a free port when the previous one is taken, and the port file says which', async () => {
    const home = await newHome()
    const first = await serve(home)
    await stop(first.child)
    await occupy(first.port)

    const second = await serve(home)
    expect(second.port).not.toBe(first.port)
    expect(second.stdout()).toContain(`http://127.0.0.1:${second.port}`)
    const answered = await fetch(`http://127.0.0.1:${second.port}/admin/status`, {
      headers: { authorization: `Bearer ${(await readFile(join(home, 'port'), 'utf8')).trim().split(':')[1]}` },
    })
    expect(answered.status).toBe(200)
    // The new port is the one remembered now.
    await stop(second.child)
    const third = await serve(home)
    expect(third.port).toBe(second.port)
  })

  it('--port N is taken as given (and refused, not replaced, when N is busy)', async () => {
    const home = await newHome()
    const first = await serve(home)
    await stop(first.child)
    await occupy(first.port)
    const child = spawn(process.execPath, [cliPath, '--home', home, 'serve', '--port', String(first.port)], { stdio: ['ignore', 'pipe', 'pipe'] })
    running.push(child)
    let stderr = ''
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    const code = await new Promise((resolve) => child.once('exit', resolve))
    expect(code).toBe(1)
    expect(stderr).toBe(`quire: port ${first.port} is not free (EADDRINUSE); choose another --port, or leave it out for the previous or a free one\n`)
  })
})
