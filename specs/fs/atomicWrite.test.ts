import { chmod, lstat, mkdir, readdir, readFile, readlink, rename, rm, stat, symlink, unlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createFileExclusive, writeFileAtomic } from '../../adapters/fs/atomicWrite.js'
import type { WriteFaults } from '../../adapters/fs/atomicWrite.js'
import { PathScope } from '../../adapters/fs/pathScope.js'
import { expectRefusal } from '../support/fsFixture.js'
import { useFsTempDirs } from '../support/fsTemp.js'

const newDir = useFsTempDirs()

const umask = process.umask()

/** A workspace `ws` with `doc.md`, and an `out` directory next to it holding `secret.md`. */
async function workspace(): Promise<{ ws: string; out: string; doc: string; secret: string }> {
  const root = await newDir()
  const ws = join(root, 'ws')
  const out = join(root, 'out')
  await mkdir(ws)
  await mkdir(out)
  await writeFile(join(ws, 'doc.md'), 'old content\n')
  await writeFile(join(out, 'secret.md'), 'secret\n')
  return { ws, out, doc: join(ws, 'doc.md'), secret: join(out, 'secret.md') }
}

const tempFiles = async (dir: string): Promise<string[]> => (await readdir(dir)).filter((name) => name.includes('.quire-save-'))

