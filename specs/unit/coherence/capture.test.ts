import { readdir, readFile, writeFile } from 'node:fs/promises'
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { textContentHash } from '../../../core/coherence/hashing.js'
import { coherenceStream } from '../../../core/coherence/events.js'
import { USER } from '../../../core/events/actor.js'
import { folder, inProcess, ok, open, PERSON, read, write } from '../../support/conformance.js'

/**
 * Captures of saves (issue 14 items 2–3; spec §2.1, §5.4.1, §7, §8, §9.4), end to end through the MCP client for the
 * assistant and the core commands for the person, checked in the ledger files and in the log.
 */

type Entry = { id: string; kind: string; writer: string; body: Record<string, any> }

async function ledgerLines(root: string): Promise<string[]> {
  const folderPath = join(root, '.vmark/ledger')
  const names = (await readdir(folderPath)).filter((name) => name.endsWith('.jsonl')).sort()
  const lines: string[] = []
  for (const name of names) lines.push(...(await readFile(join(folderPath, name), 'utf8')).split('\n').filter((line) => line !== ''))
  return lines
}
const entries = async (root: string): Promise<Entry[]> => (await ledgerLines(root)).map((line) => JSON.parse(line) as Entry)
const transformations = async (root: string) => (await entries(root)).filter((entry) => entry.kind === 'transformation')

async function world(files: Record<string, string>, options: { track?: boolean } = {}) {
  const root = await folder('quire-capture-', files)
  const session = await inProcess([root], { principal: 'claude' })
  if (options.track ?? true) await session.quire.services.settings.set('trackProvenance', true, USER)
  return { root, session, services: session.quire.services }
}

