/**
 * `coherence` (TOOLS.md §10): COH.GEN.1–8, COH.STATUS.1–5, COH.EDGES.1–5, COH.CLAIMS.1–3, COH.CONTEXTS.1–2, over stdio
 * and HTTP, plus COH.GEN.8 (TIMEOUT) in process, where the log's writes can be held.
 *
 * The ledger gets its entries the way it gets them in use: provenance tracking on (`quire settings set`), an
 * assistant's writes captured (elena.md saved, then read, then chapter-3.md written from it: one edge), and a change
 * another program makes on disk, which only `edges`' scan sees (the upstream's tab is closed first). Claims, check
 * results and context manifests are written by hand, in the spec's shape, into another writer's segment and into
 * `.vmark/contexts/`: Quire never writes them itself (COH.GEN.7).
 */
import { createHash } from 'node:crypto'
import { readdir, readFile, writeFile, appendFile, mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { textContentHash } from '../../core/coherence/hashing.js'
import { revisionId } from '../../core/coherence/revision.js'
import { USER } from '../../core/events/actor.js'
import {
  TRANSPORTS, cli, files, folder, getState, inProcess, logHead, ok, open, plain, put, read, removeAll, rig, write, type Json, type Rig, type Transport,
} from '../support/conformance.js'

const EDGE_STATES = ['version-stale', 'stale-valid', 'stale-contradicted', 'stale-unknown', 'waived', 'diverged', 'diverged-multi-head', 'unpinnable']
const DEFAULT_CONTEXT = '00000000-0000-0000-0000-000000000000'
/** Another installation's writer (VMark on the same workspace): hand-written lines go to its segment. */
const OTHER_WRITER = '0198c0de-0000-7000-8000-0000000000ff'

let counter = 0
/** A fresh UUIDv7 for a hand-written entry (a fixed millisecond prefix, a counter in the random bits). */
function handId(): string {
  counter += 1
  return `0198c0de-${(Date.now() % 0x10000).toString(16).padStart(4, '0')}-7000-8000-${counter.toString(16).padStart(12, '0')}`
}

/** One ledger line of another writer, in the envelope of spec §5.1. */
function handLine(kind: string, body: Record<string, unknown>, id = handId()): { id: string; line: string } {
  const entry = { format: 0, id, kind, time: new Date().toISOString(), writer: OTHER_WRITER, idem: handId(), body }
  return { id, line: `${JSON.stringify(entry)}\n` }
}

async function appendForeign(root: string, ...lines: string[]): Promise<void> {
  await appendFile(join(root, '.vmark/ledger', `${OTHER_WRITER}.jsonl`), lines.join(''))
}

/** Everything in the workspace's `.vmark/`, bytes and names. */
async function ledgerBytes(root: string): Promise<Record<string, string>> {
  return files(join(root, '.vmark'))
}

/** Every entry in our writer's segment(s). */
async function ourEntries(root: string, writer: string): Promise<Json[]> {
  const names = (await readdir(join(root, '.vmark/ledger'))).filter((name) => name.startsWith(writer) && name.endsWith('.jsonl'))
  const lines = (await Promise.all(names.map((name) => readFile(join(root, '.vmark/ledger', name), 'utf8')))).join('')
  return lines.split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line))
}

/** The documents and tabs a coherence call must leave alone: the world of conformance.ts without `.vmark/`. */
async function documentsAndTabs(session: Rig['session'], root: string): Promise<Json> {
  const state = await getState(session)
  const documents: Record<string, unknown> = {}
  for (const tab of state.windows.flatMap((window) => window.tabs)) documents[tab.id] = await read(session, tab.id)
  const onDisk = Object.fromEntries(Object.entries(await files(root)).filter(([key]) => !key.includes('/.vmark')))
  return { windows: state.windows, documents, onDisk }
}

