import { readFile, rename, symlink } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { isQuireError } from '../../core/errors.js'
import { PathScope } from '../../adapters/fs/pathScope.js'
import { buildScopeTree, expectRefusal } from '../support/fsFixture.js'
import type { ScopeTree } from '../support/fsFixture.js'
import { useFsTempDirs } from '../support/fsTemp.js'

const newDir = useFsTempDirs('file')
let tree: ScopeTree
let scope: PathScope

beforeAll(async () => {
  tree = await buildScopeTree(await newDir())
  scope = await PathScope.create([tree.ws])
})

describe('SCOPE.1 paths inside an open workspace root or an open document’s directory are accepted', () => {
  it('SCOPE.1 an existing file inside the root resolves to itself', async () => {
    const path = join(tree.ws, 'sub', 'b.md')
    expect(await scope.resolveInScope(path)).toEqual({ requested: path, real: path, exists: true })
  })

  it('SCOPE.1 a new file in an existing folder of the root resolves to the real folder plus its name', async () => {
    const path = join(tree.ws, 'sub', 'new.md')
    expect(await scope.resolveInScope(path)).toEqual({ requested: path, real: path, exists: false })
  })

  it('SCOPE.1 the directory of an open document is a root: its files are in scope, its siblings are not', async () => {
    const withDoc = await PathScope.create([tree.ws, tree.docs])
    expect((await withDoc.resolveInScope(join(tree.docs, 'a.md'))).real).toBe(join(tree.docs, 'a.md'))
    await expectRefusal(() => withDoc.resolveInScope(join(tree.out, 'secret.md')), 'INVALID_PATH', 'outside_scope')
  })

  it('SCOPE.1 `.` and `..` that stay inside are folded; `requested` is the lexical normal form', async () => {
    const resolved = await scope.resolveInScope(`${tree.ws}/sub/./deeper/../../a.md`)
    expect(resolved).toEqual({ requested: join(tree.ws, 'a.md'), real: join(tree.ws, 'a.md'), exists: true })
  })

  it('SCOPE.1 a symlink inside the root to a file inside resolves to the target (the real file to write)', async () => {
    const resolved = await scope.resolveInScope(join(tree.ws, 'link-in-file'))
    expect(resolved).toEqual({ requested: join(tree.ws, 'link-in-file'), real: join(tree.ws, 'a.md'), exists: true })
    expect((await scope.resolveInScope(join(tree.ws, 'link-in-dir', 'new.md'))).real).toBe(join(tree.ws, 'sub', 'new.md'))
  })

  it('SCOPE.1 roots are matched in both their given and realpath forms (a root opened through a symlink)', async () => {
    const viaLink = await PathScope.create([tree.wslink])
    expect(viaLink.roots).toEqual([tree.wslink, tree.ws])
    expect((await viaLink.resolveInScope(join(tree.wslink, 'a.md'))).real).toBe(join(tree.ws, 'a.md'))
    expect((await viaLink.resolveInScope(join(tree.ws, 'a.md'))).real).toBe(join(tree.ws, 'a.md'))
    expect((await viaLink.resolveInScope(join(tree.wslink, 'sub', 'new.md'))).real).toBe(join(tree.ws, 'sub', 'new.md'))
  })

  it('SCOPE.1 a root given with a trailing separator or `.` segments is normalised', async () => {
    const messy = await PathScope.create([`${tree.ws}/./`])
    expect(messy.roots).toEqual([tree.ws])
    expect((await messy.resolveInScope(join(tree.ws, 'a.md'))).exists).toBe(true)
  })
})

