import { lstat, lutimes, mkdtemp, readdir, symlink, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { removeStaleTemps, STALE_AFTER_MS } from '../../adapters/fs/staleTemps.js'

describe('temp files left by saves killed mid-way', () => {
  it('are removed once stale; fresh ones, look-alikes, symlinks and everything else stay', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'quire-temps-'))
    const outside = await mkdtemp(join(tmpdir(), 'quire-temps-outside-'))
    const old = new Date(Date.now() - 2 * STALE_AFTER_MS)
    const stale = '.quire-save-0123456789abcdef.tmp'
    const fresh = '.quire-save-fedcba9876543210.tmp'
    const lookalike = '.quire-save-notours.tmp'
    const linked = '.quire-save-00000000000000ff.tmp'
    for (const name of [stale, fresh, lookalike, 'notes.md']) await writeFile(join(directory, name), 'x')
    await writeFile(join(outside, 'target'), 'keep me')
    await symlink(join(outside, 'target'), join(directory, linked))
    for (const name of [stale, lookalike, 'notes.md']) await utimes(join(directory, name), old, old)
    await utimes(join(outside, 'target'), old, old)
    // The link itself is old too: only its being a link keeps it.
    await lutimes(join(directory, linked), old, old)

    expect(await removeStaleTemps(directory)).toEqual([stale])
    expect((await readdir(directory)).sort()).toEqual([fresh, lookalike, linked, 'notes.md'].sort())
    expect((await lstat(join(directory, linked))).isSymbolicLink()).toBe(true)
    expect(await readdir(outside)).toEqual(['target'])
    expect(await removeStaleTemps(join(directory, 'missing'))).toEqual([])
  })
})
