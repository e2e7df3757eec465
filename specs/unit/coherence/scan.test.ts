import { execFileSync } from 'node:child_process'
import { chmod, mkdir, mkdtemp, rm, symlink, unlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { composeEntry } from '../../../core/coherence/compose.js'
import { binaryContentHash, canonicalText, hashFileContent, textContentHash } from '../../../core/coherence/hashing.js'
import { CoherenceProjection } from '../../../core/coherence/model/breakdown.js'
import { reconcile } from '../../../core/coherence/model/reconcile.js'
import { scanWorkspace, scanWorkspaceFile } from '../../../core/coherence/scan.js'
import { isQuireError } from '../../../core/errors.js'
import { ELENA, OUR_WRITER, SCENE, saveBody, uuid } from './support.js'

let root: string
let outside: string

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'quire-scan-'))
  outside = await mkdtemp(join(tmpdir(), 'quire-scan-outside-'))
})

afterEach(async () => {
  await chmod(root, 0o700).catch(() => undefined)
  await rm(root, { recursive: true, force: true })
  await rm(outside, { recursive: true, force: true })
})

/** Writes `content` at the workspace-relative `path`, making its folders. */
async function put(path: string, content: string | Uint8Array, base = root): Promise<void> {
  await mkdir(dirname(join(base, path)), { recursive: true })
  await writeFile(join(base, path), content)
}

const withId = (id: string, body: string, schema?: string) => `---\nvmark:\n  id: ${id}\n${schema === undefined ? '' : `  schema: ${schema}\n`}---\n${body}`
const paths = (scan: { files: ReadonlyArray<{ path: string }> }) => scan.files.map((file) => file.path)

describe('scanWorkspace: which files (spec §9.4)', () => {
  it('walks nested folders, lists Markdown and binary kinds sorted by path, and leaves every other file out', async () => {
    await put('b.md', 'b\n')
    await put('a/z.markdown', 'z\n')
    await put('a/deeper/still/c.mdx', 'c\n')
    await put('a-b.md', 'dash\n')
    await put('images/cover.PNG', new Uint8Array([0x89, 0x50, 0x4e, 0x47]))
    await put('notes.txt', 'not tracked\n')
    await put('data.json', '{}\n')
    await put('a/.quire-save-1234-0123456789abcdef.tmp', 'a save in progress\n')
    const scan = await scanWorkspace(root)
    expect(paths(scan)).toEqual(['a-b.md', 'a/deeper/still/c.mdx', 'a/z.markdown', 'b.md', 'images/cover.PNG'])
    expect(scan).toMatchObject({ truncated: false, complete: true, skipped: [] })
  })

  it('skips folders that are never content at any depth, and scans hidden files and folders otherwise', async () => {
    for (const folder of ['.vmark', '.git', 'node_modules', 'pkg/node_modules', '.obsidian', '.svn', '.hg', 'tools/__pycache__', '.Trash', '.claude/worktrees']) {
      await put(`${folder}/inside.md`, withId(uuid('0198c0d0', 1), 'a twin\n'))
    }
    await put('.vmark/snapshots/tmp/0198c0d0-0000-7000-8000-000000000001', 'a snapshot temp')
    await put('.claude/notes.md', 'hidden folder, ordinary content\n')
    await put('.drafts/idea.md', 'idea\n')
    await put('.hidden.md', 'hidden file\n')
    await put('deep/worktrees/kept.md', 'only .claude/worktrees at the root is skipped\n')
    const scan = await scanWorkspace(root)
    expect(paths(scan)).toEqual(['.claude/notes.md', '.drafts/idea.md', '.hidden.md', 'deep/worktrees/kept.md'])
    expect(scan.skipped).toEqual([])
  })

  it("skips Quire's own data directory inside the workspace, named by any path that reaches it", async () => {
    await put('home/quire/log/notes.md', 'Quire data, never content\n')
    await put('home/own.md', 'the person’s\n')
    // The option names the data directory through a link elsewhere: device and inode, not spelling, decide.
    await symlink(join(root, 'home', 'quire'), join(outside, 'data-link'))
    const scan = await scanWorkspace(root, { ownDataDirectories: [join(outside, 'data-link'), join(outside, 'missing')] })
    expect(paths(scan)).toEqual(['home/own.md'])
    expect(scan.skipped).toEqual([{ path: 'home/quire', reason: "Quire's own data directory" }])
    expect(scan.complete).toBe(true)
  })
})

