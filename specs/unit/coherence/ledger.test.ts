import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { CoherenceLedger } from '../../../core/coherence/ledger.js'
import { SEGMENT_ROTATION_BYTES, segmentFileName, workspaceLayout } from '../../../core/coherence/layout.js'
import { readSnapshot, writeSnapshot } from '../../../core/coherence/snapshots.js'
import { hashFileContent } from '../../../core/coherence/hashing.js'
import { loadOrCreateWriterId } from '../../../core/coherence/writerId.js'
import { isUuidV7 } from '../../../core/coherence/uuid.js'
import { readContextFiles, writeContextFile } from '../../../core/coherence/contextFiles.js'
import { isQuireError } from '../../../core/errors.js'
import { OTHER_WRITER, OUR_WRITER, transformation, uuid } from './support.js'

let root: string
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'quire-coherence-'))
})
afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

const ledgerDir = () => join(root, '.vmark', 'ledger')
const ourSegment = (n = 0) => join(ledgerDir(), segmentFileName(OUR_WRITER, n))

describe('layout (spec §1)', () => {
  it('opening and reading a workspace without .vmark/ creates nothing and reads empty', async () => {
    const ledger = new CoherenceLedger(root, OUR_WRITER)
    expect(await ledger.isInitialized()).toBe(false)
    expect(await ledger.read()).toEqual({ entries: [], quarantined: [], futureFormat: 0, duplicates: 0, segments: [] })
    expect(await readdir(root)).toEqual([])
  })

  it('the first append creates the ledger folder, .gitignore and .gitattributes, and our segment', async () => {
    const ledger = new CoherenceLedger(root, OUR_WRITER)
    const receipt = await ledger.append(transformation(OUR_WRITER, 1))
    expect(receipt.segment).toBe(`${OUR_WRITER}.jsonl`)
    expect(await readFile(join(root, '.vmark', '.gitignore'), 'utf8')).toBe('index.db*\n')
    expect(await readFile(join(root, '.vmark', '.gitattributes'), 'utf8')).toBe('ledger/*.jsonl merge=union\n')
    expect(await readFile(ourSegment(), 'utf8')).toBe(`${receipt.lines[0]}\n`)
    expect(await ledger.isInitialized()).toBe(true)
  })

  it('never replaces a .gitignore the person changed, and recreates a ledger folder git pruned', async () => {
    await mkdir(join(root, '.vmark'), { recursive: true })
    await writeFile(join(root, '.vmark', '.gitignore'), 'index.db*\nsnapshots/\n')
    const ledger = new CoherenceLedger(root, OUR_WRITER)
    await ledger.append(transformation(OUR_WRITER, 1))
    expect(await readFile(join(root, '.vmark', '.gitignore'), 'utf8')).toBe('index.db*\nsnapshots/\n')
    await rm(ledgerDir(), { recursive: true })
    await ledger.append(transformation(OUR_WRITER, 2))
    expect((await ledger.read()).entries.map((e) => e.id)).toEqual([transformation(OUR_WRITER, 2).id])
  })
})

