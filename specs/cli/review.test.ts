import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { runCli, type CliResult } from '../support/cli.js'
import { envelope, folder, ok as toolOk, put, read, removeAll } from '../support/conformance.js'
import { launchDaemon, type Daemon, type Session } from '../support/mcpHarness.js'
import { useTempHomes } from '../support/tempHome.js'

/**
 * `quire review mark PATH_OR_ID`: the console's "Mark all reviewed" (DOC.WRITE.18) from a shell. It reviews every AI
 * change up to the document's current revision, so a full backlog lets assistants write again.
 */

const LIMIT = 3
const newHome = useTempHomes()
const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

function ok(result: CliResult): string {
  expect({ code: result.code, stderr: result.stderr, timedOut: result.timedOut }).toEqual({ code: 0, stderr: '', timedOut: false })
  return result.stdout
}

async function daemonSession(home: string, ws: string): Promise<{ daemon: Daemon; mcp: Session }> {
  const daemon = await launchDaemon({ home, workspaces: [ws] })
  const mcp = await daemon.connect()
  cleanups.push(async () => {
    await mcp.close()
    await daemon.stop()
  })
  return { daemon, mcp }
}

async function stop(session: { daemon: Daemon; mcp: Session }): Promise<void> {
  await session.mcp.close()
  await session.daemon.stop()
}

const reviewMarks = async (home: string): Promise<{ type: string; actor: { kind: string }; data: { upToPosition?: number } }[]> =>
  ok(await runCli(['log', '--json'], { home }))
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as { type: string; actor: { kind: string }; data: { upToPosition?: number } })
    .filter((event) => event.type === 'review.marked')

describe('quire review mark', () => {
  it('without a daemon, then through one: marks the document reviewed up to its current revision, emptying a full backlog', async () => {
    const home = await newHome()
    const ws = await folder('cli-review')
    cleanups.push(() => removeAll(ws))
    const path = join(ws, 'busy.md')
    await put(path, 'start\n')
    ok(await runCli(['settings', 'set', 'reviewBacklogLimit', String(LIMIT)], { home }))

    // An assistant fills the backlog; then the daemon stops and the CLI opens the directory itself.
    let session = await daemonSession(home, ws)
    let tabId = toolOk(await session.mcp.call('workspace', { action: 'open', filePath: path })).tabId as string
    for (let i = 1; i <= LIMIT; i++) toolOk(await session.mcp.call('document', { action: 'write', tabId, content: `start\n${i}\n` }))
    envelope(await session.mcp.call('document', { action: 'write', tabId, content: 'one too many\n' }), 'REVIEW_BACKLOG_FULL')
    const { revision } = await read(session.mcp, tabId)
    await stop(session)
    cleanups.pop()

    const marked = ok(await runCli(['review', 'mark', 'busy.md'], { home, cwd: ws }))
    expect(marked).toMatch(new RegExp(`^d-[0-9a-z]+: reviewed up to ${revision} \\(${LIMIT} AI changes marked reviewed\\)\\n$`))
    expect(ok(await runCli(['review', 'mark', path], { home }))).toMatch(/reviewed up to .* \(nothing was unreviewed\)\n$/)
    // One mark, by the person; the second found nothing new and recorded nothing.
    const [first, ...none] = await reviewMarks(home)
    expect({ actor: first?.actor.kind, none }).toEqual({ actor: 'user', none: [] })

    // The backlog is empty: the assistant writes again, fills it again, and the mark now goes through the daemon.
    session = await daemonSession(home, ws)
    tabId = toolOk(await session.mcp.call('workspace', { action: 'open', filePath: path })).tabId as string
    for (let i = 1; i <= LIMIT; i++) toolOk(await session.mcp.call('document', { action: 'write', tabId, content: `again\n${i}\n` }))
    envelope(await session.mcp.call('document', { action: 'write', tabId, content: 'one too many\n' }), 'REVIEW_BACKLOG_FULL')
    const second = (await read(session.mcp, tabId)).revision
    expect(ok(await runCli(['review', 'mark', path], { home }))).toMatch(new RegExp(`reviewed up to ${second} \\(${LIMIT} AI changes marked reviewed\\)\\n$`))
    toolOk(await session.mcp.call('document', { action: 'write', tabId, content: 'reviewed, then written\n' }))
    expect((await read(session.mcp, tabId)).content).toBe('reviewed, then written\n')
    const marks = await reviewMarks(home)
    expect(marks.map((event) => event.actor.kind)).toEqual(['user', 'user'])
    expect(marks[1]!.data.upToPosition!).toBeGreaterThan(marks[0]!.data.upToPosition!)
  })

  it('names an unknown document (status 1) and shows the usage for a malformed call (status 2)', async () => {
    const home = await newHome()
    const unknown = await runCli(['review', 'mark', 'd-nothere'], { home })
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toMatch(/^quire: .*d-nothere/)
    for (const args of [['review'], ['review', 'mark'], ['review', 'approve', 'x.md'], ['review', 'mark', 'a', 'b']]) {
      const usage = await runCli(args, { home })
      expect(usage.code).toBe(2)
      expect(usage.stderr).toContain('review mark PATH_OR_ID')
    }
  })
})