describe.each<Transport>(TRANSPORTS)('coherence over %s', (transport) => {
  let r: Rig
  let w: string
  let bare: string
  let writer: string
  const call = (action: string, args: Record<string, unknown> = { workspace_root: w }) => r.session.call('coherence', { action, ...args })
  const edges = async (): Promise<Json[]> => {
    const result = await call('edges')
    expect(result.isError, result.text).toBe(false)
    const rows = JSON.parse(result.text)
    expect(result.structured).toEqual({ edges: rows })
    return rows
  }
  const list = async (action: 'claims' | 'contexts'): Promise<Json[]> => {
    const result = await call(action)
    expect(result.isError, result.text).toBe(false)
    const rows = JSON.parse(result.text)
    expect(result.structured).toEqual({ [action]: rows })
    return rows
  }
  let elenaRevision: string
  let elenaObject: string
  let chapterObject: string

  beforeAll(async () => {
    w = await folder('coh', {
      'characters/elena.md': '# Elena\n\nShe is brave.\n',
      'scenes/chapter-3.md': '# Chapter 3\n',
      'notes.md': 'loose notes\n',
    })
    bare = await folder('coh-bare', { 'a.md': 'nothing tracked here\n' })
    r = await rig(transport, { workspaces: [w, bare] })
    const set = await cli(r.home, 'settings', 'set', 'trackProvenance', 'on')
    expect(set.code, set.stderr).toBe(0)
    writer = (await readFile(join(r.home, 'coherence-writer-id'), 'utf8').catch(() => '')).trim()
  })
  afterAll(async () => {
    await r?.close()
    await removeAll(w, bare)
  })

  it('COH.GEN.1 offers exactly status, edges, claims and contexts, annotated readOnlyHint: true; COH.GEN.7 no action changes claims or contexts', async () => {
    const { tools } = await r.session.client.listTools()
    const coherence = tools.find((tool) => tool.name === 'coherence')!
    expect((coherence.inputSchema.properties as Record<string, { enum?: string[] }>).action!.enum).toEqual(['status', 'edges', 'claims', 'contexts'])
    expect(coherence.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false })
    expect(Object.keys(coherence.inputSchema.properties as object)).toEqual(['action', 'workspace_root'])
    for (const action of ['add_claim', 'set_context', 'claim', 'pin', 'resolve']) plain(await call(action))
  })

  it('COH.GEN.5 COH.GEN.6 every action requires workspace_root: missing, not a string, not absolute, not a directory are plain strings in VMark\'s words', async () => {
    for (const action of ['status', 'edges', 'claims', 'contexts']) {
      plain(await call(action, {}), /^workspace_root \(string\) is required — the absolute path of the workspace to query$/)
      plain(await call(action, { workspace_root: '' }), /workspace_root \(string\) is required/)
      plain(await call(action, { workspace_root: 42 }), /workspace_root/)
      plain(await call(action, { workspace_root: 'characters' }), /^workspace_root must be an absolute path, got: characters$/)
      plain(await call(action, { workspace_root: join(w, 'notes.md') }), new RegExp(`^workspace_root is not an accessible directory: ${join(w, 'notes.md')}$`))
      plain(await call(action, { workspace_root: join(w, 'missing') }), /is not an accessible directory/)
      // A directory, but no workspace Quire opened (the allow-list of research/vmark.md §8.5).
      plain(await call(action, { workspace_root: join(w, 'characters') }), /is not a workspace open in Quire/)
      plain(await call(action, { workspace_root: w, extra: true }), /unknown argument extra/)
    }
  })

  it('COH.STATUS.1 COH.STATUS.2 COH.STATUS.3 COH.STATUS.5 a workspace without .vmark/ is not initialized, every count 0, and the writer is this installation\'s id', async () => {
    const status = ok(await call('status', { workspace_root: bare }))
    expect(Object.keys(status).sort()).toEqual(['initialized', 'objects', 'open_items', 'quarantined', 'writer'])
    expect(status).toMatchObject({ initialized: false, open_items: 0, quarantined: 0, objects: 0 })
    expect(status.writer).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    if (writer !== '') expect(status.writer).toBe(writer)
    writer = status.writer
    // Asking never creates the ledger (spec §1: only the first capture does), nor do edges, claims or contexts.
    for (const action of ['edges', 'claims', 'contexts']) {
      const result = await call(action, { workspace_root: bare })
      expect(result.isError, result.text).toBe(false)
      if (action !== 'contexts') expect(JSON.parse(result.text)).toEqual([])
    }
    expect(await readdir(bare)).toEqual(['a.md'])
    expect((await readFile(join(r.home, 'coherence-writer-id'), 'utf8')).trim()).toBe(writer)
  })

  it('COH.EDGES.2 captures make the ledger; while everything is coherent edges is [] and status counts the objects', async () => {
    const elenaTab = await open(r.session, join(w, 'characters/elena.md'))
    await write(r.session, elenaTab, '# Elena\n\nShe is brave.\n')
    const served = await read(r.session, elenaTab)
    expect(served.content).toMatch(/^---\nvmark:\n {2}id: [0-9a-f-]{36}\n---\n/)
    const chapterTab = await open(r.session, join(w, 'scenes/chapter-3.md'))
    await write(r.session, chapterTab, '# Chapter 3\n\nElena, brave, crosses the river.\n')
    ok(await r.session.call('workspace', { action: 'close', tabId: elenaTab }))

    const status = ok(await call('status'))
    expect(status).toEqual({ initialized: true, objects: 2, open_items: 0, quarantined: 0, writer })
    expect(await edges()).toEqual([])

    const entries = await ourEntries(w, writer)
    const transformations = entries.filter((entry) => entry.kind === 'transformation')
    expect(transformations).toHaveLength(2)
    const [elena, chapter] = transformations
    elenaObject = elena.body.outputs[0].object
    elenaRevision = elena.body.outputs[0].revision
    chapterObject = chapter.body.outputs[0].object
    expect(chapter.body.inputs).toEqual([{ object: elenaObject, revision: elenaRevision, role: 'direct' }])
  })

  it('COH.GEN.3 COH.STATUS.4 status is purely read-only: a change on disk is not seen until edges scans', async () => {
    const elenaPath = join(w, 'characters/elena.md')
    const text = await readFile(elenaPath, 'utf8')
    await writeFile(elenaPath, `${text}\nShe is afraid of water.\n`)
    const ledger = await ledgerBytes(w)
    const head = await logHead(r.home)
    const status = ok(await call('status'))
    expect(status.open_items).toBe(0)
    expect(await ledgerBytes(w)).toEqual(ledger)
    expect(await logHead(r.home)).toBe(head)
  })

  it('COH.EDGES.1 COH.EDGES.3 COH.EDGES.4 COH.GEN.3 edges scans first: the change on disk becomes an observed-external revision and the chapter\'s edge is version-stale', async () => {
    const before = await documentsAndTabs(r.session, w)
    const rows = await edges()
    expect(rows).toHaveLength(1)
    const [row] = rows
    expect(Object.keys(row).sort()).toEqual(['downstream', 'downstream_path', 'downstream_rev', 'input', 'pinned', 'state', 'txf', 'upstream', 'upstream_path'].sort())
    expect(row).toMatchObject({
      input: 0,
      upstream: elenaObject,
      upstream_path: 'characters/elena.md',
      pinned: elenaRevision,
      downstream: chapterObject,
      downstream_path: 'scenes/chapter-3.md',
      state: 'version-stale',
    })
    expect(EDGE_STATES).toContain(row.state)
    const entries = await ourEntries(w, writer)
    const chapter = entries.find((entry) => entry.kind === 'transformation' && entry.body.outputs[0].object === chapterObject)
    expect(row.txf).toBe(chapter.id)
    expect(row.downstream_rev).toBe(chapter.body.outputs[0].revision)
    // The scan's revision: another program's edit, no inputs, unknown confidence, the captured one as its parent.
    const observed = entries.filter((entry) => entry.kind === 'transformation' && entry.body.outputs[0].object === elenaObject).at(-1)
    expect(observed.body).toMatchObject({ inputs: [], confidence: 'unknown', agent: { type: 'external' } })
    expect(observed.body.outputs[0].parents).toEqual([elenaRevision])
    expect(observed.body.outputs[0].revision).not.toBe(elenaRevision)
    // May append to the ledger; never changes a document, a tab or a file outside .vmark/ (COH.GEN.2).
    expect(await documentsAndTabs(r.session, w)).toEqual(before)
    expect(ok(await call('status')).open_items).toBe(1)
    // Scanning again with nothing changed appends nothing.
    const ledger = await ledgerBytes(w)
    expect(await edges()).toEqual(rows)
    expect(await ledgerBytes(w)).toEqual(ledger)
  })

  it('COH.EDGES.5 txf + input identify one edge each', async () => {
    const rows = await edges()
    const keys = rows.map((row) => `${row.txf}#${row.input}`)
    expect(new Set(keys).size).toBe(keys.length)
  })

  it('COH.CONTEXTS.1 COH.CONTEXTS.2 the implicit default context is always there, with every manifest in .vmark/contexts/', async () => {
    expect(await list('contexts')).toEqual([{ id: DEFAULT_CONTEXT, name: 'default', parent: null, enforcement: 'greenhouse', visibleClaims: [], errors: [] }])
    expect(await list('claims')).toEqual([])
    const draft = handId()
    const orphan = handId()
    await mkdir(join(w, '.vmark/contexts'), { recursive: true })
    await writeFile(join(w, '.vmark/contexts', `${draft}.json`), JSON.stringify({ format: 0, id: draft, name: 'draft 2', parent: null, selections: {}, enforcement: 'enforcing', visible_claims: [] }))
    await writeFile(join(w, '.vmark/contexts', `${orphan}.json`), JSON.stringify({ format: 0, id: orphan, name: 'orphan', parent: handId(), selections: {}, enforcement: 'greenhouse', visible_claims: [] }))
    const contexts = await list('contexts')
    expect(contexts.map((context) => context.name)).toEqual(['default', 'draft 2', 'orphan'])
    for (const context of contexts) expect(Object.keys(context).sort()).toEqual(['enforcement', 'errors', 'id', 'name', 'parent', 'visibleClaims'])
    expect(contexts[1]).toEqual({ id: draft, name: 'draft 2', parent: null, enforcement: 'enforcing', visibleClaims: [], errors: [] })
    expect(contexts[2]).toMatchObject({ id: orphan, name: 'orphan' })
    expect(contexts[2].errors).toHaveLength(1)
  })

  it('COH.CLAIMS.1 COH.CLAIMS.3 COH.CONTEXTS.1 claims are the current entries, visible meaning visible in the default context', async () => {
    const brave = handId()
    const water = handId()
    const braveLine = handLine('claim', { claim: brave, statement: 'Elena is brave.', valid_at: null, invalid_at: null, established_by: [], supersedes: null, maturity: 'established' })
    const waterDraft = handLine('claim', { claim: water, statement: 'Elena fears water.', valid_at: null, invalid_at: null, established_by: [], supersedes: null, maturity: 'draft' })
    const waterNow = handLine('claim', { claim: water, statement: 'Elena fears deep water.', valid_at: null, invalid_at: '2026-01-01T00:00:00.000Z', established_by: [], supersedes: waterDraft.id, maturity: 'draft' })
    await appendForeign(w, braveLine.line, waterDraft.line, waterNow.line)
    // A materialized default context (nil id) makes `brave` visible in it; a child context adds `water` for itself.
    const child = handId()
    await writeFile(join(w, '.vmark/contexts/default.json'), JSON.stringify({ format: 0, id: DEFAULT_CONTEXT, name: 'default', parent: null, selections: {}, enforcement: 'greenhouse', visible_claims: [brave] }))
    await writeFile(join(w, '.vmark/contexts', `${child}.json`), JSON.stringify({ format: 0, id: child, name: 'pov', parent: DEFAULT_CONTEXT, selections: {}, enforcement: 'greenhouse', visible_claims: [water] }))

    const claims = await list('claims')
    const byClaim = new Map(claims.map((claim) => [claim.claim, claim]))
    expect(claims).toHaveLength(2)
    for (const claim of claims) expect(Object.keys(claim).sort()).toEqual(['claim', 'entryId', 'invalidAt', 'maturity', 'statement', 'visible'])
    expect(byClaim.get(brave)).toEqual({ claim: brave, entryId: braveLine.id, statement: 'Elena is brave.', maturity: 'established', invalidAt: null, visible: true })
    expect(byClaim.get(water)).toEqual({ claim: water, entryId: waterNow.id, statement: 'Elena fears deep water.', maturity: 'draft', invalidAt: '2026-01-01T00:00:00.000Z', visible: false })
    const contexts = await list('contexts')
    expect(contexts[0]).toEqual({ id: DEFAULT_CONTEXT, name: 'default', parent: null, enforcement: 'greenhouse', visibleClaims: [brave], errors: [] })
    // A child sees its own claims and its parent's, its own first (spec §6).
    expect(contexts.find((context) => context.id === child)).toMatchObject({ parent: DEFAULT_CONTEXT, visibleClaims: [water, brave] })
  })

  it('COH.CLAIMS.2 only established claims constrain semantic checks: a draft claim leaves a check result live, establishing it does not', async () => {
    const [row] = await edges()
    const claims = await list('claims')
    // The feed fingerprint of spec §5.4.4: the established, visible, unended claims of the context.
    const fingerprint = (fed: Json[]) => `sha256:${createHash('sha256').update(fed.map((claim) => `${claim.claim}=${claim.entryId}\n`).join('')).digest('hex')}`
    const established = claims.filter((claim) => claim.maturity === 'established' && claim.visible && claim.invalidAt === null).sort((a, b) => (a.claim < b.claim ? -1 : 1))
    const entries = await ourEntries(w, writer)
    const current = entries.filter((entry) => entry.kind === 'transformation' && entry.body.outputs[0].object === elenaObject).at(-1).body.outputs[0].revision
    const check = handLine('check-result', {
      edge: { txf: row.txf, input: row.input }, pinned: row.pinned, checked_against: current, verdict: 'no-contradiction',
      model: 'hand-written', prompt_version: '1', evidence: [], confidence: 0.9, context: DEFAULT_CONTEXT, claims_fingerprint: fingerprint(established),
    })
    await appendForeign(w, check.line)
    expect((await edges()).map((edge) => edge.state)).toEqual(['stale-valid'])

    // A draft claim made visible in the default context feeds nothing: the check stays live.
    const river = handId()
    const riverDraft = handLine('claim', { claim: river, statement: 'The river is deep.', valid_at: null, invalid_at: null, established_by: [], supersedes: null, maturity: 'draft' })
    await appendForeign(w, riverDraft.line)
    const defaultPath = join(w, '.vmark/contexts/default.json')
    const manifest = JSON.parse(await readFile(defaultPath, 'utf8'))
    await writeFile(defaultPath, JSON.stringify({ ...manifest, visible_claims: [...manifest.visible_claims, river] }))
    expect((await list('claims')).find((claim) => claim.claim === river)).toMatchObject({ maturity: 'draft', visible: true })
    expect((await edges()).map((edge) => edge.state)).toEqual(['stale-valid'])

    // Established, it constrains: the check was made without it, so it no longer holds.
    await appendForeign(w, handLine('claim', { claim: river, statement: 'The river is deep.', valid_at: null, invalid_at: null, established_by: [], supersedes: riverDraft.id, maturity: 'established' }).line)
    expect((await edges()).map((edge) => edge.state)).toEqual(['version-stale'])
  })

  it('COH.GEN.2 COH.GEN.3 COH.GEN.4 status, claims and contexts change nothing at all, with no editor attached and no tab open', async () => {
    const state = await getState(r.session)
    for (const tab of state.windows.flatMap((window) => window.tabs)) ok(await r.session.call('workspace', { action: 'close', tabId: tab.id }))
    expect((await getState(r.session)).windows.every((window) => !window.focused && window.tabs.length === 0)).toBe(true)
    const before = { world: await documentsAndTabs(r.session, w), ledger: await ledgerBytes(w), head: await logHead(r.home) }
    ok(await call('status'))
    await list('claims')
    await list('contexts')
    expect({ world: await documentsAndTabs(r.session, w), ledger: await ledgerBytes(w), head: await logHead(r.home) }).toEqual(before)
    expect((await edges()).length).toBe(1)
  })

  it('COH.STATUS.1 quarantined counts the malformed lines of the last read; status quarantines nothing on disk, edges does', async () => {
    await appendForeign(w, '{"format":0,"id":"not a line\n')
    const status = ok(await call('status'))
    expect(status.quarantined).toBe(1)
    expect(await readdir(join(w, '.vmark/ledger'))).not.toContain('quarantine')
    await edges()
    const quarantined = await readdir(join(w, '.vmark/ledger/quarantine'))
    expect(quarantined).toHaveLength(1)
    expect(quarantined[0]!.startsWith(OTHER_WRITER)).toBe(true)
    expect(await readFile(join(w, '.vmark/ledger/quarantine', quarantined[0]!), 'utf8')).toMatch(/^# line \d+, .+\n\{"format":0,"id":"not a line\n/)
    expect(ok(await call('status')).quarantined).toBe(1)
  })

  it('COH.EDGES.4 every state reaches the client: stale-contradicted, stale-unknown, unpinnable, fresh again, diverged, diverged-multi-head', async () => {
    const [row] = await edges()
    const claims = await list('claims')
    const fed = claims.filter((claim) => claim.maturity === 'established' && claim.visible && claim.invalidAt === null).sort((a, b) => (a.claim < b.claim ? -1 : 1))
    const fingerprint = `sha256:${createHash('sha256').update(fed.map((claim) => `${claim.claim}=${claim.entryId}\n`).join('')).digest('hex')}`
    const entries = await ourEntries(w, writer)
    const head = entries.filter((entry) => entry.kind === 'transformation' && entry.body.outputs[0].object === elenaObject).at(-1).body.outputs[0].revision
    const check = (verdict: string) =>
      handLine('check-result', { edge: { txf: row.txf, input: row.input }, pinned: row.pinned, checked_against: head, verdict, model: 'hand-written', prompt_version: '1', evidence: [], confidence: 0.5, context: DEFAULT_CONTEXT, claims_fingerprint: fingerprint }).line
    await appendForeign(w, check('contradiction'))
    expect((await edges()).map((edge) => edge.state)).toEqual(['stale-contradicted'])
    await appendForeign(w, check('unknown'))
    expect((await edges()).map((edge) => edge.state)).toEqual(['stale-unknown'])

    // The default context pins the upstream: at a revision the ledger lacks, at the edge's own pin, on another branch.
    const defaultPath = join(w, '.vmark/contexts/default.json')
    const manifest = JSON.parse(await readFile(defaultPath, 'utf8'))
    const select = (selections: Record<string, string>) => writeFile(defaultPath, JSON.stringify({ ...manifest, selections }))
    await select({ [elenaObject]: `rev1:${'0'.repeat(64)}` })
    expect((await edges()).map((edge) => edge.state)).toEqual(['unpinnable'])
    await select({ [elenaObject]: row.pinned })
    expect(await edges()).toEqual([])
    expect(ok(await call('status')).open_items).toBe(0)
    // Another writer's revision of the upstream from nothing (a second root): a branch apart from the pin.
    const contentHash = textContentHash('# Elena\n\nAs another clone has her.\n')
    const sibling = revisionId(contentHash, [])
    await appendForeign(w, handLine('transformation', { inputs: [], outputs: [{ object: elenaObject, revision: sibling, content_hash: contentHash, parents: [] }], agent: { type: 'human' }, intent: { kind: 'editor-save', summary: 'other clone' }, confidence: 'exact' }).line)
    await select({ [elenaObject]: sibling })
    expect((await edges()).map((edge) => edge.state)).toEqual(['diverged'])
    // Live again: the upstream now has two heads.
    await select({})
    expect((await edges()).map((edge) => edge.state)).toEqual(['diverged-multi-head'])
    for (const state of ['stale-contradicted', 'stale-unknown', 'unpinnable', 'diverged', 'diverged-multi-head']) expect(EDGE_STATES).toContain(state)
  })
})

