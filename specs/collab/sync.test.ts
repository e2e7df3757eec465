import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setTimeout as sleep } from 'node:timers/promises'
import { launchDaemon, type Daemon, type Session } from '../support/mcpHarness.js'
import { runCli } from '../support/cli.js'
import { docIdOfTab, listTabs, peer, until, type Peer } from '../support/collabPeers.js'
import * as prng from 'lib0/prng'

/**
 * The collaboration endpoint of a real daemon (`quire serve` in a child process) with stock y-websocket peers:
 * convergence, offline edits, MCP writes reaching peers, revisions advancing on keystrokes, and the log replaying
 * to what the peers hold.
 */

/** Deterministic edits, so a failure replays. */
const random = (seed: number): (() => number) => {
  const generator = prng.create(seed)
  return () => prng.real53(generator)
}

function randomEdit(target: Peer, next: () => number, tag: string): void {
  const length = target.text.length
  if (length > 0 && next() < 0.3) {
    const start = Math.floor(next() * length)
    target.text.delete(start, Math.min(length - start, 1 + Math.floor(next() * 4)))
  } else {
    target.text.insert(Math.floor(next() * (length + 1)), tag)
  }
}

describe('collaboration through a real daemon', () => {
  let daemon: Daemon
  let mcp: Session
  const peers: Peer[] = []

  beforeAll(async () => {
    daemon = await launchDaemon()
    mcp = await daemon.connect()
  })
  afterAll(async () => {
    for (const each of peers) each.destroy()
    await mcp?.close()
    await daemon?.stop()
  })

  async function newDocument(content: string): Promise<{ tabId: string; docId: string }> {
    const created = await mcp.call('workspace', { action: 'new' })
    const tabId = created.structured!.tabId as string
    if (content) {
      const written = await mcp.call('document', { action: 'write', tabId, content, save: false })
      expect(written.isError, written.text).toBe(false)
    }
    return { tabId, docId: await docIdOfTab(daemon.port, daemon.token, tabId) }
  }

  const read = async (tabId: string) => {
    const answer = await mcp.call('document', { action: 'read', tabId })
    return answer.structured as { content: string; revision: string }
  }

  const join = (docId: string, params: Record<string, string> = {}): Peer => {
    const joined = peer(daemon.port, docId, { token: daemon.token, params })
    peers.push(joined)
    return joined
  }

  it('lists windows and tabs with their document ids for the person only (GET /collab)', async () => {
    const { tabId, docId } = await newDocument('')
    const listing = await listTabs(daemon.port, daemon.token)
    expect(listing.windows.some((window) => window.tabs.some((tab) => tab.tabId === tabId && tab.docId === docId))).toBe(true)
    const anonymous = await fetch(`http://127.0.0.1:${daemon.port}/collab`)
    expect(anonymous.status).toBe(401)
    const plain = await fetch(`http://127.0.0.1:${daemon.port}/collab/${docId}?token=${daemon.token}`)
    expect(plain.status).toBe(426)
  })

  it('20 peers editing concurrently converge on what MCP reads and what `quire replay` rebuilds', async () => {
    const { tabId, docId } = await newDocument('# shared\n\n')
    const crowd = Array.from({ length: 20 }, (_, index) => join(docId, { name: `crowd${index}` }))
    await Promise.all(crowd.map((each) => each.synced()))
    for (const each of crowd) expect(each.text.toString()).toBe('# shared\n\n')
    await Promise.all(
      crowd.map(async (each, index) => {
        const next = random(index + 1)
        for (let round = 0; round < 15; round++) {
          randomEdit(each, next, String.fromCharCode(97 + index))
          await sleep(Math.floor(next() * 15))
        }
      }),
    )
    let content = ''
    await until('every peer and the daemon to agree', async () => {
      content = (await read(tabId)).content
      return crowd.every((each) => each.text.toString() === content)
    }, 30_000)
    expect(content.length).toBeGreaterThan(20)
    const replayed = await runCli(['replay', '--doc', docId], { home: daemon.home })
    expect(replayed.code, replayed.stderr).toBe(0)
    expect(replayed.stdout).toBe(content)
  })

  it("merges a peer's offline edits when it reconnects", async () => {
    const { tabId, docId } = await newDocument('one two three\n')
    const traveller = join(docId)
    const stayer = join(docId)
    await Promise.all([traveller.synced(), stayer.synced()])
    traveller.provider.disconnect()
    traveller.text.insert(0, 'OFFLINE ')
    stayer.text.insert(stayer.text.length, 'online\n')
    await until('the online edit to reach the daemon', async () => (await read(tabId)).content === 'one two three\nonline\n')
    expect(traveller.text.toString()).toBe('OFFLINE one two three\n')
    traveller.provider.connect()
    const merged = 'OFFLINE one two three\nonline\n'
    await until('both peers to merge', () => traveller.text.toString() === merged && stayer.text.toString() === merged)
    expect((await read(tabId)).content).toBe(merged)
  })

  it('an MCP write reaches connected peers, and keystrokes advance the revision MCP reports', async () => {
    const { tabId, docId } = await newDocument('draft\n')
    const watcher = join(docId)
    await watcher.synced()
    const before = await read(tabId)
    const written = await mcp.call('document', { action: 'write', tabId, content: 'draft\nfrom the assistant\n', expected_revision: before.revision, save: false })
    expect(written.isError, written.text).toBe(false)
    await until('the write to reach the peer', () => watcher.text.toString() === 'draft\nfrom the assistant\n')

    const afterWrite = await read(tabId)
    watcher.text.insert(0, 'x')
    await until('the keystroke to reach the daemon', async () => (await read(tabId)).content.startsWith('xdraft'))
    const afterKeystroke = await read(tabId)
    expect(afterKeystroke.revision).not.toBe(afterWrite.revision)
    const state = await mcp.call('session', { action: 'get_state' })
    expect(JSON.stringify(state.structured)).toContain(afterKeystroke.revision)
  })
})