describe('scanWorkspace: symlinks are reported and never followed (spec §9.4)', () => {
  it('reports a link to a file, to a folder and a dangling one, and reads nothing through them', async () => {
    await put('real.md', 'real\n')
    await put('secret/outside.md', withId(ELENA, 'outside the workspace\n'), outside)
    await symlink(join(outside, 'secret', 'outside.md'), join(root, 'alias.md'))
    await symlink(join(outside, 'secret'), join(root, 'linked-folder'))
    await symlink(join(root, 'nowhere.md'), join(root, 'dangling.md'))
    await symlink(join(outside, 'secret', 'outside.md'), join(root, 'link-without-extension'))
    const scan = await scanWorkspace(root)
    expect(scan.files).toEqual([
      { path: 'alias.md', isSymlink: true },
      { path: 'dangling.md', isSymlink: true },
      { path: 'link-without-extension', isSymlink: true },
      { path: 'linked-folder', isSymlink: true },
      { path: 'real.md', isSymlink: false, contentHash: textContentHash('real\n'), vmarkId: null, schema: null },
    ])
  })

  it('a link put in a file’s place after the walk saw it is reported, not read', async () => {
    await put('secret.md', withId(ELENA, 'outside\n'), outside)
    await symlink(join(outside, 'secret.md'), join(root, 'swapped.md'))
    expect(await scanWorkspaceFile(root, 'swapped.md')).toEqual({ path: 'swapped.md', isSymlink: true })
  })
})

describe('scanWorkspace: hashes and identity (spec §2.1, §3)', () => {
  it('reads vmark.id (lower-cased, as the ledger keeps ids) and vmark.schema; no identity is null', async () => {
    await put('characters/elena.md', withId(ELENA.toUpperCase(), 'Elena\n', 'character'))
    await put('plain.md', '# no frontmatter\n')
    await put('authored.md', '---\ntitle: Authored\n---\nbody\n')
    await put('schema-only.md', '---\nvmark:\n  schema: scene\n---\nbody\n')
    const byPath = new Map((await scanWorkspace(root)).files.map((file) => [file.path, file]))
    expect(byPath.get('characters/elena.md')).toEqual({ path: 'characters/elena.md', isSymlink: false, contentHash: textContentHash('Elena\n'), vmarkId: ELENA, schema: 'character' })
    expect(byPath.get('plain.md')).toMatchObject({ vmarkId: null, schema: null })
    expect(byPath.get('authored.md')).toMatchObject({ vmarkId: null, schema: null, contentHash: textContentHash('---\ntitle: Authored\n---\nbody\n') })
    expect(byPath.get('schema-only.md')).toMatchObject({ vmarkId: null, schema: 'scene' })
  })

  it('§3.2 masking: two files equal but for vmark.id hash the same, and as the text without identity', async () => {
    await put('one.md', withId(ELENA, 'The same words.\n'))
    await put('two.md', withId(SCENE, 'The same words.\n'))
    const [one, two] = (await scanWorkspace(root)).files
    expect(one?.contentHash).toBe(two?.contentHash)
    expect(one?.contentHash).toBe(textContentHash('The same words.\n'))
    expect([one?.vmarkId, two?.vmarkId]).toEqual([ELENA, SCENE])
  })

  it('§3.1: CRLF line endings and decomposed Unicode give the canonical text’s hash, hashFileContent’s hash of the bytes', async () => {
    const raw = '---\r\nvmark:\r\n  id: ' + ELENA + '\r\n---\r\nCafe\u0301 au lait\r\nsecond line\r'
    await put('crlf.md', raw)
    await put('canonical.md', canonicalText(raw))
    const [canonical, crlf] = (await scanWorkspace(root)).files
    expect(crlf?.contentHash).toBe(textContentHash(canonicalText(raw)))
    expect(crlf?.contentHash).toBe(hashFileContent(Buffer.from(raw, 'utf8'), 'crlf.md').contentHash)
    expect(crlf?.contentHash).toBe(canonical?.contentHash)
    expect(crlf?.contentHash).toBe(textContentHash('Caf\u00e9 au lait\nsecond line\n'))
    // The identity is read from CRLF frontmatter too.
    expect(crlf?.vmarkId).toBe(ELENA)
  })

  it('a Markdown file that is not UTF-8 is unreadable (invalid-utf8), with no hash', async () => {
    await put('latin1.md', new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]))
    expect((await scanWorkspace(root)).files).toEqual([
      { path: 'latin1.md', isSymlink: false, unreadable: { code: 'invalid-utf8', message: 'the file is not valid UTF-8 text' } },
    ])
  })

  it('an unterminated frontmatter, or a vmark.id that is not a UUID, is unreadable (malformed-frontmatter)', async () => {
    await put('open.md', `---\nvmark:\n  id: ${ELENA}\nno closing fence\n`)
    await put('bad-id.md', withId('elena-1', 'body\n'))
    const files = (await scanWorkspace(root)).files
    expect(files).toEqual([
      { path: 'bad-id.md', isSymlink: false, unreadable: { code: 'malformed-frontmatter', message: 'vmark.id "elena-1" is not a UUID' } },
      { path: 'open.md', isSymlink: false, unreadable: { code: 'malformed-frontmatter', message: 'the frontmatter has no closing --- fence' } },
    ])
  })

  it('§3.4 binary: raw bytes hashed, marked binary, and no identity read even when the bytes look like frontmatter', async () => {
    const looksLikeText = Buffer.from(withId(ELENA, 'not a document\r\n'), 'utf8')
    const image = new Uint8Array(3 * 1024 * 1024 + 17).map((_, i) => (i * 31) % 256)
    await put('scan.pdf', looksLikeText)
    await put('art/big.webp', image)
    const files = (await scanWorkspace(root)).files
    expect(files).toEqual([
      { path: 'art/big.webp', isSymlink: false, binary: true, contentHash: binaryContentHash(image) },
      { path: 'scan.pdf', isSymlink: false, binary: true, contentHash: binaryContentHash(looksLikeText) },
    ])
    expect(files[1]?.contentHash).toBe(hashFileContent(looksLikeText, 'scan.pdf').contentHash)
  })
})

