import { execFileSync } from 'node:child_process'
import { mkdir, mkdtemp, readFile, readdir, realpath, rm, stat, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createFolder, listFolder, renameEntry } from '../../adapters/fs/folderEntries.js'
import { PathScope } from '../../adapters/fs/pathScope.js'
import { newSaveTempName } from '../../adapters/fs/saveTemp.js'

/** The file tree's operations on the real file system (adapters/fs/folderEntries.ts). */
describe('folder entries', () => {
  let base: string
  let root: string

  beforeEach(async () => {
    base = await realpath(await mkdtemp(join(tmpdir(), 'quire-entries-')))
    root = join(base, 'root')
    await mkdir(join(root, 'sub'), { recursive: true })
    await mkdir(join(base, 'outside'))
    await writeFile(join(root, 'b.md'), 'b\n')
    await writeFile(join(root, 'sub', 'a.md'), 'a\n')
    await writeFile(join(base, 'outside', 'x.md'), 'x\n')
  })
  afterEach(() => rm(base, { recursive: true, force: true }))

  it('lists what the scope lets through: folders first, links at their real path, nothing outside, no temps or FIFOs', async () => {
    await symlink(join(root, 'sub', 'a.md'), join(root, 'link-in.md'))
    await symlink(join(base, 'outside'), join(root, 'link-out'))
    await writeFile(join(root, newSaveTempName()), 'half a save')
    execFileSync('mkfifo', [join(root, 'pipe')])
    const scope = await PathScope.canonical([root])
    const { entries, truncated } = await listFolder(root, (path) => scope.resolveInScope(path))
    expect(truncated).toBe(false)
    expect(entries).toEqual([
      { name: 'sub', path: join(root, 'sub'), type: 'directory' },
      { name: 'b.md', path: join(root, 'b.md'), type: 'file' },
      { name: 'link-in.md', path: join(root, 'sub', 'a.md'), type: 'file' },
    ])
  })

  it('creates a folder only where nothing is', async () => {
    await createFolder(join(root, 'new'))
    expect((await stat(join(root, 'new'))).isDirectory()).toBe(true)
    await expect(createFolder(join(root, 'new'))).rejects.toMatchObject({ code: 'ALREADY_EXISTS' })
    await expect(createFolder(join(root, 'b.md'))).rejects.toMatchObject({ code: 'ALREADY_EXISTS' })
    expect(await readFile(join(root, 'b.md'), 'utf8')).toBe('b\n')
  })

  it('renames files and folders, never over anything (an empty folder included), and never a folder into itself', async () => {
    await renameEntry(join(root, 'b.md'), join(root, 'sub', 'c.md'))
    expect(await readFile(join(root, 'sub', 'c.md'), 'utf8')).toBe('b\n')
    await expect(stat(join(root, 'b.md'))).rejects.toMatchObject({ code: 'ENOENT' })
    await expect(renameEntry(join(root, 'sub', 'c.md'), join(root, 'sub', 'a.md'))).rejects.toMatchObject({ code: 'ALREADY_EXISTS' })
    expect(await readFile(join(root, 'sub', 'a.md'), 'utf8')).toBe('a\n')
    expect(await readFile(join(root, 'sub', 'c.md'), 'utf8')).toBe('b\n')

    await mkdir(join(root, 'empty'))
    await expect(renameEntry(join(root, 'sub'), join(root, 'empty'))).rejects.toMatchObject({ code: 'ALREADY_EXISTS' })
    expect((await readdir(join(root, 'sub'))).sort()).toEqual(['a.md', 'c.md'])
    await expect(renameEntry(join(root, 'sub'), join(root, 'sub', 'deeper'))).rejects.toMatchObject({ code: 'INVALID_PATH' })
    expect((await readdir(join(root, 'sub'))).sort()).toEqual(['a.md', 'c.md'])
    await renameEntry(join(root, 'sub'), join(root, 'moved'))
    expect((await readdir(join(root, 'moved'))).sort()).toEqual(['a.md', 'c.md'])
    expect((await readdir(root)).sort()).toEqual(['empty', 'moved'])
  })
})
