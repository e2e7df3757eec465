/**
 * Issue 11, finding 2: a full disk must not wedge the daemon. With the data directory on a small tmpfs that fills up,
 * an assistant's write answers JOURNAL_UNAVAILABLE (never JOURNAL_BUSY for good), `workspace.new` answers, writes
 * succeed again once space is freed without a restart, SIGTERM stops the daemon within seconds whatever the disk
 * does, `quire verify` passes, and every acknowledged write replays. Mounting needs root (CI runs as root); where it
 * is impossible the test fails and says so.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fill, mountTmpfs, unmountTmpfs } from '../support/fullDisk.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../support/cli.js'
import { launchDaemon, type Daemon, type Session } from '../support/mcpHarness.js'
import { folder, ok, removeAll } from '../support/conformance.js'


/** A text too large to fit in the slack of a page the log already holds. */
const version = (name: string) => `${name}\n` + `${name} `.repeat(8_000) + '\n'

/** The answer's error code, or 'ok'. */
async function outcome(session: Session, tool: string, args: Record<string, unknown>): Promise<string> {
  const result = await session.call(tool, args)
  if (!result.isError) return 'ok'
  try {
    return (JSON.parse(result.text) as { error: string }).error
  } catch {
    return result.text
  }
}

/** Calls until the answer is one of `wanted` (anything else must be one of `passing`), within a generous bound. */
async function until(call: () => Promise<string>, wanted: readonly string[], passing: readonly string[], boundMs = 60_000): Promise<string> {
  const deadline = Date.now() + boundMs
  for (;;) {
    const answer = await call()
    if (wanted.includes(answer)) return answer
    expect(passing, `unexpected answer ${answer}`).toContain(answer)
    if (Date.now() > deadline) throw new Error(`still ${answer} after ${boundMs} ms`)
    await sleep(250)
  }
}