describe('scanWorkspace: bounds', () => {
  it('a file larger than maxFileBytes is unreadable (file-too-large) and not read; one at the limit is read', async () => {
    await put('at-limit.md', '0123456789')
    await put('over.md', '0123456789A')
    await put('over.png', new Uint8Array(11))
    const files = (await scanWorkspace(root, { maxFileBytes: 10 })).files
    const message = 'the file is larger than the 10-byte scan limit'
    expect(files).toEqual([
      { path: 'at-limit.md', isSymlink: false, contentHash: textContentHash('0123456789'), vmarkId: null, schema: null },
      { path: 'over.md', isSymlink: false, unreadable: { code: 'file-too-large', message } },
      { path: 'over.png', isSymlink: false, binary: true, unreadable: { code: 'file-too-large', message } },
    ])
  })

  it('past maxFiles the scan is truncated (and not complete), keeping the first files of the walk; at it, it is whole', async () => {
    for (const name of ['a/1.md', 'a/2.md', 'b.md', 'c/3.md', 'd.md']) await put(name, `${name}\n`)
    const cut = await scanWorkspace(root, { maxFiles: 3 })
    expect(paths(cut)).toEqual(['a/1.md', 'a/2.md', 'b.md'])
    expect(cut).toMatchObject({ truncated: true, complete: false })
    const whole = await scanWorkspace(root, { maxFiles: 5 })
    expect(whole.files).toHaveLength(5)
    expect(whole).toMatchObject({ truncated: false, complete: true })
  })

  it('reads with any concurrency to the same result', async () => {
    for (let i = 0; i < 40; i++) await put(`f/${String(i).padStart(2, '0')}.md`, withId(uuid('0198c0d1', i), `file ${i}\n`))
    const serial = await scanWorkspace(root, { concurrency: 1 })
    expect(serial.files).toHaveLength(40)
    expect(await scanWorkspace(root, { concurrency: 64 })).toEqual(serial)
  })

  it('refuses bounds that are not positive integers, and a root that is not a folder', async () => {
    await expect(scanWorkspace(root, { maxFiles: 0 })).rejects.toThrow(RangeError)
    await expect(scanWorkspace(root, { maxFileBytes: -1 })).rejects.toThrow(/maxFileBytes must be an integer/)
    await expect(scanWorkspace(root, { concurrency: 1.5 })).rejects.toThrow(RangeError)
    const missing = await scanWorkspace(join(root, 'missing')).catch((error: unknown) => error)
    expect(isQuireError(missing, 'COHERENCE_INVALID_WORKSPACE')).toBe(true)
    await put('file.md', 'x\n')
    await expect(scanWorkspace(join(root, 'file.md'))).rejects.toThrow(/is not a directory/)
  })
})