describe('appends (spec §5.1, §5.2)', () => {
  it('append one line each, read back in reader order; a batch is one write', async () => {
    const ledger = new CoherenceLedger(root, OUR_WRITER)
    await ledger.append(transformation(OUR_WRITER, 2))
    const batch = await ledger.appendMany([transformation(OUR_WRITER, 3), transformation(OUR_WRITER, 1)])
    expect(batch.lines).toHaveLength(2)
    const read = await ledger.read()
    expect(read.entries.map((e) => e.id)).toEqual([1, 2, 3].map((n) => transformation(OUR_WRITER, n).id))
    expect((await readFile(ourSegment(), 'utf8')).split('\n')).toHaveLength(4)
  })

  it('appends issued at once are written one after another, never interleaved', async () => {
    const ledger = new CoherenceLedger(root, OUR_WRITER)
    const twin = new CoherenceLedger(root, OUR_WRITER)
    await Promise.all(Array.from({ length: 20 }, (_, n) => (n % 2 === 0 ? ledger : twin).append(transformation(OUR_WRITER, n + 1))))
    const text = await readFile(ourSegment(), 'utf8')
    expect(text.split('\n').filter((line) => line !== '')).toHaveLength(20)
    expect(await ledger.read()).toMatchObject({ quarantined: [], duplicates: 0 })
    expect((await ledger.read()).entries).toHaveLength(20)
  })

  it('terminate a torn tail first: the fragment becomes its own line and quarantines, the new entry reads', async () => {
    const ledger = new CoherenceLedger(root, OUR_WRITER)
    await ledger.append(transformation(OUR_WRITER, 1))
    const torn = JSON.stringify(transformation(OUR_WRITER, 2)).slice(0, 40)
    await writeFile(ourSegment(), torn, { flag: 'a' })
    const receipt = await ledger.append(transformation(OUR_WRITER, 3))
    expect(receipt.terminatedTornTail).toBe(true)
    const text = await readFile(ourSegment(), 'utf8')
    expect(text.endsWith(`\n${torn}\n${receipt.lines[0]}\n`)).toBe(true)
    const read = await ledger.read()
    expect(read.entries.map((e) => e.id)).toEqual([transformation(OUR_WRITER, 1).id, transformation(OUR_WRITER, 3).id])
    expect(read.quarantined).toMatchObject([{ segment: `${OUR_WRITER}.jsonl`, line: 2, raw: torn }])
  })

  it('never touch another writer’s segment, even one with a torn tail', async () => {
    await mkdir(ledgerDir(), { recursive: true })
    const theirs = join(ledgerDir(), `${OTHER_WRITER}.jsonl`)
    const theirBytes = Buffer.from(`${JSON.stringify(transformation(OTHER_WRITER, 5))}\n{"format":0,"id":"torn`)
    await writeFile(theirs, theirBytes)
    const ledger = new CoherenceLedger(root, OUR_WRITER, { writeQuarantine: false })
    for (let n = 1; n <= 5; n++) await ledger.append(transformation(OUR_WRITER, n))
    await ledger.appendMany([transformation(OUR_WRITER, 6), transformation(OUR_WRITER, 7)])
    expect(Buffer.compare(await readFile(theirs), theirBytes)).toBe(0)
    expect((await readdir(ledgerDir())).sort()).toEqual([`${OTHER_WRITER}.jsonl`, `${OUR_WRITER}.jsonl`].sort())
    expect((await ledger.read()).entries).toHaveLength(8)
  })

  it('refuse entries of another writer, of another format, or that would not read back, writing nothing', async () => {
    const ledger = new CoherenceLedger(root, OUR_WRITER)
    const refusals = [
      transformation(OTHER_WRITER, 1),
      { ...transformation(OUR_WRITER, 1), format: 1 },
      { ...transformation(OUR_WRITER, 1), body: { outputs: [] } },
    ]
    for (const entry of refusals) {
      await expect(ledger.appendMany([transformation(OUR_WRITER, 2), entry])).rejects.toSatisfy((e: unknown) => isQuireError(e, 'COHERENCE_INVALID_ENTRY'))
    }
    expect(existsSync(join(root, '.vmark'))).toBe(false)
  })

  it('refuse to write while the ledger holds entries of a newer format (read, never rewritten)', async () => {
    await mkdir(ledgerDir(), { recursive: true })
    const future = JSON.stringify({ ...transformation(OTHER_WRITER, 9), format: 1 })
    await writeFile(join(ledgerDir(), `${OTHER_WRITER}.jsonl`), `${future}\n`)
    const ledger = new CoherenceLedger(root, OUR_WRITER)
    await expect(ledger.append(transformation(OUR_WRITER, 1))).rejects.toSatisfy((e: unknown) => isQuireError(e, 'COHERENCE_FUTURE_FORMAT'))
    expect(existsSync(ourSegment())).toBe(false)
    expect(await ledger.read()).toMatchObject({ entries: [], futureFormat: 1, quarantined: [] })
  })

  it('rotate once our segment reaches the threshold, to <writer>-001, -002 …, continuing from the highest', async () => {
    const one = `${JSON.stringify(transformation(OUR_WRITER, 1))}\n`.length
    const ledger = new CoherenceLedger(root, OUR_WRITER, { maxSegmentBytes: one * 2 })
    const segments = []
    for (let n = 1; n <= 5; n++) segments.push((await ledger.append(transformation(OUR_WRITER, n))).segment)
    expect(segments).toEqual([`${OUR_WRITER}.jsonl`, `${OUR_WRITER}.jsonl`, `${OUR_WRITER}-001.jsonl`, `${OUR_WRITER}-001.jsonl`, `${OUR_WRITER}-002.jsonl`])
    await writeFile(ourSegment(7), '')
    expect((await ledger.append(transformation(OUR_WRITER, 6))).segment).toBe(`${OUR_WRITER}-007.jsonl`)
    expect((await ledger.read()).entries).toHaveLength(6)
  })

  it('rotate at the spec’s 8 MiB', async () => {
    expect(SEGMENT_ROTATION_BYTES).toBe(8 * 1024 * 1024)
    await mkdir(ledgerDir(), { recursive: true })
    // Eight valid lines of about 1 MiB each (an unknown kind with a long body), 100 bytes short of the threshold.
    const padding = (n: number, length: number) =>
      JSON.stringify({ format: 0, id: uuid('0198c0e0', n), kind: 'padding', time: '2026-07-18T09:00:00.000Z', writer: OUR_WRITER, idem: uuid('0198c0e1', n), body: 'p'.repeat(length) })
    const overhead = padding(0, 0).length + 1
    const lines = Array.from({ length: 8 }, (_, n) => padding(n, 1024 * 1024 - overhead))
    lines[7] = padding(7, 1024 * 1024 - overhead - 100)
    await writeFile(ourSegment(), `${lines.join('\n')}\n`)
    expect((await stat(ourSegment())).size).toBe(SEGMENT_ROTATION_BYTES - 100)
    const ledger = new CoherenceLedger(root, OUR_WRITER)
    expect((await ledger.append(transformation(OUR_WRITER, 1))).segment).toBe(`${OUR_WRITER}.jsonl`)
    expect((await stat(ourSegment())).size).toBeGreaterThan(SEGMENT_ROTATION_BYTES)
    expect((await ledger.append(transformation(OUR_WRITER, 2))).segment).toBe(`${OUR_WRITER}-001.jsonl`)
  })
})

