import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ConsoleError } from '../../adapters/http/consoleApi.js'
import type { CoherenceBreakdown, CoherenceGranted, CoherenceGrants, CoherenceResolved, CoherenceWorkspaces } from '../../adapters/http/consoleCoherenceApi.js'
import { startHttpServer, type HttpServer } from '../../adapters/http/daemon.js'
import { personName } from '../../adapters/host/personName.js'
import { USER } from '../../core/events/actor.js'
import { newUuidV7 } from '../../core/coherence/uuid.js'
import { openWorkspaceAsPerson } from '../../core/workspace/commands.js'
import { folder, inProcess, open, PERSON, read, removeAll, write } from '../support/conformance.js'

/**
 * The Coherence panel's routes (`/console/api/coherence/*`, adapters/http/consoleCoherence.ts) over real HTTP to a
 * daemon in this process: the breakdown of a workspace where ch3.md and ch4.md were made from elena.md before it
 * changed, the person's accept-newer and waive, grants (7 days by default, never forever) with their audit, revoke,
 * and refusals as JSON errors that append nothing.
 */
describe('console coherence routes (in-process daemon, real HTTP)', () => {
  let root: string
  let session: Awaited<ReturnType<typeof inProcess>>
  let server: HttpServer

  const call = async <T>(method: 'GET' | 'POST', path: string, body?: unknown, status = 200): Promise<T> => {
    const response = await fetch(`${server.url}/console/api/coherence${path}`, {
      method,
      headers: { authorization: `Bearer ${server.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    })
    const answer = (await response.json()) as T
    expect(response.status, JSON.stringify(answer)).toBe(status)
    return answer
  }
  /** Every ledger line of the workspace, to show that a refusal appended none. */
  const ledgerText = async () => {
    const segments = join(root, '.vmark', 'ledger')
    return (await Promise.all((await readdir(segments)).sort().map((name) => readFile(join(segments, name), 'utf8')))).join('')
  }
  const refused = async (method: 'GET' | 'POST', path: string, body: unknown, status: number, error: string): Promise<ConsoleError> => {
    const before = await ledgerText()
    const head = session.quire.services.engine.store.headPosition
    const answer = await call<ConsoleError>(method, path, body, status)
    expect(answer.error).toBe(error)
    expect(typeof answer.message).toBe('string')
    expect(await ledgerText()).toBe(before)
    expect(session.quire.services.engine.store.headPosition).toBe(head)
    return answer
  }

  beforeAll(async () => {
    root = await folder('console-coherence', { 'elena.md': '# Elena\n\nShe is brave.\n', 'ch3.md': '# Chapter 3\n', 'ch4.md': '# Chapter 4\n' })
    session = await inProcess([root], { principal: 'claude', watchDisk: false })
    const { services } = session.quire
    await services.settings.set('trackProvenance', true, USER)
    await services.agents.add('claude', USER)
    const elena = await open(session, join(root, 'elena.md'))
    await services.files.save(elena, PERSON)
    for (const [chapter, text] of [['ch3.md', '# Chapter 3\n\nElena fights.\n'], ['ch4.md', '# Chapter 4\n\nElena crosses the river.\n']] as const) {
      await read(session, elena)
      await write(session, await open(session, join(root, chapter)), text)
    }
    await writeFile(join(root, 'elena.md'), `${await readFile(join(root, 'elena.md'), 'utf8')}\nShe is afraid of water.\n`)
    server = await startHttpServer(services)
  })
  afterAll(async () => {
    await server?.close()
    await session?.close()
    await removeAll(root)
  })

  it('lists the open workspace with its ledger status, the setting, and the person grants are recorded under', async () => {
    const answer = await call<CoherenceWorkspaces>('GET', '/workspaces')
    expect(answer.workspaces.map((workspace) => workspace.root)).toEqual([root])
    expect(answer.workspaces[0]!.status).toMatchObject({ initialized: true, objects: 3, quarantined: 0 })
    expect(answer.trackProvenance).toBe(true)
    expect(answer.person).toBe(await personName(root))
  })

  it('the breakdown (the only workspace when none is named): both chapters stale from elena.md, with paths and revisions', async () => {
    const breakdown = await call<CoherenceBreakdown>('GET', '/breakdown')
    expect(breakdown.root).toBe(root)
    expect(breakdown.status.open_items).toBe(2)
    expect(breakdown.contexts.map((context) => [context.name, context.degraded])).toEqual([['default', false]])
    const rows = breakdown.contexts[0]!.rows
    expect(rows.map((row) => [row.state, row.downstreamPath, row.upstreamPath, row.role, row.downstreamFile])).toEqual([
      ['version-stale', 'ch3.md', 'elena.md', 'direct', join(root, 'ch3.md')],
      ['version-stale', 'ch4.md', 'elena.md', 'direct', join(root, 'ch4.md')],
    ])
    for (const row of rows) {
      expect(row.pinned).toMatch(/^rev1:/)
      expect(row.selected).toMatch(/^rev1:/)
      expect(row.selected).not.toBe(row.pinned)
    }
    expect(await call<CoherenceBreakdown>('GET', `/breakdown?root=${encodeURIComponent(root)}`)).toEqual(breakdown)
  })

  it('lists every context the workspace defines after the default one, each judged on its own selections', async () => {
    const [ch3] = (await call<CoherenceBreakdown>('GET', '/breakdown')).contexts[0]!.rows
    const contexts = join(root, '.vmark', 'contexts')
    await mkdir(contexts, { recursive: true })
    // "first draft" pins elena.md at the revision the chapters were made from: nothing is stale there.
    const draft = newUuidV7()
    const later = newUuidV7()
    await writeFile(join(contexts, 'draft.json'), JSON.stringify({ format: 0, id: draft, name: 'first draft', selections: { [ch3!.upstream]: ch3!.pinned } }))
    await writeFile(join(contexts, 'later.json'), JSON.stringify({ format: 0, id: later, name: 'later', parent: draft, selections: { [ch3!.upstream]: 'live' } }))
    try {
      const breakdown = await call<CoherenceBreakdown>('GET', '/breakdown')
      expect(breakdown.contexts.map((context) => [context.id, context.name, context.rows.map((row) => row.downstreamPath)])).toEqual([
        [breakdown.contexts[0]!.id, 'default', ['ch3.md', 'ch4.md']],
        [draft, 'first draft', []],
        [later, 'later', ['ch3.md', 'ch4.md']],
      ])
      // Resolutions are the default context's: the status counts its items only.
      expect(breakdown.status.open_items).toBe(2)
    } finally {
      await rm(contexts, { recursive: true })
    }
  })

  it('refuses a grant that is not one: forever, no scope, an unknown field, a bad body, an agent without a token — appending nothing', async () => {
    await refused('POST', '/grants', { delegate: 'claude', scope: ['waive'], days: 365 }, 400, 'INVALID_ARGUMENT')
    await refused('POST', '/grants', { delegate: 'claude', scope: [], days: 7 }, 400, 'INVALID_ARGUMENT')
    await refused('POST', '/grants', { delegate: 'claude', scope: ['waive'], days: 7, expires: '2999-01-01T00:00:00Z' }, 400, 'INVALID_ARGUMENT')
    await refused('POST', '/grants', '{"delegate":', 400, 'INVALID_ARGUMENT')
    await refused('POST', '/grants', { delegate: '   ', scope: ['waive'], days: 7 }, 400, 'INVALID_ARGUMENT')
    const unknown = await refused('POST', '/grants', { delegate: 'claud', scope: ['waive'], days: 7 }, 400, 'INVALID_ARGUMENT')
    expect(unknown.message).toBe('no agent named "claud" has a live token (see `quire agent list`; add one with `quire agent add NAME`)')
  })

  it('grants claude for 7 days; the agent’s resolution under it is in the grant’s audit', async () => {
    const now = session.quire.services.engine.now()
    const granted = await call<CoherenceGranted>('POST', '/grants', { delegate: 'claude', scope: ['accept-newer'], days: 7 })
    const grant = granted.grants.grants.find((each) => each.delegation === granted.delegation)!
    expect(grant).toMatchObject({ delegate: 'claude', scope: ['accept-newer'], standing: 'live', grantedBy: await personName(root), conflicts: 0, authorized: [] })
    expect(Date.parse(grant.expires) - now).toBeGreaterThanOrEqual(7 * 86_400_000 - 1_000)
    expect(Date.parse(grant.expires) - now).toBeLessThanOrEqual(7 * 86_400_000 + 1_000)
    expect(granted.grants.agents).toEqual(['claude'])

    const ch4 = (await call<CoherenceBreakdown>('GET', '/breakdown')).contexts[0]!.rows.find((row) => row.downstreamPath === 'ch4.md')!
    const receipt = await session.quire.services.coherence.resolve(root, { txf: ch4.txf, input: ch4.input, resolution: 'accept-newer' }, { kind: 'agent', principal: 'claude' }, { kind: 'mcp', principal: 'claude', connection: 'inproc-1' })
    const audit = (await call<CoherenceGrants>('GET', '/grants')).grants[0]!.authorized
    expect(audit).toEqual([{ entryId: receipt.entryId, kind: 'ratification', time: expect.any(String), actor: 'claude', txf: ch4.txf, input: ch4.input, resolvedAgainst: receipt.resolvedAgainst, reason: null }])
    expect((await call<CoherenceBreakdown>('GET', '/breakdown')).contexts[0]!.rows.map((row) => row.downstreamPath)).toEqual(['ch3.md'])
  })

  it('the person waives only with a reason, and accepts newer after; an edge that is not live is refused', async () => {
    const [ch3] = (await call<CoherenceBreakdown>('GET', '/breakdown')).contexts[0]!.rows
    const refusal = await refused('POST', '/resolve', { txf: ch3!.txf, input: ch3!.input, resolution: 'waive' }, 400, 'INVALID_ARGUMENT')
    expect(refusal.message).toMatch(/reason/)
    await refused('POST', '/resolve', { txf: ch3!.txf, input: ch3!.input, resolution: 'ignore' }, 400, 'INVALID_ARGUMENT')
    await refused('POST', '/resolve', { txf: '01900000-0000-7000-8000-000000000000', input: 0, resolution: 'accept-newer' }, 409, 'EDGE_NOT_LIVE')

    const waived = await call<CoherenceResolved>('POST', '/resolve', { txf: ch3!.txf, input: ch3!.input, resolution: 'waive', reason: 'set before she fears water' })
    expect(waived.receipt.kind).toBe('waiver')
    expect(waived.breakdown.contexts[0]!.rows.map((row) => row.state)).toEqual(['waived'])
    const line = (await ledgerText()).split('\n').find((each) => each.includes(waived.receipt.entryId))!
    expect(JSON.parse(line)).toMatchObject({ kind: 'waiver', body: { reason: 'set before she fears water', actor: { type: 'human', id: await personName(root) } } })

    const accepted = await call<CoherenceResolved>('POST', '/resolve', { root, txf: ch3!.txf, input: ch3!.input, resolution: 'accept-newer' })
    expect(accepted.receipt.kind).toBe('ratification')
    expect(accepted.breakdown.contexts[0]!.rows).toEqual([])
    // The person's resolutions are not the grant's: its audit still lists only claude's.
    expect((await call<CoherenceGrants>('GET', '/grants')).grants[0]!.authorized).toHaveLength(1)
  })

  it('revokes a grant once: it stays listed as revoked; revoking again or an unknown grant is refused', async () => {
    const [grant] = (await call<CoherenceGrants>('GET', '/grants')).grants
    const after = await call<CoherenceGrants>('POST', `/grants/${grant!.delegation}/revoke`)
    expect(after.grants.map((each) => [each.delegation, each.standing, each.scope])).toEqual([[grant!.delegation, 'revoked', []]])
    await refused('POST', `/grants/${grant!.delegation}/revoke`, {}, 409, 'DELEGATION_REVOKED')
    await refused('POST', '/grants/01900000-0000-7000-8000-000000000000/revoke', {}, 400, 'INVALID_ARGUMENT')
    await refused('POST', `/grants/${grant!.delegation}/revoke`, { root, extra: true }, 400, 'INVALID_ARGUMENT')
  })

  it('a root that is not an open workspace is refused in the core’s words; with two open, one must be named', async () => {
    const other = await folder('console-coherence-other')
    try {
      expect((await refused('GET', `/breakdown?root=${encodeURIComponent(other)}`, undefined, 400, 'NOT_A_WORKSPACE')).message).toBe(`workspace_root is not a workspace open in Quire: ${other} (open it with workspace.open_workspace first)`)
      await refused('GET', '/grants?root=relative/path', undefined, 400, 'INVALID_WORKSPACE_ROOT')
      await mkdir(join(other, 'sub'))
      const { engine } = session.quire.services
      await openWorkspaceAsPerson(engine.store, engine.views.workspace, other, USER)
      const answer = await refused('GET', '/breakdown', undefined, 400, 'INVALID_ARGUMENT')
      expect(answer.message).toContain('2 workspaces are open')
      expect((await call<CoherenceWorkspaces>('GET', '/workspaces')).workspaces.map((each) => [each.root, each.status.initialized])).toEqual([[root, true], [other, false]])
    } finally {
      await removeAll(other)
    }
  })

  it('an agent’s token never reaches these routes', async () => {
    const token = await session.quire.services.agents.add('intruder', USER)
    const response = await fetch(`${server.url}/console/api/coherence/grants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ delegate: 'intruder', scope: ['waive'], days: 30 }),
    })
    expect(response.status).toBe(401)
  })
})