/** Waits until `condition` holds (what a test waits for happens after an answer it cannot await). */
async function until(condition: () => Promise<boolean>, limitMs = 10_000): Promise<void> {
  const deadline = Date.now() + limitMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('the condition never held')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

describe('coherence TIMEOUT (in process: the log\'s writes held)', () => {
  it('COH.GEN.8 an edges call not done in time answers the plain string TIMEOUT, and its reconcile still lands', async () => {
    const w = await folder('coh-timeout', { 'source.md': '# Source\n', 'derived.md': '# Derived\n' })
    let hold: Promise<void> | undefined
    let release: () => void = () => {}
    const session = await inProcess([w], {
      principal: 'claude',
      coherence: { answerWithinMs: 300 },
      interceptWrite: async (writeBatch) => {
        if (hold !== undefined) await hold
        return writeBatch()
      },
    })
    try {
      const { services } = session.quire
      await services.settings.set('trackProvenance', true, USER)
      const source = await open(session, join(w, 'source.md'))
      await write(session, source, '# Source\n\nFirst.\n')
      await read(session, source)
      await write(session, await open(session, join(w, 'derived.md')), '# Derived\n\nFrom the source.\n')
      ok(await session.call('workspace', { action: 'close', tabId: source }))
      await put(join(w, 'source.md'), `${await readFile(join(w, 'source.md'), 'utf8')}Second.\n`)
      const writer = await services.coherence.writer()
      const entriesBefore = (await ourEntries(w, writer)).length

      const stream = `coherence:${w}`
      const eventsBefore = (await services.engine.store.streamHead(stream)).version
      hold = new Promise((resolve) => (release = resolve))
      plain(await session.call('coherence', { action: 'edges', workspace_root: w }), /^TIMEOUT: coherence\.edges did not finish/)
      release()
      hold = undefined
      // The reconcile went on after the answer: its line reaches the ledger and its event the log.
      await until(async () => (await services.engine.store.streamHead(stream)).version > eventsBefore)
      const entries = await ourEntries(w, writer)
      expect(entries).toHaveLength(entriesBefore + 1)
      expect(entries.at(-1)).toMatchObject({ kind: 'transformation', body: { confidence: 'unknown', inputs: [] } })
      const rows = JSON.parse((await session.call('coherence', { action: 'edges', workspace_root: w })).text)
      expect(rows.map((row: Json) => row.state)).toEqual(['version-stale'])
      expect(await ourEntries(w, writer)).toHaveLength(entriesBefore + 1)
    } finally {
      release()
      await session.close()
      await removeAll(w)
    }
  })
})