describe('quarantine (spec §5.6)', () => {
  it('copies each malformed line under a "# line N, reason" comment, once, and the read goes on without it', async () => {
    await mkdir(ledgerDir(), { recursive: true })
    const good = JSON.stringify(transformation(OTHER_WRITER, 1))
    const segment = `${OTHER_WRITER}.jsonl`
    await writeFile(join(ledgerDir(), segment), `${good}\nnot json\n\n{"format":0}\n`)
    const ledger = new CoherenceLedger(root, OUR_WRITER)
    const first = await ledger.read()
    expect(first.entries).toHaveLength(1)
    expect(first.quarantined.map((q) => [q.line, q.raw])).toEqual([
      [2, 'not json'],
      [4, '{"format":0}'],
    ])
    const bad = join(ledgerDir(), 'quarantine', `${segment}.bad`)
    const expected = `# line 2, ${first.quarantined[0]?.reason}\nnot json\n# line 4, ${first.quarantined[1]?.reason}\n{"format":0}\n`
    expect(await readFile(bad, 'utf8')).toBe(expected)
    expect(first.quarantined[0]?.reason).toMatch(/^invalid JSON/)
    const again = await ledger.read()
    expect(again.quarantined).toEqual(first.quarantined)
    expect(await readFile(bad, 'utf8')).toBe(expected)
  })

  it('quarantines a line longer than the bound without holding it', async () => {
    await mkdir(ledgerDir(), { recursive: true })
    const good = JSON.stringify(transformation(OTHER_WRITER, 1))
    await writeFile(join(ledgerDir(), `${OTHER_WRITER}.jsonl`), `${'x'.repeat(5000)}\n${good}\n`)
    const read = await new CoherenceLedger(root, OUR_WRITER, { maxLineBytes: 4096 }).read()
    expect(read.entries).toHaveLength(1)
    expect(read.quarantined).toMatchObject([{ line: 1, raw: '<oversized line elided>' }])
  })

  it('a quarantine that cannot be written does not fail the read', async () => {
    await mkdir(ledgerDir(), { recursive: true })
    await writeFile(join(ledgerDir(), `${OTHER_WRITER}.jsonl`), 'garbage\n')
    await writeFile(join(ledgerDir(), 'quarantine'), 'a file where the folder should be')
    const read = await new CoherenceLedger(root, OUR_WRITER).read()
    expect(read.quarantined).toHaveLength(1)
  })
})