describe('SCOPE.2 everything else is INVALID_PATH (the MCP filesystem server CVE cases)', () => {
  it('SCOPE.2 CVE-2025-53110: a prefix sibling `/ws_evil` is outside `/ws`, for existing and new files', async () => {
    await expectRefusal(() => scope.resolveInScope(join(tree.wsEvil, 'secret.md')), 'INVALID_PATH', 'outside_scope')
    await expectRefusal(() => scope.resolveInScope(join(tree.wsEvil, 'new.md')), 'INVALID_PATH', 'outside_scope')
    await expectRefusal(() => scope.resolveInScope(`${tree.ws}_evil`), 'INVALID_PATH', 'outside_scope')
    await expectRefusal(() => scope.resolveInScope(`${tree.ws}.md`), 'INVALID_PATH', 'outside_scope')
  })

  it('SCOPE.2 CVE-2025-53109: a symlink inside the root to a file outside is refused, not resolved by its parent', async () => {
    const details = await expectRefusal(() => scope.resolveInScope(join(tree.ws, 'link-out-file')), 'INVALID_PATH', 'symlink_outside_scope')
    expect(details['real']).toBe(join(tree.out, 'secret.md'))
  })

  it('SCOPE.2 CVE-2025-53109: a symlink inside the root to a directory outside is refused, for existing and new files', async () => {
    await expectRefusal(() => scope.resolveInScope(join(tree.ws, 'link-out-dir', 'secret.md')), 'INVALID_PATH', 'symlink_outside_scope')
    await expectRefusal(() => scope.resolveInScope(join(tree.ws, 'link-out-dir', 'new.md')), 'INVALID_PATH', 'symlink_outside_scope')
    await expectRefusal(() => scope.resolveInScope(join(tree.ws, 'link-out-dir')), 'INVALID_PATH', 'symlink_outside_scope')
    await expectRefusal(() => scope.resolveInScope(join(tree.ws, 'rel-up', 'secret.md')), 'INVALID_PATH', 'symlink_outside_scope')
  })

  it('SCOPE.2 a symlinked parent directory: `link/../x` goes where the kernel goes, not where the string suggests', async () => {
    // Lexically `/ws/link-out-dir/../a.md` is `/ws/a.md`; the kernel follows the link to T/out first, then `..` to T.
    const requested = `${tree.ws}/link-out-dir/../ws_evil/a.md`
    await expectRefusal(() => scope.resolveInScope(requested), 'INVALID_PATH', 'symlink_outside_scope')
    await expectRefusal(() => scope.resolveInScope(`${tree.ws}/link-out-dir/../out/new.md`), 'INVALID_PATH', 'symlink_outside_scope')
  })

  it('SCOPE.2 `..` segments that leave the root are refused lexically, before touching the file system', async () => {
    await expectRefusal(() => scope.resolveInScope(`${tree.ws}/../out/secret.md`), 'INVALID_PATH', 'outside_scope')
    await expectRefusal(() => scope.resolveInScope(`${tree.ws}/sub/../../ws_evil/a.md`), 'INVALID_PATH', 'outside_scope')
    await expectRefusal(() => scope.resolveInScope(`${tree.ws}/..`), 'INVALID_PATH', 'outside_scope')
    // A path from outside that leads back in through a symlink is refused too: the lexical check comes first.
    await expectRefusal(() => scope.resolveInScope(join(tree.out, 'back', 'a.md')), 'INVALID_PATH', 'outside_scope')
  })

  it('SCOPE.2 relative and empty paths are refused, whatever the current directory', async () => {
    for (const path of ['a.md', './a.md', '../ws/a.md', 'ws/a.md', '.', '~/a.md']) {
      await expectRefusal(() => scope.resolveInScope(path), 'INVALID_PATH', 'not_absolute')
    }
    await expectRefusal(() => scope.resolveInScope(''), 'INVALID_PATH', 'empty')
    await expectRefusal(() => scope.resolveInScope(42 as unknown as string), 'INVALID_PATH', 'not_a_string')
  })

  it('SCOPE.2 a NUL byte anywhere is refused (the kernel would stop at it)', async () => {
    await expectRefusal(() => scope.resolveInScope(`${tree.ws}/a.md\0`), 'INVALID_PATH', 'nul_byte')
    await expectRefusal(() => scope.resolveInScope(`${tree.ws}/a.md\0/../../out/secret.md`), 'INVALID_PATH', 'nul_byte')
    await expect(PathScope.create([`${tree.ws}\0`])).rejects.toSatisfy((error) => isQuireError(error, 'INVALID_PATH'))
  })

  it('SCOPE.2 paths are never trimmed: surrounding spaces are part of the name', async () => {
    await expectRefusal(() => scope.resolveInScope(` ${tree.ws}/a.md`), 'INVALID_PATH', 'not_absolute')
    const spaced = await scope.resolveInScope(`${tree.ws}/a.md `)
    expect(spaced).toEqual({ requested: `${tree.ws}/a.md `, real: `${tree.ws}/a.md `, exists: false })
    await expectRefusal(() => scope.resolveInScope(`"${tree.ws}/a.md"`), 'INVALID_PATH', 'not_absolute')
  })

  it('SCOPE.2 a dangling symlink as the target is refused, wherever it points', async () => {
    await expectRefusal(() => scope.resolveInScope(join(tree.ws, 'dangling-out')), 'INVALID_PATH', 'dangling_symlink')
    await expectRefusal(() => scope.resolveInScope(join(tree.ws, 'dangling-in')), 'INVALID_PATH', 'dangling_symlink')
  })

  it('SCOPE.2 only ENOENT falls back to the parent: ELOOP and ENOTDIR are refusals', async () => {
    const loop = await expectRefusal(() => scope.resolveInScope(join(tree.ws, 'loop')), 'INVALID_PATH', 'unresolvable')
    expect(loop['cause']).toBe('ELOOP')
    await expectRefusal(() => scope.resolveInScope(join(tree.ws, 'loop', 'new.md')), 'INVALID_PATH', 'unresolvable')
    const notDir = await expectRefusal(() => scope.resolveInScope(join(tree.ws, 'a.md', 'new.md')), 'INVALID_PATH', 'unresolvable')
    expect(notDir['cause']).toBe('ENOTDIR')
  })

  it('SCOPE.2 a new file needs an existing real parent and a file name', async () => {
    await expectRefusal(() => scope.resolveInScope(join(tree.ws, 'nope', 'new.md')), 'INVALID_PATH', 'parent_missing')
    await expectRefusal(() => scope.resolveInScope(`${tree.ws}/new.md/`), 'INVALID_PATH', 'not_a_file_name')
  })

  it('SCOPE.2 the refusal is a QuireError envelope naming the path', async () => {
    const details = await expectRefusal(() => scope.resolveInScope(join(tree.out, 'secret.md')), 'INVALID_PATH', 'outside_scope')
    expect(details['path']).toBe(join(tree.out, 'secret.md'))
  })
})

