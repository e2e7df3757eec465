import { mkdir, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { expect } from 'vitest'
import { isQuireError } from '../../core/errors.js'

/**
 * The tree the path-scope tests run against, under a real temp dir `T`:
 *
 *   T/ws/                  workspace root        T/ws_evil/             prefix sibling of the root (CVE-2025-53110)
 *     a.md                                         a.md, secret.md
 *     sub/b.md, sub/deeper/                      T/out/                 outside every root
 *     sub/up -> ..          (relative, inside)     secret.md
 *     link-in-file -> T/ws/a.md                    back -> T/ws           (outside, pointing in)
 *     link-in-dir -> T/ws/sub                      docs/a.md              (directory of an open document)
 *     link-out-file -> T/out/secret.md           T/wslink -> ws         (a root opened through a symlink)
 *     link-out-dir -> T/out
 *     rel-up -> ../out      (relative, outside)
 *     dangling-in -> T/ws/nope.md
 *     dangling-out -> T/out/nope.md
 *     loop -> loop
 */
export interface ScopeTree {
  readonly T: string
  readonly ws: string
  readonly wsEvil: string
  readonly out: string
  readonly docs: string
  readonly wslink: string
}

export async function buildScopeTree(T: string): Promise<ScopeTree> {
  const ws = join(T, 'ws')
  const out = join(T, 'out')
  const wsEvil = join(T, 'ws_evil')
  await mkdir(join(ws, 'sub', 'deeper'), { recursive: true })
  await mkdir(join(out, 'docs'), { recursive: true })
  await mkdir(wsEvil)
  await writeFile(join(ws, 'a.md'), 'inside a\n')
  await writeFile(join(ws, 'sub', 'b.md'), 'inside b\n')
  await writeFile(join(out, 'secret.md'), 'secret\n')
  await writeFile(join(out, 'docs', 'a.md'), 'doc a\n')
  await writeFile(join(wsEvil, 'a.md'), 'evil a\n')
  await writeFile(join(wsEvil, 'secret.md'), 'evil secret\n')
  await symlink('..', join(ws, 'sub', 'up'))
  await symlink(join(ws, 'a.md'), join(ws, 'link-in-file'))
  await symlink(join(ws, 'sub'), join(ws, 'link-in-dir'))
  await symlink(join(out, 'secret.md'), join(ws, 'link-out-file'))
  await symlink(out, join(ws, 'link-out-dir'))
  await symlink('../out', join(ws, 'rel-up'))
  await symlink(join(ws, 'nope.md'), join(ws, 'dangling-in'))
  await symlink(join(out, 'nope.md'), join(ws, 'dangling-out'))
  await symlink('loop', join(ws, 'loop'))
  await symlink(ws, join(out, 'back'))
  await symlink('ws', join(T, 'wslink'))
  return { T, ws, wsEvil, out, docs: join(out, 'docs'), wslink: join(T, 'wslink') }
}

/** Runs `action` and expects a QuireError with `code` (and `details.reason`, when given); returns its details. */
export async function expectRefusal(
  action: () => Promise<unknown>,
  code: string,
  reason?: string,
): Promise<Readonly<Record<string, unknown>>> {
  let caught: unknown
  try {
    await action()
  } catch (error) {
    caught = error
  }
  if (!isQuireError(caught, code)) throw new Error(`expected QuireError ${code}, got ${caught instanceof Error ? caught.stack : String(caught)}`)
  if (reason !== undefined) expect(caught.details['reason']).toBe(reason)
  return caught.details
}
