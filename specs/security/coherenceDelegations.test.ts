/**
 * Delegations are the person's alone (issue 25 item 1; TOOLS.md COHR.RESOLVE.3, COHR.RESOLVE.8): a hostile assistant
 * must not grant itself one by writing the coherence ledger, and a delegation line that merely appears in a segment
 * authorizes nothing. Told as the attack was: the assistant `mallory`, over the real MCP SDK client against a
 * `quire serve` daemon, tries to open and save into `.vmark/` (directly, through a link to a segment, through a link
 * to the folder, and with `save_as` to a new segment); then another program (a git pull, say) puts a grant for
 * mallory, expiring in 2099, into Quire's own segment and into a VMark writer's. Only a grant the person made in Quire
 * (an event of theirs in Quire's log) or one from a VMark writer the person chose to trust (`quire coherence trust`)
 * counts, and `quire verify` names the line in Quire's own segment that Quire never wrote, also after a restart.
 */
import { appendFile, readFile, symlink } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { composeEntry } from '../../core/coherence/compose.js'
import { newUuidV7 } from '../../core/coherence/uuid.js'
import { cli, envelope, files, folder, newTab, ok, plain, removeAll, tabsOf, write, type Json } from '../support/conformance.js'
import { STORY_FILES, tellStaleStory } from '../support/coherenceStory.js'
import { launchDaemon, tempDir, type Daemon, type Session } from '../support/mcpHarness.js'

/** A grant for mallory as another program would write it: the person's name on it, expiring in 2099. */
function forgedGrant(writer: string): { id: string; line: string } {
  const entry = composeEntry(
    'delegation',
    {
      delegation: newUuidV7(),
      actor: { type: 'human', id: 'Ana Person' },
      delegate: { type: 'external', id: 'mallory' },
      scope: ['resolve.accept-newer', 'resolve.waive'],
      expires: '2099-01-01T00:00:00.000Z',
      supersedes: null,
    },
    { writer },
  )
  return { id: entry.id, line: `${JSON.stringify(entry)}\n` }
}