describe('SCOPE.3 with no workspace and no open document every path is refused', () => {
  it('SCOPE.3 the empty scope refuses every absolute path, even `/`', async () => {
    for (const empty of [PathScope.empty, await PathScope.create([])]) {
      expect(empty.isEmpty).toBe(true)
      for (const path of ['/', join(tree.ws, 'a.md'), join(tree.ws, 'new.md')]) {
        await expectRefusal(() => empty.resolveInScope(path), 'INVALID_PATH', 'no_scope')
      }
    }
  })

  it('SCOPE.3 a root that no longer exists matches nothing real', async () => {
    const gone = await PathScope.create([join(tree.T, 'gone')])
    expect(gone.isEmpty).toBe(false)
    await expectRefusal(() => gone.resolveInScope(join(tree.T, 'gone', 'a.md')), 'INVALID_PATH', 'parent_missing')
  })
})

describe('SCOPE.5 the check reflects the file system at the moment it runs', () => {
  it('SCOPE.5 a file moved out and replaced by a symlink to outside is refused on the next check', async () => {
    const dir = await newDir()
    const t = await buildScopeTree(dir)
    const local = await PathScope.create([t.ws])
    const target = join(t.ws, 'sub', 'b.md')
    expect((await local.resolveInScope(target)).real).toBe(target)
    await rename(target, join(t.out, 'b.md'))
    await symlink(join(t.out, 'b.md'), target)
    await expectRefusal(() => local.resolveInScope(target), 'INVALID_PATH', 'symlink_outside_scope')
    expect(await readFile(join(t.out, 'b.md'), 'utf8')).toBe('inside b\n')
  })
})