describe('captures of saves', () => {
  const sessions: Array<{ close(): Promise<void> }> = []
  afterEach(async () => {
    for (const session of sessions.splice(0)) await session.close()
  })
  async function given(files: Record<string, string>, options: { track?: boolean } = {}) {
    const made = await world(files, options)
    sessions.push(made.session)
    return made
  }

  it('spec §2.1, §3.3: the first capture adds vmark.id to the frontmatter, every other byte as it was, the hash unchanged', async () => {
    const original = '---\ntitle: Elena   # the heroine\ntags: [a, b]\n---\n# Elena\n\nBrave.\n'
    const { root, session, services } = await given({ 'elena.md': original })
    const tab = await open(session, join(root, 'elena.md'))
    await services.files.save(tab, PERSON)
    const saved = await readFile(join(root, 'elena.md'), 'utf8')
    const id = /\n {2}id: ([0-9a-f-]{36})\n/.exec(saved)?.[1]
    expect(id).toBeDefined()
    expect(saved).toBe(`---\ntitle: Elena   # the heroine\ntags: [a, b]\nvmark:\n  id: ${id}\n---\n# Elena\n\nBrave.\n`)
    const [transformation] = await transformations(root)
    expect(transformation!.body.outputs[0].content_hash).toBe(textContentHash(original))
    expect(transformation!.body).toMatchObject({ inputs: [], agent: { type: 'human' }, confidence: 'exact' })
    // The document the person and peers see carries the id too, so the next save keeps it.
    expect((await read(session, tab)).content).toBe(saved)
    const registered = (await entries(root)).find((entry) => entry.kind === 'object-registered')
    expect(registered!.body).toEqual({ object: id, path: 'elena.md' })
  })

  it('with trackProvenance off (the default) a save writes no identity and no .vmark/', async () => {
    const { root, session, services } = await given({ 'elena.md': '# Elena\n' }, { track: false })
    await services.files.save(await open(session, join(root, 'elena.md')), PERSON)
    expect(await readFile(join(root, 'elena.md'), 'utf8')).toBe('# Elena\n')
    await expect(readdir(join(root, '.vmark'))).rejects.toThrow(/ENOENT/)
  })

  it('a save that changed nothing since the last capture mints no revision', async () => {
    const { root, session, services } = await given({ 'elena.md': '# Elena\n' })
    const tab = await open(session, join(root, 'elena.md'))
    await services.files.save(tab, PERSON)
    await services.files.save(tab, PERSON)
    expect(await transformations(root)).toHaveLength(1)
  })

  it('spec §7 example 2, §8: an assistant write after reads is inferred, its reads since the last write the inputs (direct whole, contextual part)', async () => {
    const { root, session, services } = await given({ 'elena.md': '# Elena\n', 'world.md': '# World rules\n\nNo magic.\n', 'ch3.md': '# Chapter 3\n' })
    const elena = await open(session, join(root, 'elena.md'))
    const rules = await open(session, join(root, 'world.md'))
    await services.files.save(elena, PERSON)
    await services.files.save(rules, PERSON)
    await read(session, elena)
    ok(await session.call('document', { action: 'read', tabId: rules, offset: 0, length: 5 }))
    const ch3 = await open(session, join(root, 'ch3.md'))
    const written = await write(session, ch3, '# Chapter 3\n\nElena fights.\n')
    // The save gave the file its identity: the revision answered is the one to write from next (no STALE).
    expect(written.revision).toBe((await read(session, ch3)).revision)
    ok(await session.call('document', { action: 'write', tabId: ch3, content: (await read(session, ch3)).content + 'More.\n', expected_revision: written.revision }))
    const [, , first, second] = await transformations(root)
    const ids = Object.fromEntries((await entries(root)).filter((entry) => entry.kind === 'object-registered').map((entry) => [entry.body.path, entry.body.object]))
    expect(first!.body).toMatchObject({
      agent: { type: 'model', id: 'claude' },
      intent: { kind: 'mcp-document-write', summary: 'document.write' },
      confidence: 'inferred',
      inputs: [
        { object: ids['elena.md'], role: 'direct' },
        { object: ids['world.md'], role: 'contextual' },
      ],
    })
    // The reads were the first write's: the second saw no read since.
    expect(second!.body.inputs).toEqual([])
    expect(second!.body.outputs[0].parents).toEqual([first!.body.outputs[0].revision])
  })

  it('the input pinned is the revision the assistant read, not the head at write time', async () => {
    const { root, session, services } = await given({ 'elena.md': '# Elena\n', 'ch3.md': '# Chapter 3\n' })
    const elena = await open(session, join(root, 'elena.md'))
    await services.files.save(elena, PERSON)
    await read(session, elena)
    await services.files.write(elena, (await read(session, elena)).content + 'Afraid of water.\n', undefined, true, PERSON)
    await write(session, await open(session, join(root, 'ch3.md')), '# Chapter 3\n\nElena swims.\n')
    const [e0, , txf] = await transformations(root)
    expect(txf!.body.inputs).toEqual([{ object: e0!.body.outputs[0].object, revision: e0!.body.outputs[0].revision, role: 'direct' }])
    expect((await services.coherence.edges(root, USER)).map((edge) => edge.state)).toEqual(['version-stale'])
  })

  it('spec §9.4: a change another program makes to a tracked open file is observed-external: unknown confidence, no inputs', async () => {
    const { root, session, services } = await given({ 'elena.md': '# Elena\n' })
    const tab = await open(session, join(root, 'elena.md'))
    await services.files.save(tab, PERSON)
    const changed = (await readFile(join(root, 'elena.md'), 'utf8')) + 'Edited elsewhere.\n'
    await writeFile(join(root, 'elena.md'), changed)
    expect(await services.files.observeDiskChange(join(root, 'elena.md'), changed, createHash('sha256').update(changed).digest('hex'))).toBe('reloaded')
    const [first, second] = await transformations(root)
    expect(second!.body).toMatchObject({ inputs: [], agent: { type: 'external' }, confidence: 'unknown' })
    expect(second!.body.outputs[0].parents).toEqual([first!.body.outputs[0].revision])
  })

  it('spec §2.1: a frontmatter without its closing fence is not captured; a diagnostic says why', async () => {
    const { root, session, services } = await given({ 'broken.md': '---\ntitle: no end\n# Broken\n' })
    await services.files.save(await open(session, join(root, 'broken.md')), PERSON)
    expect(await readFile(join(root, 'broken.md'), 'utf8')).toBe('---\ntitle: no end\n# Broken\n')
    const all = await entries(root)
    expect(all.filter((entry) => entry.kind === 'transformation')).toEqual([])
    expect(all.find((entry) => entry.kind === 'diagnostic')!.body).toMatchObject({ code: 'capture-no-identity', path: 'broken.md' })
  })

  it('every ledger line we append is also a coherence.appended event on the workspace stream, byte for byte', async () => {
    const { root, session, services } = await given({ 'elena.md': '# Elena\n', 'ch3.md': '# Chapter 3\n' })
    await services.files.save(await open(session, join(root, 'elena.md')), PERSON)
    await services.files.save(await open(session, join(root, 'ch3.md')), PERSON)
    const logged: string[] = []
    for await (const event of services.engine.store.readStream(coherenceStream(root))) logged.push(...(event.data as { lines: string[] }).lines)
    expect(logged).toEqual(await ledgerLines(root))
    expect(logged).toHaveLength(4)
  })
})