async function exitWithin(daemon: Daemon, boundMs: number): Promise<number> {
  const started = Date.now()
  daemon.process.kill('SIGTERM')
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the daemon did not stop within ${boundMs} ms of SIGTERM`)), boundMs)
    daemon.process.once('exit', () => {
      clearTimeout(timer)
      resolve()
    })
  })
  return Date.now() - started
}

describe('a daemon whose data directory fills up', () => {
  let mountPoint: string
  let w: string

  beforeAll(async () => {
    mountPoint = await mountTmpfs('quire-daemon-full-', '24m')
    w = await folder('fulldisk', { 'a.md': 'start\n' })
  })
  afterAll(async () => {
    await removeAll(w)
    await unmountTmpfs(mountPoint)
  })

  it('answers JOURNAL_UNAVAILABLE while full, writes again once space is freed, stops promptly, and loses nothing acknowledged', async () => {
    const home = join(mountPoint, 'home-1')
    const filler = join(mountPoint, 'filler-1')
    await mkdir(home)
    const daemon = await launchDaemon({ home, workspaces: [w] })
    const session = await daemon.connect()
    let stopped = false
    try {
      const tabId = ok(await session.call('workspace', { action: 'open', filePath: join(w, 'a.md') })).tabId as string
      const write = (text: string) => outcome(session, 'document', { action: 'write', tabId, content: text, save: false })
      expect(await write(version('one'))).toBe('ok')

      await fill(filler)
      expect(await write(version('lost'))).toBe('JOURNAL_UNAVAILABLE')
      // Busy only while that record is still being retried, then the same clear answer again, never BUSY for good.
      expect(await until(() => write(version('lost again')), ['JOURNAL_UNAVAILABLE'], ['JOURNAL_BUSY'])).toBe('JOURNAL_UNAVAILABLE')
      expect(await until(() => outcome(session, 'workspace', { action: 'new' }), ['JOURNAL_UNAVAILABLE'], ['JOURNAL_BUSY'])).toBe('JOURNAL_UNAVAILABLE')

      await rm(filler)
      expect(await until(() => write(version('three')), ['ok'], ['JOURNAL_UNAVAILABLE', 'JOURNAL_BUSY'])).toBe('ok')
      expect(ok(await session.call('document', { action: 'read', tabId })).content).toBe(version('three'))

      await session.close()
      await exitWithin(daemon, 10_000)
      stopped = true
      const verified = await runCli(['verify'], { home, timeoutMs: 60_000 })
      expect(verified.code, verified.stdout + verified.stderr).toBe(0)
      const replayed = await runCli(['replay', '--doc', join(w, 'a.md')], { home, timeoutMs: 60_000 })
      expect(replayed.stdout).toBe(version('three'))
      const journal = await runCli(['log', '--json'], { home, timeoutMs: 60_000 })
      const written = journal.stdout.trim().split('\n').map((line) => JSON.parse(line) as { type: string; data: { text?: string } })
        .filter((event) => event.type === 'journal.recorded').map((event) => event.data.text)
      expect(written).toEqual([version('one'), version('three')])
    } finally {
      await rm(filler, { force: true })
      if (!stopped) await daemon.stop()
    }
  })

  it('DOC.WRITE.BASE a tab whose writes failed on the full disk takes writes again once space is back, never INTERNAL, each replaying to exactly what it sent', async () => {
    const home = join(mountPoint, 'home-3')
    const filler = join(mountPoint, 'filler-3')
    await mkdir(home)
    const large = (name: string) => `${name}\n` + 'x'.repeat(200_000) + `\n${name} end\n`
    await writeFile(join(w, 'c.md'), large('start'))
    const daemon = await launchDaemon({ home, workspaces: [w] })
    const session = await daemon.connect()
    let stopped = false
    try {
      const tabId = ok(await session.call('workspace', { action: 'open', filePath: join(w, 'c.md') })).tabId as string
      ok(await session.call('document', { action: 'read', tabId }))
      const acks: { revision: string; text: string }[] = []
      const write = async (text: string): Promise<string> => {
        const result = await session.call('document', { action: 'write', tabId, content: text, save: false })
        if (!result.isError) {
          acks.push({ revision: (JSON.parse(result.text) as { revision: string }).revision, text })
          return 'ok'
        }
        return (JSON.parse(result.text) as { error: string }).error
      }
      expect(await write(large('one'))).toBe('ok')
      await fill(filler)
      // Every refusal while the disk is full is a clear one (a write may still fit in the slack the log holds).
      for (let n = 0; n < 6; n += 1) expect(['ok', 'JOURNAL_UNAVAILABLE', 'JOURNAL_BUSY', 'JOURNAL_DEGRADED']).toContain(await write(large(`full ${n}`)))
      await rm(filler)
      expect(await until(() => write(large('back')), ['ok'], ['JOURNAL_UNAVAILABLE', 'JOURNAL_BUSY', 'JOURNAL_DEGRADED'])).toBe('ok')
      for (let n = 0; n < 5; n += 1) expect(await write(large(`after ${n}`))).toBe('ok')

      await session.close()
      await exitWithin(daemon, 10_000)
      stopped = true
      for (const ack of acks) {
        const replayed = await runCli(['replay', '--doc', join(w, 'c.md'), '--at', ack.revision], { home, timeoutMs: 60_000 })
        expect(replayed.stdout.slice(0, 40), `replay --at ${ack.revision}`).toBe(ack.text.slice(0, 40))
        expect(replayed.stdout === ack.text, `replay --at ${ack.revision}`).toBe(true)
      }
    } finally {
      await rm(filler, { force: true })
      if (!stopped) await daemon.stop()
    }
  })

  it('stops within seconds of SIGTERM while the disk is full and a write is being retried, and opens cleanly after', async () => {
    const home = join(mountPoint, 'home-2')
    const filler = join(mountPoint, 'filler-2')
    await mkdir(home)
    await writeFile(join(w, 'b.md'), 'b\n')
    const daemon = await launchDaemon({ home, workspaces: [w] })
    const session = await daemon.connect()
    let stopped = false
    try {
      const tabId = ok(await session.call('workspace', { action: 'open', filePath: join(w, 'b.md') })).tabId as string
      expect(await outcome(session, 'document', { action: 'write', tabId, content: version('kept'), save: false })).toBe('ok')
      await fill(filler)
      // A write the disk refuses, still being retried when the signal comes (its answer dies with the daemon).
      void session.call('document', { action: 'write', tabId, content: version('in flight'), save: false }).catch(() => undefined)
      await sleep(500)
      await exitWithin(daemon, 10_000)
      stopped = true
      await session.close().catch(() => {})
      await rm(filler)
      const verified = await runCli(['verify'], { home, timeoutMs: 60_000 })
      expect(verified.code, verified.stdout + verified.stderr).toBe(0)
      const replayed = await runCli(['replay', '--doc', join(w, 'b.md')], { home, timeoutMs: 60_000 })
      expect(replayed.stdout).toBe(version('kept'))
    } finally {
      await rm(filler, { force: true })
      if (!stopped) await daemon.stop()
    }
  })
})