describe('SCOPE.1 a scope over canonically stored roots (PathScope.canonical) counts a root only while it resolves to itself', () => {
  it('SCOPE.1 a file inside a stored root, and a link inside it to another of its files, resolve as the full check does', async () => {
    const canonical = await PathScope.canonical([tree.ws])
    const path = join(tree.ws, 'sub', 'b.md')
    expect(await canonical.resolveInScope(path)).toEqual({ requested: path, real: path, exists: true })
    const link = join(tree.ws, 'link-in-file')
    expect(await canonical.resolveInScope(link)).toEqual({ requested: link, real: join(tree.ws, 'a.md'), exists: true })
    expect(await canonical.resolveInScope(join(tree.ws, 'sub', 'new.md'))).toEqual({ requested: join(tree.ws, 'sub', 'new.md'), real: join(tree.ws, 'sub', 'new.md'), exists: false })
  })

  it('SCOPE.1 a root stored in a non-canonical form (a symlink) contributes nothing, not even the files it leads to', async () => {
    const canonical = await PathScope.canonical([tree.wslink])
    await expectRefusal(() => canonical.resolveInScope(join(tree.wslink, 'a.md')), 'INVALID_PATH', 'no_scope')
    // Reached through the link, a file of the other root is that root's: in scope by it, not by the link.
    const withWs = await PathScope.canonical([tree.ws, join(tree.ws, 'link-in-dir')])
    expect((await withWs.resolveInScope(join(tree.ws, 'link-in-dir', 'b.md'))).real).toBe(join(tree.ws, 'sub', 'b.md'))
    const withOut = await PathScope.canonical([tree.out, join(tree.ws, 'link-in-dir')])
    await expectRefusal(() => withOut.resolveInScope(join(tree.ws, 'link-in-dir', 'b.md')), 'INVALID_PATH', 'outside_scope')
  })

  it('SCOPE.5 a root swapped for a symlink after it was stored: its files are refused, also when the link leads into another root', async () => {
    const t = await buildScopeTree(await newDir())
    const second = join(t.T, 'second')
    await rename(t.docs, second)
    const canonical = await PathScope.canonical([t.ws, second])
    expect((await canonical.resolveInScope(join(second, 'a.md'))).real).toBe(join(second, 'a.md'))
    await rename(second, join(t.T, 'moved-away'))
    await symlink(join(t.ws, 'sub'), second)
    // Before the swap the path was the root's; now it leads into the first root, but through a root that is no more.
    await expectRefusal(() => canonical.resolveInScope(join(second, 'b.md')), 'INVALID_PATH', 'outside_scope')
    const onlySecond = await PathScope.canonical([second])
    await expectRefusal(() => onlySecond.resolveInScope(join(second, 'b.md')), 'INVALID_PATH', 'no_scope')
  })

  it('SCOPE.1 Quire\'s own data stays refused inside a stored root', async () => {
    const canonical = await PathScope.canonical([tree.ws], [join(tree.ws, 'sub')])
    await expectRefusal(() => canonical.resolveInScope(join(tree.ws, 'sub', 'b.md')), 'INVALID_PATH', 'quire_data')
    await expectRefusal(() => canonical.resolveInScope(join(tree.ws, 'link-in-dir', 'b.md')), 'INVALID_PATH', 'quire_data')
  })
})
