/**
 * Reviewing AI changes as a person does (DESIGN §11, docs/tools.md "Reviewing AI changes"), end to end: a real
 * daemon, an assistant on the real MCP SDK client with its own token, the person typing through a stock y-websocket
 * peer, and the `quire review` commands. The assistant makes three changes; the person types inside change 2's
 * insertion, before it and after it; undoing change 2 removes its insertion but the person's characters and puts its
 * deletion back, leaving changes 1 and 3 and all the typing, in every peer and after a restart; redo brings it back;
 * one hunk alone; one assistant's session.
 */
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../support/cli.js'
import { peer, until, type Peer } from '../support/collabPeers.js'
import { launchDaemon, tempDir, type Daemon, type Session } from '../support/mcpHarness.js'
import { ok, removeAll } from '../support/conformance.js'

describe('quire review with a daemon, an assistant and a person typing', () => {
  let folder: string
  let home: string
  let daemon: Daemon
  let claude: Session
  let codex: Session
  const tokens = new Map<string, string>()
  const peers: Peer[] = []

  beforeAll(async () => {
    folder = await tempDir('quire-review-changes-')
    home = await tempDir('quire-review-home-')
    daemon = await launchDaemon({ home, workspaces: [folder] })
    tokens.set('claude', await tokenFor('claude'))
    tokens.set('codex', await tokenFor('codex'))
    claude = await daemon.connect(tokens.get('claude'))
    codex = await daemon.connect(tokens.get('codex'))
  })
  afterAll(async () => {
    for (const p of peers.splice(0)) p.destroy()
    await claude?.close()
    await codex?.close()
    await daemon?.stop()
    await removeAll(folder)
    await removeAll(home)
  })

  async function tokenFor(name: string): Promise<string> {
    const added = await runCli(['agent', 'add', name], { home })
    expect(added.code, added.stderr).toBe(0)
    return added.stdout.trim().split('\n').at(-1)!.trim()
  }

  async function review(...args: string[]): Promise<string> {
    const result = await runCli(['review', ...args], { home, cwd: folder })
    expect(result.code, result.stdout + result.stderr).toBe(0)
    return result.stdout
  }

  async function listed(file: string, ...flags: string[]): Promise<{ id: string; agent: string; state: string; hunks: { index: number; state: string; inserted: string; deleted: string }[] }[]> {
    return (await review('list', file, '--json', ...flags)).trim().split('\n').filter(Boolean).map((line) => JSON.parse(line))
  }

  async function openAndType(name: string, text: string): Promise<{ tabId: string; typist: Peer; docId: string }> {
    await writeFile(join(folder, name), text)
    const tabId = ok(await claude.call('workspace', { action: 'open', filePath: join(folder, name) })).tabId as string
    const docId = (await daemonDocId(tabId))!
    const typist = peer(daemon.port, docId, { token: daemon.token })
    peers.push(typist)
    await typist.synced()
    return { tabId, typist, docId }
  }

  async function daemonDocId(tabId: string): Promise<string | undefined> {
    const listing = (await (await fetch(`${daemon.url}/collab?token=${daemon.token}`)).json()) as { windows: { tabs: { tabId: string; docId: string }[] }[] }
    return listing.windows.flatMap((window) => window.tabs).find((tab) => tab.tabId === tabId)?.docId
  }

  const read = async (session: Session, tabId: string) => ok(await session.call('document', { action: 'read', tabId })).content as string
  const write = async (session: Session, tabId: string, content: string) => ok(await session.call('document', { action: 'write', tabId, content, save: false }))

  it('undo of change 2 keeps changes 1 and 3 and everything the person typed, in every peer and after a restart; redo brings it back', async () => {
    const { tabId, typist } = await openAndType('story.md', 'Title\n\nFirst paragraph.\n\nSecond paragraph.\n\nThird paragraph.\n')
    await read(claude, tabId)
    await write(claude, tabId, 'Title\n\nFirst paragraph, improved.\n\nSecond paragraph.\n\nThird paragraph.\n')
    await write(claude, tabId, 'Title\n\nFirst paragraph, improved.\n\nThe assistant rewrote the second.\n\nThird paragraph.\n')
    await write(claude, tabId, 'Title\n\nFirst paragraph, improved.\n\nThe assistant rewrote the second.\n\nThird paragraph, tightened.\n')
    const changes = await listed('story.md')
    expect(changes.map((change) => [change.agent, change.state])).toEqual([['claude', 'pending'], ['claude', 'pending'], ['claude', 'pending']])

    // The person types inside change 2's insertion, before it and after it.
    const at = (needle: string) => typist.text.toString().indexOf(needle)
    typist.text.insert(at('rewrote'), 'boldly ')
    typist.text.insert(at('The assistant'), '> ')
    typist.text.insert(at('\n\nThird'), ' (see below)')
    const typed = 'Title\n\nFirst paragraph, improved.\n\n> The assistant boldly rewrote the second. (see below)\n\nThird paragraph, tightened.\n'
    await until('the typing to reach the daemon', async () => (await read(codex, tabId)) === typed)

    const undone = await review('undo', 'story.md', changes[1]!.id)
    expect(undone).toMatch(new RegExp(`undid hunk.* of ${changes[1]!.id}; now rev-`))
    const after = await read(codex, tabId)
    expect(after).toContain('First paragraph, improved.')
    expect(after).toContain('Third paragraph, tightened.')
    // What the change deleted is back where its replacement stood: after what the person typed before it.
    expect(after).toContain('> Second paragraph')
    expect(after).not.toContain('The assistant')
    expect(after).not.toContain('rewrote')
    for (const kept of ['> ', 'boldly ', ' (see below)']) expect(after).toContain(kept)
    await until('the peer to follow the undo', () => typist.text.toString() === after)
    expect((await listed('story.md', '--all')).map((change) => change.state)).toEqual(['pending', 'undone', 'pending'])

    await daemon.stop()
    daemon = await launchDaemon({ home, workspaces: [folder] })
    claude = await daemon.connect(tokens.get('claude'))
    codex = await daemon.connect(tokens.get('codex'))
    expect(await read(claude, tabId)).toBe(after)
    expect((await listed('story.md', '--all')).map((change) => change.state)).toEqual(['pending', 'undone', 'pending'])

    expect(await review('redo', 'story.md', changes[1]!.id)).toMatch(/redid/)
    const redone = await read(claude, tabId)
    expect(redone).toContain('The assistant')
    expect(redone).toContain('rewrote the second.')
    expect(redone).not.toContain('Second paragraph.')
    for (const kept of ['> ', 'boldly ', ' (see below)']) expect(redone).toContain(kept)
  })

  it('undo of one hunk only; keep; and undo of one assistant\'s session leaves the other assistant\'s changes', async () => {
    const { tabId } = await openAndType('list.md', 'alpha\nbeta\ngamma\n')
    await read(claude, tabId)
    await write(claude, tabId, 'ALPHA\nbeta\nGAMMA\n')
    const [change] = await listed('list.md')
    expect(change!.hunks.map((hunk) => [hunk.deleted, hunk.inserted])).toEqual([['alpha', 'ALPHA'], ['gamma', 'GAMMA']])
    expect(await review('undo', 'list.md', change!.id, '--hunk', '1')).toMatch(/undid hunk 1/)
    expect(await read(claude, tabId)).toBe('ALPHA\nbeta\ngamma\n')
    expect(await review('keep', 'list.md', change!.id, '--hunk', '0')).toMatch(/kept hunk 0/)
    expect(await listed('list.md')).toEqual([])

    await read(codex, tabId)
    await write(codex, tabId, 'ALPHA\nbeta\ngamma\ndelta by codex\n')
    await read(claude, tabId)
    await write(claude, tabId, 'ALPHA\nbeta\ngamma\ndelta by codex\nepsilon\n')
    await write(claude, tabId, 'ALPHA\nbeta\ngamma\ndelta by codex\nepsilon\nzeta\n')
    const session = await review('undo', 'list.md', '--agent', 'claude', '--since', '1h')
    expect(session).toMatch(/undid 2 changes by claude/)
    expect(await read(codex, tabId)).toBe('ALPHA\nbeta\ngamma\ndelta by codex\n')
    const log = await runCli(['log', '--json'], { home })
    const types = log.stdout.trim().split('\n').map((line) => (JSON.parse(line) as { type: string }).type)
    expect(types.filter((type) => type === 'review.undone')).toHaveLength(4)
    expect(types).toContain('review.kept')
  })
})