describe('scanWorkspace: files that change or resist while it runs never make it throw', () => {
  it('a file removed between the walk and its read is left out, with the reason in skipped', async () => {
    await put('gone.md', 'here for the walk\n')
    await unlink(join(root, 'gone.md'))
    expect(await scanWorkspaceFile(root, 'gone.md')).toEqual({ path: 'gone.md', reason: 'removed during the scan' })
    expect(await scanWorkspaceFile(root, 'gone-folder/gone.md')).toEqual({ path: 'gone-folder/gone.md', reason: 'removed during the scan' })
  })

  it('files deleted while a scan runs: every one is either scanned whole or skipped as removed', async () => {
    const names = Array.from({ length: 400 }, (_, i) => `f${String(i % 20).padStart(2, '0')}/${String(i).padStart(3, '0')}.md`)
    for (const name of names) await put(name, `${name}\n`)
    let done = false
    const scanning = scanWorkspace(root, { concurrency: 2 }).finally(() => {
      done = true
    })
    // One at a time while the scan runs, so deletions fall before the walk, between walk and read, and after reads.
    const doomed = names.filter((_, i) => i % 2 === 1)
    for (let i = 0; i < doomed.length && !done; i++) await unlink(join(root, doomed[i] as string))
    const scan = await scanning
    for (const file of scan.files) expect(file).toEqual({ path: file.path, isSymlink: false, contentHash: textContentHash(`${file.path}\n`), vmarkId: null, schema: null })
    for (const skip of scan.skipped) expect(doomed).toContain(skip.path)
    for (const skip of scan.skipped) expect(skip.reason).toBe('removed during the scan')
    expect(names.filter((_, i) => i % 2 === 0).every((name) => paths(scan).includes(name))).toBe(true)
  })

  it('a name that is not UTF-8 is skipped as such, not mistaken for a removed file; nothing under it is walked', async () => {
    const latin1 = (name: string) => Buffer.concat([Buffer.from(`${root}/`), Buffer.from([0x63, 0x61, 0x66, 0xe9]), Buffer.from(name)])
    await writeFile(latin1('.md'), 'a document whose name no ledger path can hold\n')
    await writeFile(latin1('.txt'), 'not tracked anyway\n')
    await mkdir(latin1('-folder'))
    await put('ok.md', 'ok\n')
    const scan = await scanWorkspace(root)
    expect(paths(scan)).toEqual(['ok.md'])
    const reason = 'the name is not valid UTF-8, so no ledger path can name it'
    expect(scan.skipped).toEqual([
      { path: 'caf\uFFFD-folder', reason },
      { path: 'caf\uFFFD.md', reason },
    ])
    expect(scan.complete).toBe(true)
  })

  it('a FIFO named like a document is not opened for reading (it would block) and is skipped', async () => {
    execFileSync('mkfifo', [join(root, 'pipe.md')])
    await put('after.md', 'after\n')
    const scan = await scanWorkspace(root)
    expect(paths(scan)).toEqual(['after.md'])
    expect(scan.skipped).toEqual([{ path: 'pipe.md', reason: 'not a regular file' }])
  })

  const asRoot = process.getuid?.() === 0
  it.skipIf(asRoot)('a file that cannot be read is unreadable; a folder that cannot be listed is skipped and the scan not complete', async () => {
    await put('locked.md', 'private\n')
    await put('closed/inside.md', 'unseen\n')
    await chmod(join(root, 'locked.md'), 0o000)
    await chmod(join(root, 'closed'), 0o000)
    try {
      const scan = await scanWorkspace(root)
      expect(scan.files).toEqual([{ path: 'locked.md', isSymlink: false, unreadable: { code: 'unreadable', message: 'the file could not be opened (EACCES)' } }])
      expect(scan.skipped).toEqual([{ path: 'closed', reason: 'the folder could not be listed (EACCES)' }])
      expect(scan.complete).toBe(false)
    } finally {
      await chmod(join(root, 'closed'), 0o700)
    }
  })

  it('refuses a path that is not workspace-relative with / separators', async () => {
    for (const bad of ['', '/etc/passwd.md', '../up.md', 'a/../b.md', 'a//b.md', './a.md', 'a\\b.md']) {
      await expect(scanWorkspaceFile(root, bad)).rejects.toThrow(RangeError)
    }
  })
})

describe('scanWorkspace feeds reconcile (spec §9.4)', () => {
  it('a file moved to a new folder: same id at a new path, so the reconciliation says moved and mints no revision', async () => {
    const text = '# Elena\nShe waited in the rain.\n'
    const at = (n: number) => ({ writer: OUR_WRITER, id: uuid('0198c0e0', n), idem: uuid('0198c0e1', n), at: new Date(Date.UTC(2026, 6, 18, 9, 0, n)) })
    const ledger = [
      composeEntry('object-registered', { object: ELENA, path: 'characters/elena.md', schema: 'character' }, at(1)),
      composeEntry('transformation', saveBody(ELENA, text), at(2)),
    ]
    await put('people/elena.md', withId(ELENA, text, 'character'))
    await put('notes/todo.md', 'no identity yet\n')
    const scan = await scanWorkspace(root)
    const outcome = reconcile(new CoherenceProjection(ledger), scan.files)
    expect(outcome.registrations).toEqual([{ object: ELENA, path: 'people/elena.md', schema: 'character', reason: 'moved' }])
    expect(outcome.revisions).toEqual([])
    expect(outcome.unchanged).toEqual([{ object: ELENA, path: 'people/elena.md' }])
    expect(outcome.absent).toEqual([])
    expect(outcome.ignored).toEqual(['notes/todo.md'])
    expect(outcome.diagnostics).toEqual([])
  })
})