describe('writer id (spec §2.2)', () => {
  it('is a UUIDv7 minted once and kept in the data directory', async () => {
    const dataDir = join(root, 'data')
    const first = await loadOrCreateWriterId(dataDir)
    expect(isUuidV7(first)).toBe(true)
    expect(await loadOrCreateWriterId(dataDir)).toBe(first)
    expect(await readFile(join(dataDir, 'coherence-writer-id'), 'utf8')).toBe(`${first}\n`)
    const racing = await Promise.all([1, 2, 3, 4].map(() => loadOrCreateWriterId(join(root, 'other'))))
    expect(new Set(racing).size).toBe(1)
  })

  it('a damaged writer-id file is reported, not replaced', async () => {
    await writeFile(join(root, 'coherence-writer-id'), 'not an id\n')
    await expect(loadOrCreateWriterId(root)).rejects.toSatisfy((e: unknown) => isQuireError(e, 'COHERENCE_INVALID_WRITER'))
    expect(await readFile(join(root, 'coherence-writer-id'), 'utf8')).toBe('not an id\n')
  })
})

describe('snapshots and context manifests (spec §4, §6)', () => {
  it('store the masked canonical bytes under their hash, and refuse a snapshot that does not match it', async () => {
    const layout = workspaceLayout(root)
    const content = hashFileContent(Buffer.from('---\nvmark:\n  id: 018f3c7a-9f2e-7cc1-b302-5e9d4a6b21c7\n---\nbody\r\n'), 'a.md')
    expect(await writeSnapshot(layout, content.snapshotBytes)).toBe(content.contentHash)
    expect(await writeSnapshot(layout, content.snapshotBytes)).toBe(content.contentHash)
    const hex = content.contentHash.slice('sha256:'.length)
    const path = join(root, '.vmark', 'snapshots', 'sha256', hex.slice(0, 2), hex.slice(2))
    expect(await readFile(path, 'utf8')).toBe('body\n')
    expect((await readSnapshot(layout, content.contentHash)).toString()).toBe('body\n')
    await writeFile(path, 'tampered')
    await expect(readSnapshot(layout, content.contentHash)).rejects.toSatisfy((e: unknown) => isQuireError(e, 'SNAPSHOT_UNAVAILABLE'))
    await expect(readSnapshot(layout, `sha256:${'0'.repeat(64)}`)).rejects.toSatisfy((e: unknown) => isQuireError(e, 'SNAPSHOT_UNAVAILABLE'))
  })

  it('rewrite a manifest whole, keeping fields this build does not know', async () => {
    const layout = workspaceLayout(root)
    expect(await readContextFiles(layout)).toEqual([])
    const manifest = { format: 0, id: '018f3c7a-b002-7aaa-8bbb-ccc000000001', name: 'draft', parent: null, selections: {}, git_branch: 'draft', future: { x: 1 } }
    await writeContextFile(layout, 'draft.json', manifest)
    await writeFile(join(layout.contexts, 'broken.json'), '{')
    const files = await readContextFiles(layout)
    expect(files).toMatchObject([{ file: 'broken.json', status: 'unreadable' }, { file: 'draft.json', status: 'read', manifest }])
    await expect(writeContextFile(layout, '../x.json', manifest)).rejects.toSatisfy((e: unknown) => isQuireError(e, 'COHERENCE_INVALID_CONTEXT'))
  })
})