describe('atomic save (DESIGN.md §7): temp file, fsync, rename, fsync the directory', () => {
  it('SAVE.1 replaces the content and leaves no temp file behind', async () => {
    const { ws, doc } = await workspace()
    await writeFileAtomic(doc, 'new content\n')
    expect(await readFile(doc, 'utf8')).toBe('new content\n')
    await writeFileAtomic(doc, new Uint8Array([0xe6, 0xbc, 0xa2, 0x0a]))
    expect(await readFile(doc, 'utf8')).toBe('漢\n')
    expect(await readdir(ws)).toEqual(['doc.md'])
  })

  it('SAVE.1 keeps the permission bits of the file it replaces; a new file gets 0666 minus the umask (as any editor)', async () => {
    const { ws, doc } = await workspace()
    await chmod(doc, 0o600)
    await writeFileAtomic(doc, 'private\n')
    expect((await stat(doc)).mode & 0o7777).toBe(0o600)
    await chmod(doc, 0o755)
    await writeFileAtomic(doc, '#!/bin/sh\n')
    expect((await stat(doc)).mode & 0o7777).toBe(0o755)
    const fresh = join(ws, 'fresh.md')
    await writeFileAtomic(fresh, 'fresh\n')
    expect((await stat(fresh)).mode & 0o7777).toBe(0o666 & ~umask)
  })

  it('SAVE.1 a failure before the rename leaves the old content intact and removes the temp file', async () => {
    const { ws, doc } = await workspace()
    for (const step of ['afterTempCreated', 'afterTempWritten', 'beforeRename'] as const) {
      const faults: WriteFaults = {
        [step]: () => {
          throw new Error(`injected at ${step}`)
        },
      }
      await expect(writeFileAtomic(doc, 'never\n', { faults })).rejects.toThrow(`injected at ${step}`)
      expect(await readFile(doc, 'utf8')).toBe('old content\n')
      expect(await readdir(ws)).toEqual(['doc.md'])
    }
  })

  it('SAVE.1 the target is never half-written: a reader during the save sees the old bytes, then the new', async () => {
    const { doc } = await workspace()
    const big = 'x'.repeat(4 * 1024 * 1024)
    const seen: string[] = []
    await writeFileAtomic(doc, big, {
      faults: {
        afterTempCreated: async () => void seen.push(await readFile(doc, 'utf8')),
        afterTempWritten: async () => void seen.push(await readFile(doc, 'utf8')),
        afterPlaced: async () => void seen.push(await readFile(doc, 'utf8')),
      },
    })
    expect(seen.map((content) => content.length)).toEqual(['old content\n'.length, 'old content\n'.length, big.length])
  })

  it('SCOPE.5 a target swapped for a symlink between the scope check and the rename: the link itself is replaced', async () => {
    const { ws, doc, secret } = await workspace()
    const scope = await PathScope.create([ws])
    const { real } = await scope.resolveInScope(doc)
    await writeFileAtomic(real, 'saved\n', {
      faults: {
        beforeRename: async () => {
          await unlink(doc)
          await symlink(secret, doc)
        },
      },
    })
    expect((await lstat(doc)).isFile()).toBe(true)
    expect(await readFile(doc, 'utf8')).toBe('saved\n')
    expect(await readFile(secret, 'utf8')).toBe('secret\n')
    expect(await readdir(ws)).toEqual(['doc.md'])
  })

  it('SCOPE.5 a symlink swapped in after the check, before the write starts, is replaced too (never followed)', async () => {
    const { ws, doc, secret, out } = await workspace()
    const { real } = await (await PathScope.create([ws])).resolveInScope(doc)
    await unlink(doc)
    await symlink(secret, doc)
    await writeFileAtomic(real, 'saved\n')
    expect(await readFile(doc, 'utf8')).toBe('saved\n')
    expect(await readFile(secret, 'utf8')).toBe('secret\n')
    expect(await readdir(out)).toEqual(['secret.md'])
  })

  it('SCOPE.5 a parent directory swapped for a symlink to outside during the save: refused, nothing written outside', async () => {
    const { ws, out, secret } = await workspace()
    await mkdir(join(ws, 'sub'))
    const target = join(ws, 'sub', 'note.md')
    await writeFile(target, 'note\n')
    const { real } = await (await PathScope.create([ws])).resolveInScope(target)
    await expectRefusal(
      () =>
        writeFileAtomic(real, 'saved\n', {
          faults: {
            beforeRename: async () => {
              await rename(join(ws, 'sub'), join(ws, 'sub.moved'))
              await symlink(out, join(ws, 'sub'))
            },
          },
        }),
      'INVALID_PATH',
      'parent_changed',
    )
    expect(await readdir(out)).toEqual(['secret.md'])
    expect(await readFile(secret, 'utf8')).toBe('secret\n')
    expect(await readFile(join(ws, 'sub.moved', 'note.md'), 'utf8')).toBe('note\n')
  })

  it('SCOPE.5 a parent swapped before the write starts is refused before anything lands outside', async () => {
    const { ws, out } = await workspace()
    await mkdir(join(ws, 'sub'))
    const { real } = await (await PathScope.create([ws])).resolveInScope(join(ws, 'sub', 'new.md'))
    await rm(join(ws, 'sub'), { recursive: true })
    await symlink(out, join(ws, 'sub'))
    await expectRefusal(() => writeFileAtomic(real, 'saved\n'), 'INVALID_PATH', 'parent_changed')
    await expectRefusal(() => createFileExclusive(real, 'saved\n'), 'INVALID_PATH', 'parent_changed')
    expect(await readdir(out)).toEqual(['secret.md'])
  })

  it('refuses a path that is not a normalised absolute path (callers must pass ScopedPath.real)', async () => {
    const { ws } = await workspace()
    for (const path of ['doc.md', `${ws}/./doc.md`, `${ws}/doc.md/`, `${ws}//doc.md`, '']) {
      await expectRefusal(() => writeFileAtomic(path, 'x'), 'INVALID_PATH', 'not_normalised')
      await expectRefusal(() => createFileExclusive(path, 'x'), 'INVALID_PATH', 'not_normalised')
    }
  })
})