describe('spec §9.4 adoption of an assistant\'s inputs', () => {
  it('a file the assistant read that was never captured is adopted (identity, observed-external root), so the edge exists', async () => {
    const root = await folder('quire-adopt-', { 'elena.md': '# Elena\n', 'ch3.md': '# Chapter 3\n' })
    const session = await inProcess([root], { principal: 'claude' })
    try {
      await session.quire.services.settings.set('trackProvenance', true, USER)
      const elena = await open(session, join(root, 'elena.md'))
      await read(session, elena)
      await write(session, await open(session, join(root, 'ch3.md')), '# Chapter 3\n\nElena fights.\n')
      expect(await readFile(join(root, 'elena.md'), 'utf8')).toMatch(/^---\nvmark:\n {2}id: [0-9a-f-]{36}\n---\n# Elena\n$/)
      const [adopted, written] = await transformations(root)
      expect(adopted!.body).toMatchObject({ inputs: [], agent: { type: 'external' }, confidence: 'unknown' })
      expect(written!.body.inputs).toEqual([{ object: adopted!.body.outputs[0].object, revision: adopted!.body.outputs[0].revision, role: 'direct' }])
    } finally {
      await session.close()
    }
  })

  it('a read document with unsaved changes is not adopted (that would save the person\'s unfinished edit): it is left out', async () => {
    const root = await folder('quire-adopt-', { 'elena.md': '# Elena\n', 'ch3.md': '# Chapter 3\n' })
    const session = await inProcess([root], { principal: 'claude' })
    try {
      const services = session.quire.services
      await services.settings.set('trackProvenance', true, USER)
      const elena = await open(session, join(root, 'elena.md'))
      await services.documents.write({ docId: (await services.engine.views.workspace.state.tabs.get(elena))!.docId, content: '# Elena\n\nUnsaved.\n', actor: USER })
      await read(session, elena)
      await write(session, await open(session, join(root, 'ch3.md')), '# Chapter 3\n\nElena fights.\n')
      expect(await readFile(join(root, 'elena.md'), 'utf8')).toBe('# Elena\n')
      const [written] = await transformations(root)
      expect(written!.body.inputs).toEqual([])
    } finally {
      await session.close()
    }
  })
})

describe('quire verify covers the coherence ledgers', () => {
  it('every logged line is found in its segment; a line lost from the segment is a problem', async () => {
    const { verify } = await import('../../../core/audit/verify.js')
    const root = await folder('quire-verify-', { 'elena.md': '# Elena\n' })
    const session = await inProcess([root], { principal: 'claude' })
    try {
      const services = session.quire.services
      await services.settings.set('trackProvenance', true, USER)
      await services.files.save(await open(session, join(root, 'elena.md')), PERSON)
      const good = await verify(services.engine)
      expect(good.ok).toBe(true)
      expect(good.coherence).toMatchObject({ workspaces: 1, lines: 2, problems: [] })
      const segment = join(root, '.vmark/ledger', (await readdir(join(root, '.vmark/ledger'))).find((name) => name.endsWith('.jsonl'))!)
      const [first] = (await readFile(segment, 'utf8')).split('\n')
      await writeFile(segment, `${first}\n`)
      const bad = await verify(services.engine)
      expect(bad.ok).toBe(false)
      expect(bad.coherence.problems).toHaveLength(1)
    } finally {
      await session.close()
    }
  })
})

describe('two assistants saving at once, each having read the other\'s file', () => {
  it('both saves finish (adoption never waits on a file queue a save holds), each captured', async () => {
    const { connectInProcess } = await import('../../support/mcpHarness.js')
    const root = await folder('quire-cross-', { 'a.md': '# A\n', 'b.md': '# B\n' })
    const session = await inProcess([root], { principal: 'claude' })
    const other = await connectInProcess(session.quire.services, 'inproc-2', 'gpt')
    try {
      await session.quire.services.settings.set('trackProvenance', true, USER)
      const a = await open(session, join(root, 'a.md'))
      const b = await open(session, join(root, 'b.md'))
      const call = async (client: typeof other.client, args: Record<string, unknown>) => {
        const result = (await client.callTool({ name: 'document', arguments: args })) as { isError?: boolean; content: Array<{ text: string }> }
        expect(result.isError, result.content[0]?.text).toBeFalsy()
      }
      await call(session.client, { action: 'read', tabId: b })
      await call(other.client, { action: 'read', tabId: a })
      await Promise.all([
        call(session.client, { action: 'write', tabId: a, content: '# A\n\nFrom B.\n' }),
        call(other.client, { action: 'write', tabId: b, content: '# B\n\nFrom A.\n' }),
      ])
      // Which reads become inputs depends on the interleaving: a file whose own save gave it its identity first was
      // not adopted at the version the other assistant read, and a read matching no revision is left out.
      const written = (await transformations(root)).filter((entry) => entry.body.agent.type === 'model')
      expect(written.map((entry) => entry.body.agent.id).sort()).toEqual(['claude', 'gpt'])
      for (const entry of written) expect(entry.body.inputs.length).toBeLessThanOrEqual(1)
    } finally {
      await other.server.close()
      await session.close()
    }
  })
})
