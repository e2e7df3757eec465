/**
 * Coherence captures under SIGKILL (issue 14, "Must show"; spec §5.2 append discipline): `quire serve` (HTTP) or
 * `quire mcp` (stdio), provenance tracking on, is killed at random moments while assistants read and write-and-save
 * Markdown files of a workspace, so every save appends a transformation to the workspace's `.vmark/` ledger and a
 * `coherence.appended` event to the log. Then:
 * - every save a client saw acknowledged has its transformation in the ledger (found by the content hash of what
 *   the client wrote) and that entry's event in the log's `coherence:<root>` stream;
 * - every line of our segment is whole JSON except lines a kill tore, at most one per kill, and those are exactly
 *   the lines the reader quarantines (`coherence.status`'s `quarantined`);
 * - `quire verify` passes.
 */
import { readdir, readFile, rm, writeFile, mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { ChildProcess } from 'node:child_process'
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { describe, expect, it } from 'vitest'
import { openQuire } from '../../adapters/host/quire.js'
import { textContentHash } from '../../core/coherence/hashing.js'
import { WRITER_ID_FILE } from '../../core/coherence/writerId.js'
import { runCli } from '../support/cli.js'
import { real } from '../support/faultSession.js'
import { launchDaemon, launchStdio, tempDir, type Session } from '../support/mcpHarness.js'

const ROUNDS = 8
const TARGETS = ['a.md', 'b.md', 'c.md']
const FRONTMATTER = /^---\n[\s\S]*?\n---\n/

interface Server {
  readonly sessions: Session[]
  readonly adminUrl: string
  readonly adminToken: string
  readonly process: () => ChildProcess | number
}

async function startServer(kind: 'http' | 'stdio', home: string, ws: string): Promise<Server> {
  // A killed owner leaves its port file behind; the harness would read it as the new owner's.
  await rm(join(home, 'port'), { force: true })
  if (kind === 'http') {
    const daemon = await launchDaemon({ home, workspaces: [ws] })
    const sessions = await Promise.all([daemon.connect(), daemon.connect()])
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

describe('coherence captures under SIGKILL', () => {
  it('every acknowledged capture is in the ledger and the log, only a kill tears a line (quarantined), and `quire verify` passes', async () => {
    const T = await real(await tempDir('quire-kill-coherence-'))
    const ws = join(T, 'ws')
    const home = join(T, 'home')
    await mkdir(ws)
    await mkdir(home)
    for (const name of TARGETS) await writeFile(join(ws, name), `# ${name}\n`)
    // Tracking on; and no review backlog stops the assistants (nobody reviews their changes here).
    for (const [key, value] of [['trackProvenance', 'on'], ['reviewBacklogLimit', '100000']]) {
      const set = await runCli(['settings', 'set', key!, value!], { home })
      expect(set.code, set.stderr).toBe(0)
    }
    /** The content hash of every text a client saw saved, with the file it went to. */
    const acknowledged: Array<{ path: string; hash: string }> = []
    const stats = { kills: 0, saved: 0, refused: 0, failedBeforeKill: [] as string[] }
    let seq = 0
    const reasons: string[] = []
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const server = await startServer(round % 3 === 2 ? 'stdio' : 'http', home, ws)
        const [first] = server.sessions as [Session]
        const tabs = new Map<string, string>()
        for (const name of TARGETS) {
          const opened = await first.call('workspace', { action: 'open', filePath: join(ws, name) })
          expect(opened.isError, opened.text).toBe(false)
          tabs.set(name, opened.structured!.tabId as string)
        }
        // A save killed between its rename and its record leaves the file ahead of the log: the person keeps the
        // tab's version (as in kill.saves.test.ts) so every round can save every file.
        for (const name of TARGETS) {
          await fetch(`${server.adminUrl}/admin/divergence`, {
            method: 'POST',
            headers: { authorization: `Bearer ${server.adminToken}`, 'content-type': 'application/json' },
            body: JSON.stringify({ doc: join(ws, name), choice: 'keep' }),
          })
        }
        let dead = false
        const client = async (session: Session, offset: number): Promise<void> => {
          for (let turn = offset; !dead; turn++) {
            const name = TARGETS[turn % TARGETS.length]!
            const source = TARGETS[(turn + 1) % TARGETS.length]!
            try {
              // Read a source (an input of the next capture) and the target (to keep its vmark.id), then write.
              await session.call('document', { action: 'read', tabId: tabs.get(source) })
              const current = await session.call('document', { action: 'read', tabId: tabs.get(name) })
              if (current.isError) {
                stats.refused++
                continue
              }
              const identity = FRONTMATTER.exec(current.structured!.content as string)?.[0] ?? ''
              const content = `${identity}# ${name}\n\nVersion ${round}.${++seq}, written from ${source}.\n`
              const result = await session.call('document', { action: 'write', tabId: tabs.get(name), content })
              if (!result.isError && result.structured?.saved === true) {
                stats.saved++
                acknowledged.push({ path: name, hash: textContentHash(content) })
              } else {
                stats.refused++
                if (!reasons.includes(result.text.slice(0, 160))) reasons.push(result.text.slice(0, 160))
              }
            } catch (error) {
              if (!dead) stats.failedBeforeKill.push(String(error))
              return
            }
          }
        }
        const loops = server.sessions.map((session, index) => client(session, index))
        await new Promise((resolve) => setTimeout(resolve, 400 + Math.floor(Math.random() * 800)))
        dead = true
        await kill(server)
        stats.kills++
        await Promise.allSettled(server.sessions.map((session) => session.close()))
        await Promise.allSettled(loops)
      }
      await rm(join(home, 'port'), { force: true })
      const context = JSON.stringify({ ...stats, failedBeforeKill: stats.failedBeforeKill.length })
      expect(stats.failedBeforeKill, context).toEqual([])
      expect(stats.saved, `the clients hardly saved anything: ${context}`).toBeGreaterThanOrEqual(ROUNDS / 2)

      // Our segment, line by line: whole JSON, except at most one torn line per kill.
      const writer = (await readFile(join(home, WRITER_ID_FILE), 'utf8')).trim()
      const segments = (await readdir(join(ws, '.vmark/ledger'))).filter((name) => name.startsWith(writer) && name.endsWith('.jsonl'))
      expect(segments, context).toEqual([`${writer}.jsonl`])
      const text = await readFile(join(ws, '.vmark/ledger', segments[0]!), 'utf8')
      const pieces = text.split('\n')
      const tail = pieces.pop()!
      const entries: Array<{ id: string; kind: string; body: { outputs?: Array<{ content_hash: string }> } }> = []
      let torn = 0
      for (const piece of pieces) {
        if (piece === '') continue
        try {
          entries.push(JSON.parse(piece))
        } catch {
          torn++
        }
      }
      if (tail !== '') torn++
      expect(torn, context).toBeLessThanOrEqual(stats.kills)

      // The log's copy of what we appended, read with the data directory released again.
      const quire = await openQuire(home, { watchDisk: false })
      try {
        const logged = new Set<string>()
        for await (const event of quire.services.engine.store.readStream(`coherence:${ws}`)) {
          for (const id of (event.data as { entries: string[] }).entries) logged.add(id)
        }
        const captured = new Map<string, string>()
        for (const entry of entries) {
          if (entry.kind !== 'transformation') continue
          for (const output of entry.body.outputs ?? []) captured.set(output.content_hash, entry.id)
        }
        for (const save of acknowledged) {
          const entryId = captured.get(save.hash)
          expect(entryId, `the acknowledged save of ${save.path} (${save.hash}) has no transformation in the ledger (${context})`).toBeDefined()
          expect(logged.has(entryId!), `the transformation ${entryId} of ${save.path} is not in the log (${context})`).toBe(true)
        }
        // The torn lines are the ones the reader quarantines.
        const status = await quire.services.coherence.status(ws)
        expect(status.quarantined, context).toBe(torn)
        console.info(`coherenceCaptures: ${JSON.stringify(reasons.slice(0, 5))} ${context}; ${entries.length} ledger lines, ${torn} torn, ${acknowledged.length} acknowledged captures`)
      } finally {
        await quire.close()
      }

      const verify = await runCli(['verify'], { home, timeoutMs: 60_000 })
      expect(verify.code, `quire verify: ${verify.stdout}${verify.stderr} (${context})`).toBe(0)
    } finally {
      await rm(T, { recursive: true, force: true })
    }
  }, 120_000)
})