describe('save_as never replaces a file it does not own (WS.SAVE_AS.6–8): link(2) of the temp file', () => {
  it('WS.SAVE_AS.7 creates a new file with the content, 0666 minus the umask, and no temp file left', async () => {
    const { ws } = await workspace()
    const target = join(ws, 'new.md')
    await createFileExclusive(target, 'brand new\n')
    expect(await readFile(target, 'utf8')).toBe('brand new\n')
    expect((await stat(target)).mode & 0o7777).toBe(0o666 & ~umask)
    expect((await stat(target)).nlink).toBe(1)
    expect((await readdir(ws)).sort()).toEqual(['doc.md', 'new.md'])
  })

  it('WS.SAVE_AS.6 an existing file is refused with APPROVAL_REQUIRED and keeps its contents', async () => {
    const { ws, doc } = await workspace()
    const details = await expectRefusal(() => createFileExclusive(doc, 'overwrite?\n'), 'APPROVAL_REQUIRED', 'exists')
    expect(details['path']).toBe(doc)
    expect(await readFile(doc, 'utf8')).toBe('old content\n')
    expect(await readdir(ws)).toEqual(['doc.md'])
  })

  it('WS.SAVE_AS.6 an existing dangling symlink is refused; the link stays and nothing appears where it points', async () => {
    const { ws, out } = await workspace()
    const link = join(ws, 'dangling.md')
    await symlink(join(out, 'created-through-link.md'), link)
    await expectRefusal(() => createFileExclusive(link, 'x\n'), 'APPROVAL_REQUIRED', 'exists')
    expect(await readlink(link)).toBe(join(out, 'created-through-link.md'))
    expect(await readdir(out)).toEqual(['secret.md'])
  })

  it('WS.SAVE_AS.6 an existing directory is refused', async () => {
    const { ws } = await workspace()
    await mkdir(join(ws, 'folder.md'))
    await expectRefusal(() => createFileExclusive(join(ws, 'folder.md'), 'x\n'), 'APPROVAL_REQUIRED', 'exists')
    expect((await stat(join(ws, 'folder.md'))).isDirectory()).toBe(true)
  })

  it('WS.SAVE_AS.7 a file created while the save runs wins: refused, its contents kept, no temp file left', async () => {
    const { ws } = await workspace()
    const target = join(ws, 'race.md')
    await expectRefusal(
      () => createFileExclusive(target, 'from quire\n', { faults: { beforeLink: () => writeFile(target, 'from someone else\n') } }),
      'APPROVAL_REQUIRED',
      'exists',
    )
    expect(await readFile(target, 'utf8')).toBe('from someone else\n')
    expect((await readdir(ws)).sort()).toEqual(['doc.md', 'race.md'])
  })

  it('WS.SAVE_AS.7 a dangling symlink to outside planted while the save runs is not followed', async () => {
    const { ws, out } = await workspace()
    const target = join(ws, 'race.md')
    const planted = join(out, 'planted.md')
    await expectRefusal(
      () => createFileExclusive(target, 'from quire\n', { faults: { afterTempWritten: () => symlink(planted, target) } }),
      'APPROVAL_REQUIRED',
      'exists',
    )
    expect(await readdir(out)).toEqual(['secret.md'])
    expect(await readlink(target)).toBe(planted)
    expect(await tempFiles(ws)).toEqual([])
  })

  it('WS.SAVE_AS.8 a file system that cannot link is refused rather than overwritten (link(2) EPERM)', async () => {
    const { ws } = await workspace()
    const target = join(ws, 'nolink.md')
    // link(2) of a directory fails with EPERM on Linux: the same answer a file system without hard links gives.
    const details = await expectRefusal(
      () =>
        createFileExclusive(target, 'x\n', {
          faults: {
            beforeLink: async ({ temp }) => {
              await unlink(temp)
              await mkdir(temp)
            },
          },
        }),
      'INVALID_PATH',
      'no_exclusive_create',
    )
    expect(details['cause']).toBe('EPERM')
    await expect(lstat(target)).rejects.toMatchObject({ code: 'ENOENT' })
  })

  it('WS.SAVE_AS.7 a failure at any step before the link leaves nothing at the target and no temp file', async () => {
    const { ws } = await workspace()
    const target = join(ws, 'new.md')
    for (const step of ['afterTempCreated', 'afterTempWritten', 'beforeLink'] as const) {
      const faults: WriteFaults = {
        [step]: () => {
          throw new Error(`injected at ${step}`)
        },
      }
      await expect(createFileExclusive(target, 'x\n', { faults })).rejects.toThrow(`injected at ${step}`)
      await expect(lstat(target)).rejects.toMatchObject({ code: 'ENOENT' })
      expect(await readdir(ws)).toEqual(['doc.md'])
    }
  })
})
