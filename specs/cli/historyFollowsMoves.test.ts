import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { ConsoleState } from '../../adapters/http/consoleApi.js'
import { runCli, type CliResult } from '../support/cli.js'
import { folder, ok, put, read, removeAll } from '../support/conformance.js'
import { saveAsApproved } from '../support/faultSession.js'
import { launchDaemon, type Daemon, type Session } from '../support/mcpHarness.js'
import { useTempHomes } from '../support/tempHome.js'

/**
 * Issue 24 item 7: a document keeps its id when an assistant saves it elsewhere (`workspace.save_as`) or the person
 * renames its file in the console, so `quire history` and `quire replay --doc` find it by any path it had, the old
 * one saying where it is now, with its whole history.
 */

const newHome = useTempHomes()
const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

function succeeded(result: CliResult): string {
  expect({ code: result.code, stderr: result.stderr, timedOut: result.timedOut }).toEqual({ code: 0, stderr: '', timedOut: false })
  return result.stdout
}

async function started(home: string, ws: string): Promise<{ daemon: Daemon; mcp: Session }> {
  const daemon = await launchDaemon({ home, workspaces: [ws] })
  const mcp = await daemon.connect()
  const stop = async () => {
    await mcp.close()
    await daemon.stop()
  }
  cleanups.push(stop)
  return { daemon, mcp }
}

async function stopped(session: { daemon: Daemon; mcp: Session }): Promise<void> {
  await cleanups.pop()!()
  expect(session.daemon.process.exitCode ?? session.daemon.process.signalCode).not.toBeNull()
}

/** The console's API, as the person's browser calls it (the port file's token stands for the sign-in cookie). */
async function consoleApi<T>(daemon: Daemon, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${daemon.url}/console/api${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${daemon.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  expect(response.status, await response.clone().text()).toBe(200)
  return (await response.json()) as T
}

async function docIdOf(daemon: Daemon, tabId: string): Promise<string> {
  const state = await consoleApi<ConsoleState>(daemon, '/state')
  return state.windows.flatMap((window) => window.tabs).find((tab) => tab.tabId === tabId)!.docId
}

/** `quire history TARGET`: its first line, and the entries (every line after it). */
async function history(home: string, target: string, cwd?: string): Promise<{ head: string; entries: string[] }> {
  const [head = '', ...entries] = succeeded(await runCli(['history', target], { home, cwd })).split('\n').filter((line) => line.length > 0)
  return { head, entries }
}

async function replay(home: string, target: string, cwd?: string): Promise<string> {
  return succeeded(await runCli(['replay', '--doc', target], { home, cwd }))
}

describe('history follows a document across save_as and renames (issue 24 item 7)', () => {
  it('the old path, the path in between and the new one each show the whole history; the old ones say where the document is now; replay finds it by any of them', async () => {
    const home = await newHome()
    const ws = await folder('history-moves')
    cleanups.push(() => removeAll(ws))
    const notes = join(ws, 'notes.md')
    const final = join(ws, 'notes-final.md')
    const archive = join(ws, 'notes-archive.md')
    await put(notes, '# Notes\n')

    let session = await started(home, ws)
    const { daemon, mcp } = session
    const tabId = ok(await mcp.call('workspace', { action: 'open', filePath: notes })).tabId as string
    const docId = await docIdOf(daemon, tabId)
    ok(await mcp.call('document', { action: 'write', tabId, content: '# Notes\n\nfirst\n' }))
    ok(await mcp.call('document', { action: 'write', tabId, content: '# Notes\n\nsecond\n', save: false }))
    ok(await mcp.call('workspace', { action: 'save', tabId }))
    // The assistant saves it elsewhere (the person approves), writes on, and the person renames the new file.
    ok(await saveAsApproved(mcp, tabId, final))
    expect((await read(mcp, tabId)).filePath).toBe(final)
    ok(await mcp.call('document', { action: 'write', tabId, content: '# Notes\n\nfinal\n' }))
    await consoleApi(daemon, '/files/rename', { from: final, to: archive })
    expect((await read(mcp, tabId)).filePath).toBe(archive)
    const text = '# Notes\n\nfinal\n'

    const now = await history(home, archive)
    expect(now.head).toBe(`history of ${docId}`)
    // Every save of the document, wherever its file was: opened and saved as notes.md, saved as notes-final.md, and
    // its file renamed to notes-archive.md.
    const pathsOf = (entries: string[]) => entries.map((line) => line.slice(line.lastIndexOf(' ') + 1))
    expect(new Set(pathsOf(now.entries))).toEqual(new Set([notes, final, archive]))
    expect(now.entries.length).toBeGreaterThanOrEqual(5)

    const through = async (label: string) => {
      for (const [target, cwd, was] of [['notes.md', ws, notes], [notes, undefined, notes], [final, undefined, final]] as const) {
        const old = await history(home, target, cwd)
        expect({ label, target, head: old.head }).toEqual({ label, target, head: `history of ${docId} (moved: its file was ${was}, it is now ${archive})` })
        expect({ label, target, entries: old.entries }).toEqual({ label, target, entries: now.entries })
        expect({ label, target, replayed: await replay(home, target, cwd) }).toEqual({ label, target, replayed: text })
      }
      expect(await history(home, docId)).toEqual(now)
      expect(await history(home, 'notes-archive.md', ws)).toEqual(now)
    }
    // Through the daemon that owns the data directory, then on the directory itself.
    await through('daemon')
    await stopped(session)
    await through('directory')

    // The old file is still on disk (save_as leaves it): opened again, it is a new document, and its path names
    // that one, which has a history of its own.
    session = await started(home, ws)
    const again = ok(await session.mcp.call('workspace', { action: 'open', filePath: notes })).tabId as string
    const newer = await docIdOf(session.daemon, again)
    expect(newer).not.toBe(docId)
    const reopened = await history(home, notes)
    expect(reopened.head).toBe(`history of ${newer}`)
    expect(new Set(pathsOf(reopened.entries))).toEqual(new Set([notes]))
    expect(await replay(home, notes)).toBe('# Notes\n\nsecond\n')

    // Once that one leaves the path too, two documents had it: the path names neither, and the answer says where
    // each is now.
    const second = join(ws, 'notes-second.md')
    ok(await saveAsApproved(session.mcp, again, second))
    const ambiguous = await runCli(['history', notes], { home })
    expect({ code: ambiguous.code, stdout: ambiguous.stdout }).toEqual({ code: 1, stdout: '' })
    expect(ambiguous.stderr).toContain(`${notes} was the file of 2 documents`)
    expect(ambiguous.stderr).toContain(`${docId} (now ${archive})`)
    expect(ambiguous.stderr).toContain(`${newer} (now ${second})`)
    const missing = await runCli(['history', join(ws, 'never.md')], { home })
    expect({ code: missing.code, stderr: missing.stderr }).toEqual({ code: 1, stderr: `quire: no document has the id or path ${join(ws, 'never.md')}\n` })
  }, 120_000)
})
