/**
 * Saves under SIGKILL (SAVE.1, WS.SAVE.2, WS.SAVE_AS.7–9, DOC.WRITE.5, DESIGN.md §7 "writes are atomic"): the server
 * (`quire serve` over HTTP, or `quire mcp` over stdio) is killed at random moments while several clients run
 * concurrent saves — document.write with save, document.write + workspace.save, and save_as of untitled tabs to
 * new files (some racing for the same new path) — of several files with large, distinct contents.
 *
 * Afterwards every target file holds exactly one complete version that some call asked for (or its original
 * content): never a mix, a prefix or an empty file; `quire verify` exits 0 on the data directory; and nothing but
 * the targets is left in the workspace except, possibly, temp files of a save killed between creating its temp
 * file and renaming it (`.quire-save-<pid>-<16 hex>.tmp`, documented in adapters/fs/saveTemp.ts). Those are never at
 * a target path and never a target's name.
 */
import { readdir, readFile, rm, writeFile, mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { ChildProcess } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { quire, real } from '../support/faultSession.js'
import { launchDaemon, launchStdio, tempDir, type Session } from '../support/mcpHarness.js'

const ROUNDS = 16
const TARGETS = ['t0.md', 't1.md', 't2.md', 't3.md']
const TEMP_NAME = /^\.quire-save-([0-9]+-)?[0-9a-f]{16}\.tmp$/

/** Seeded PRNG (mulberry32): `rng(n)` is an integer in [0, n). */
function prng(seed: number): (n: number) => number {
  let a = seed >>> 0
  return (n) => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n)
  }
}

/**
 * A large text that is version `id` of `name` and nothing else: a header and footer naming it, lines numbered from
 * the start, and the id on every 97th line (so the diff against another version stays cheap), `kib` long. A prefix,
 * a mix of two versions or an empty file equals no version.
 */
function version(name: string, id: string, kib: number): string {
  const lines: string[] = [`BEGIN ${name} ${id}`]
  const count = Math.ceil((kib * 1024) / 80)
  for (let n = 1; n <= count; n++) lines.push((n % 97 === 0 ? `${name} line ${n} of version ${id} ` : `${name} line ${n} `).padEnd(79, '~'))
  lines.push(`END ${name} ${id}`, '')
  return lines.join('\n')
}

interface Server {
  readonly sessions: Session[]
  readonly adminUrl: string
  readonly adminToken: string
  readonly process: () => ChildProcess | number
}

async function startServer(kind: 'http' | 'stdio', home: string, ws: string): Promise<Server> {
  // A killed owner leaves its port file behind; the harness would read it as the new daemon's.
  await rm(join(home, 'port'), { force: true })
  if (kind === 'http') {
    const daemon = await launchDaemon({ home, workspaces: [ws] })
    const sessions = await Promise.all([daemon.connect(), daemon.connect(), daemon.connect()])
    return { sessions, adminUrl: daemon.url, adminToken: daemon.token, process: () => daemon.process }
  }
  const session = await launchStdio({ home, workspaces: [ws] })
  const [port, token] = (await readFile(join(home, 'port'), 'utf8')).trim().split(':') as [string, string]
  const transport = session.client.transport as StdioClientTransport
  return { sessions: [session], adminUrl: `http://127.0.0.1:${port}`, adminToken: token, process: () => transport.pid! }
}