describe('issue 25 item 1: an assistant cannot grant itself a coherence delegation', () => {
  let home: string
  let root: string
  let daemon: Daemon
  let mallory: Session
  let writer: string
  let segment: string
  let row: Json
  let token: string

  const resolve = () => mallory.call('coherence_resolve', { action: 'resolve', workspace_root: root, txf: row.txf, input: row.input, resolution: 'accept-newer' })

  beforeAll(async () => {
    home = await tempDir('quire-cohr-attack-')
    root = await folder('cohr-attack', STORY_FILES)
    daemon = await launchDaemon({ home, workspaces: [root] })
    ;({ token } = await tellStaleStory(daemon, root, ['ch3.md'], 'mallory'))
    mallory = await daemon.connect(token)
    writer = (await readFile(join(home, 'coherence-writer-id'), 'utf8')).trim()
    segment = join(root, '.vmark', 'ledger', `${writer}.jsonl`)
    ;[row] = JSON.parse((await mallory.call('coherence', { action: 'edges', workspace_root: root })).text)
    expect(row).toMatchObject({ downstream_path: 'ch3.md', state: 'version-stale' })
  })
  afterAll(async () => {
    await mallory?.close()
    await daemon?.stop()
    await removeAll(home, root)
  })

  it('COHR.RESOLVE.8 .vmark/ is outside every assistant\'s scope: open, a link to a segment, a linked folder, save_as a new segment', async () => {
    await symlink(segment, join(root, 'ledger-link.md'))
    await symlink(join(root, '.vmark'), join(root, 'meta'))
    const before = await files(join(root, '.vmark'))
    const tabsBefore = (await tabsOf(mallory)).length
    for (const filePath of [segment, join(root, 'ledger-link.md'), join(root, 'meta', 'ledger', `${writer}.jsonl`), join(root, '.vmark', '.gitignore')]) {
      const refusal = envelope(await mallory.call('workspace', { action: 'open', filePath }), 'INVALID_PATH')
      expect(refusal.message, filePath).toMatch(/coherence ledger/)
    }
    expect((await tabsOf(mallory)).length).toBe(tabsBefore)

    const tabId = await newTab(mallory)
    await write(mallory, tabId, forgedGrant(newUuidV7()).line)
    for (const filePath of [join(root, '.vmark', 'ledger', `${newUuidV7()}.jsonl`), join(root, 'meta', 'ledger', `${newUuidV7()}.jsonl`), join(root, '.vmark', 'contexts', 'default.json')]) {
      const refusal = envelope(await mallory.call('workspace', { action: 'save_as', tabId, filePath }), 'INVALID_PATH')
      expect(refusal.message, filePath).toMatch(/coherence ledger/)
    }
    expect(await files(join(root, '.vmark'))).toEqual(before)
    plain(await resolve(), /^no live delegation authorizes "mallory" for resolve\.accept-newer/)
  })

  it('COHR.RESOLVE.3 a grant that merely appears in a segment authorizes nothing; quire verify names the line in Quire\'s own segment', async () => {
    const ours = forgedGrant(writer)
    await appendFile(segment, ours.line)
    const vmark = newUuidV7()
    const theirs = forgedGrant(vmark)
    await appendFile(join(root, '.vmark', 'ledger', `${vmark}.jsonl`), theirs.line)

    plain(await resolve(), /^no live delegation authorizes "mallory" for resolve\.accept-newer/)
    const grants = await cli(home, 'coherence', 'grants')
    expect(grants.code, grants.stderr).toBe(0)
    expect(grants.stdout).not.toMatch(/mallory/)

    const verify = await cli(home, 'verify')
    expect(verify.code, verify.stdout).toBe(1)
    expect(verify.stdout).toMatch(new RegExp(`coherence problem: .*${writer}\\.jsonl.*${ours.id}.*not written by Quire`))
    expect(verify.stdout).not.toContain(theirs.id)

    // A restart must not take the stranger's line for one of Quire's own that a crash left unlogged.
    await mallory.close()
    await daemon.stop()
    daemon = await launchDaemon({ home, workspaces: [root] })
    mallory = await daemon.connect(token)
    // Its first use after the start, when a line a crash left unlogged would be logged as recovered.
    const used = await mallory.call('coherence', { action: 'edges', workspace_root: root })
    expect(used.isError, used.text).toBe(false)
    const again = await cli(home, 'verify')
    expect(again.code, again.stdout).toBe(1)
    expect(again.stdout).toContain(ours.id)
  })

  it('COHR.RESOLVE.3 the person chooses to trust a VMark writer (an event of theirs); its grants count from then on, and not after distrust', async () => {
    const vmark = newUuidV7()
    const grant = forgedGrant(vmark)
    await appendFile(join(root, '.vmark', 'ledger', `${vmark}.jsonl`), grant.line)
    const call = () => mallory.call('coherence_resolve', { action: 'resolve', workspace_root: root, txf: row.txf, input: row.input, resolution: 'waive', reason: 'trusted' })
    plain(await call(), /^no live delegation authorizes "mallory"/)
    expect((await cli(home, 'coherence', 'trust', writer)).code).toBe(2)
    expect((await cli(home, 'coherence', 'trust', 'not-a-writer')).code).toBe(2)
    const trusted = await cli(home, 'coherence', 'trust', vmark)
    expect(trusted.code, trusted.stderr).toBe(0)
    const log = await cli(home, 'log', '--stream', 'settings')
    expect(log.stdout).toMatch(new RegExp(`\\buser\\b.*setting\\.changed.*coherenceTrustedWriters = "${vmark}"`))
    const grants = await cli(home, 'coherence', 'grants')
    expect(grants.stdout).toMatch(/live\s+mallory\s+accept-newer,waive\s+expires 2099-01-01T00:00:00.000Z\s+granted by Ana Person/)
    const distrusted = await cli(home, 'coherence', 'distrust', vmark)
    expect(distrusted.code, distrusted.stderr).toBe(0)
    plain(await call(), /^no live delegation authorizes "mallory"/)
    expect((await cli(home, 'coherence', 'trust', vmark)).code).toBe(0)
    expect(ok(await call()).kind).toBe('waiver')
  })
})
