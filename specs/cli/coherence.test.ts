import { mkdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newUuidV7 } from '../../core/coherence/uuid.js'
import { folder, removeAll } from '../support/conformance.js'
import { runCli, type CliResult } from '../support/cli.js'
import { STORY_FILES, tellStaleStory } from '../support/coherenceStory.js'
import { launchDaemon, type Daemon } from '../support/mcpHarness.js'

/**
 * `quire coherence status | edges | grants | grant | revoke` (issue 14 item 7): the person's side of a workspace's
 * coherence ledger from a shell, against a real daemon (through `/admin/coherence/*`), and on the data directory
 * itself once the daemon is gone.
 */

function ok(result: CliResult): string[] {
  expect({ code: result.code, stderr: result.stderr, timedOut: result.timedOut }).toEqual({ code: 0, stderr: '', timedOut: false })
  return result.stdout.split('\n').filter((line) => line.length > 0)
}

describe('quire coherence against a running daemon', () => {
  let root: string
  let daemon: Daemon
  let token: string
  const coherence = (...args: string[]) => runCli(['coherence', ...args], { home: daemon.home, timeoutMs: 20_000 })

  beforeAll(async () => {
    root = await folder('quire-cli-coherence-', STORY_FILES)
    daemon = await launchDaemon({ workspaces: [root] })
    token = (await tellStaleStory(daemon, root)).token
  })
  afterAll(async () => {
    await daemon?.stop()
    await removeAll(root)
  })

  it('status names the only open workspace and its ledger; edges lists the stale edge from elena.md to ch3.md', async () => {
    const edges = ok(await coherence('edges'))
    expect(edges).toHaveLength(1)
    expect(edges[0]).toMatch(/^version-stale\s+ch3\.md {2}from elena\.md at rev1:\S+, now rev1:\S+ {2}\[[0-9a-f-]{36}#0\]$/)
    const status = ok(await coherence('status'))
    expect(status[0]).toBe(`workspace    ${root}`)
    expect(status[1]).toBe('ledger       .vmark/ (initialized)')
    expect(status).toContain('objects      2')
    expect(status).toContain('open items   1')
    expect(status).toContain('quarantined  0')
    // The workspace named explicitly, as the argument or with --root, is the same one.
    expect(ok(await coherence('status', root))).toEqual(status)
    expect(ok(await coherence('edges', '--root', root))).toEqual(edges)
  })

  it('edges lists the other contexts the workspace defines under their names, each with its own stale edges', async () => {
    const contexts = join(root, '.vmark', 'contexts')
    await mkdir(contexts, { recursive: true })
    await writeFile(join(contexts, 'draft.json'), JSON.stringify({ format: 0, id: newUuidV7(), name: 'draft', selections: {} }))
    try {
      const edges = ok(await coherence('edges'))
      expect(edges).toHaveLength(3)
      expect(edges[1]).toBe('context draft:')
      expect(edges[2]).toBe(`  ${edges[0]}`)
    } finally {
      await rm(contexts, { recursive: true })
    }
  })

  it('grant, grants (with the audit) and revoke: the grant always expires, the revoked one stays listed', async () => {
    const before = Date.now()
    const granted = ok(await coherence('grant', 'claude', '--scope', 'waive', '--days', '1'))
    expect(granted).toHaveLength(1)
    const match = /^([0-9a-f-]{36}): granted claude waive until (\S+)$/.exec(granted[0]!)
    expect(match, granted[0]).not.toBeNull()
    const [, delegation, expires] = match!
    const lifetime = Date.parse(expires!) - before
    expect(lifetime).toBeGreaterThan(23 * 3_600_000)
    expect(lifetime).toBeLessThanOrEqual(24 * 3_600_000 + 60_000)

    // claude waives the stale edge under the grant, over MCP: the audit lists it beneath the grant.
    const [, txf] = /\[([0-9a-f-]{36})#0\]$/.exec(ok(await coherence('edges'))[0]!)!
    const mcp = await daemon.connect(token)
    try {
      expect((await mcp.call('coherence_resolve', { action: 'resolve', workspace_root: root, txf, input: 0, resolution: 'waive', reason: 'fine as it is' })).isError).toBe(false)
    } finally {
      await mcp.close()
    }
    const listed = ok(await coherence('grants'))
    expect(listed).toHaveLength(2)
    expect(listed[0]).toMatch(new RegExp(`^${delegation} {2}live {5}claude {2}waive {2}expires ${expires!.replace(/[.+]/g, '\\$&')} {2}granted by \\S.* {2}authorized 1$`))
    expect(listed[1]).toMatch(new RegExp(`^ {4}\\S+ {2}waiver {8}by claude {2}\\[${txf}#0\\] against rev1:[0-9a-f]{64} {2}"fine as it is"$`))
    expect(ok(await coherence('edges'))[0]).toMatch(/^waived /)

    expect(ok(await coherence('revoke', delegation!))).toEqual([`${delegation}: revoked`])
    expect(ok(await coherence('grants', '--root', root))[0]).toMatch(new RegExp(`^${delegation} {2}revoked {2}claude {2}\\(none\\) `))
    // Revoking twice is refused with the core's words, and changes nothing.
    const again = await coherence('revoke', delegation!)
    expect(again.code).toBe(1)
    expect(again.stderr).toBe(`quire: delegation ${delegation} is already revoked\n`)
  })

  it('refuses what a grant may not be: forever, an unknown scope, no agent, an agent without a token; and a folder that is not an open workspace', async () => {
    for (const args of [['grant', 'claude', '--days', '365'], ['grant', 'claude', '--scope', 'everything'], ['grant']]) {
      const refused = await coherence(...args)
      expect(refused.code, args.join(' ')).toBe(2)
      expect(refused.stderr, args.join(' ')).toMatch(/^quire: (--days is 1, 7 or 30|--scope is accept-newer, waive or both|coherence grant AGENT)/)
    }
    const unknown = await coherence('grant', 'claud')
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toBe('quire: no agent named "claud" has a live token (see `quire agent list`; add one with `quire agent add NAME`)\n')
    const elsewhere = await folder('quire-cli-coherence-other-')
    try {
      const refused = await coherence('status', elsewhere)
      expect(refused.code).toBe(1)
      expect(refused.stderr).toBe(`quire: workspace_root is not a workspace open in Quire: ${elsewhere} (open it with workspace.open_workspace first)\n`)
    } finally {
      await removeAll(elsewhere)
    }
  })
})

describe('quire coherence with no daemon running', () => {
  it('works on the data directory itself: the workspace the daemon had open, its stale edge, a grant and its revocation', async () => {
    const root = await folder('quire-cli-coherence-local-', STORY_FILES)
    const daemon = await launchDaemon({ workspaces: [root] })
    const home = daemon.home
    try {
      await tellStaleStory(daemon, root)
      // Stopped, keeping its data directory: the CLI opens it itself.
      daemon.process.kill('SIGTERM')
      await new Promise((resolve) => daemon.process.once('exit', resolve))
      const coherence = (...args: string[]) => runCli(['coherence', ...args], { home, timeoutMs: 20_000 })
      expect(ok(await coherence('edges', root))[0]).toMatch(/^version-stale\s+ch3\.md {2}from elena\.md /)
      const [granted] = ok(await coherence('grant', 'claude', '--root', root))
      const delegation = /^([0-9a-f-]{36}): granted claude accept-newer, waive until /.exec(granted!)?.[1]
      expect(delegation, granted).toBeDefined()
      expect(ok(await coherence('grants', '--root', root))[0]).toMatch(new RegExp(`^${delegation} {2}live {5}claude {2}accept-newer,waive `))
      expect(ok(await coherence('revoke', delegation!, '--root', root))).toEqual([`${delegation}: revoked`])
    } finally {
      await daemon.stop()
      await removeAll(root, home)
    }
  })
})