async function kill(server: Server): Promise<void> {
  const target = server.process()
  if (typeof target === 'number') {
    process.kill(target, 'SIGKILL')
    // Wait until the pid is gone (the stdio transport reaps it).
    for (let i = 0; i < 200; i++) {
      try {
        process.kill(target, 0)
      } catch {
        return
      }
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    return
  }
  if (target.exitCode !== null || target.signalCode !== null) return
  const exited = new Promise((resolve) => target.once('exit', resolve))
  target.kill('SIGKILL')
  await exited
}

describe('kill -9 during concurrent saves', () => {
  it('SAVE.1 / WS.SAVE.2 / WS.SAVE_AS.9 after ≥15 SIGKILLs mid-save every file holds one complete requested version, no temp at a target path, and `quire verify` exits 0', async () => {
    const seed = Number(process.env.QUIRE_KILL_SEED ?? Date.now() % 1_000_000)
    const rng = prng(seed)
    const T = await real(await tempDir('quire-kill-saves-'))
    const ws = join(T, 'ws')
    const home = join(T, 'home')
    await mkdir(ws)
    await mkdir(home)
    /** Every content some call asked to be saved at each path, plus the original. */
    const allowed = new Map<string, Set<string>>()
    for (const name of TARGETS) {
      const original = version(name, 'original', 64 + rng(128))
      await writeFile(join(ws, name), original)
      allowed.set(join(ws, name), new Set([original]))
    }
    const stats = { kills: 0, saved: 0, savedAs: 0, stale: 0, refused: 0, failedBeforeKill: [] as string[] }
    let seq = 0
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const server = await startServer(round % 3 === 2 ? 'stdio' : 'http', home, ws)
        const [first] = server.sessions as [Session]
        // Tabs persist in the log across kills; open the targets once (open returns the existing tab after that).
        const tabs = new Map<string, string>()
        for (const name of TARGETS) {
          const opened = await first.call('workspace', { action: 'open', filePath: join(ws, name) })
          expect(opened.isError, opened.text).toBe(false)
          tabs.set(join(ws, name), opened.structured!.tabId as string)
        }
        // A save that landed on disk but not in the log (killed in between) looks, after the restart, like another
        // program's edit of a file with unsaved changes: the document is "diverged" and its saves are refused until
        // the person decides. Decide as the person would (`quire divergence keep`), so every round saves every file.
        await new Promise((resolve) => setTimeout(resolve, 150))
        for (const name of TARGETS) {
          await fetch(`${server.adminUrl}/admin/divergence`, {
            method: 'POST',
            headers: { authorization: `Bearer ${server.adminToken}`, 'content-type': 'application/json' },
            body: JSON.stringify({ doc: join(ws, name), choice: 'keep' }),
          })
        }
        let dead = false
        const approve = (id: string) =>
          fetch(`${server.adminUrl}/admin/approvals/${encodeURIComponent(id)}/approve`, {
            method: 'POST',
            headers: { authorization: `Bearer ${server.adminToken}` },
          })
        const client = async (session: Session): Promise<void> => {
          while (!dead) {
            const op = rng(5)
            try {
              if (op < 4) {
                const path = join(ws, TARGETS[rng(TARGETS.length)]!)
                const content = version(path.slice(ws.length + 1), `${round}.${++seq}`, 32 + rng(160))
                allowed.get(path)!.add(content) // before the call: a kill may land it on disk without an answer
                const tabId = tabs.get(path)!
                if (op < 2) {
                  const result = await session.call('document', { action: 'write', tabId, content })
                  if (!result.isError && result.structured?.saved === true) stats.saved++
                  else if (!result.isError) stats.stale++
                  else stats.refused++
                } else {
                  const written = await session.call('document', { action: 'write', tabId, content, save: false })
                  if (written.isError) {
                    stats.refused++
                    continue
                  }
                  const saved = await session.call('workspace', { action: 'save', tabId })
                  if (!saved.isError) stats.saved++
                  else if (saved.structured?.error === 'STALE') stats.stale++
                  else stats.refused++
                }
              } else {
                // save_as of an untitled tab to a new file; three candidate names per round, so clients race for them.
                const path = join(ws, `sa-${round}-${rng(3)}.md`)
                const content = version(path.slice(ws.length + 1), `${round}.${++seq}`, 32 + rng(160))
                if (!allowed.has(path)) allowed.set(path, new Set())
                allowed.get(path)!.add(content)
                const created = await session.call('workspace', { action: 'new' })
                if (created.isError) {
                  // Never write without a tabId: that is the focused tab (GEN.7), another document.
                  stats.refused++
                  continue
                }
                const tabId = created.structured!.tabId as string
                await session.call('document', { action: 'write', tabId, content })
                let result = await session.call('workspace', { action: 'save_as', tabId, filePath: path })
                if (result.structured?.error === 'APPROVAL_REQUIRED' && typeof result.structured.approvalId === 'string') {
                  await approve(result.structured.approvalId)
                  result = await session.call('workspace', { action: 'save_as', tabId, filePath: path })
                }
                if (!result.isError) stats.savedAs++
                else stats.refused++
                // Done with the tab, as a client is: an assistant keeps at most 200 tabs open (issue 11, finding 10).
                await session.call('workspace', { action: 'close', tabId, force: true })
              }
            } catch (error) {
              if (!dead) stats.failedBeforeKill.push(String(error))
              return
            }
          }
        }
        const loops = server.sessions.flatMap((session) => [client(session), client(session)])
        await new Promise((resolve) => setTimeout(resolve, 200 + rng(900)))
        dead = true
        await kill(server)
        stats.kills++
        // Closing the clients rejects their calls still in flight (an HTTP client would otherwise wait out its
        // request timeout for an answer from the dead server).
        await Promise.allSettled(server.sessions.map((session) => session.close()))
        await Promise.allSettled(loops)
      }
      await rm(join(home, 'port'), { force: true })

      const context = `seed ${seed}, ${JSON.stringify({ ...stats, failedBeforeKill: stats.failedBeforeKill.length })}`
      expect(stats.kills, context).toBeGreaterThanOrEqual(15)
      expect(stats.failedBeforeKill, context).toEqual([])
      expect(stats.saved + stats.savedAs, `the clients hardly saved anything: ${context}`).toBeGreaterThanOrEqual(15)

      // Every target holds exactly one complete version that some call asked for (or the original).
      const names = await readdir(ws)
      for (const name of names) {
        const path = join(ws, name)
        if (TEMP_NAME.test(name)) continue
        const wanted = allowed.get(path)
        expect(wanted, `unexpected file ${name} in the workspace (${context})`).toBeDefined()
        const bytes = await readFile(path, 'utf8')
        const head = bytes.slice(0, bytes.indexOf('\n'))
        expect(wanted!.has(bytes), `${name} holds no complete requested version: ${bytes.length} bytes, starts "${head}", ends "${bytes.slice(-40).trim()}" (${context})`).toBe(true)
      }
      for (const name of TARGETS) expect(names).toContain(name)
      // Temp files of a save killed before its rename may stay (atomicWrite.ts says so); never under a target's name.
      const temps = names.filter((name) => TEMP_NAME.test(name))
      for (const temp of temps) expect(allowed.has(join(ws, temp))).toBe(false)
      console.info(`kill.saves: ${context}; stray temp files left by killed saves: ${temps.length}`)

      const verify = await quire(home, 'verify')
      expect(verify.code, `quire verify: ${verify.stdout}${verify.stderr} (${context})`).toBe(0)
    } finally {
      await rm(T, { recursive: true, force: true })
    }
  }, 110_000)
})
