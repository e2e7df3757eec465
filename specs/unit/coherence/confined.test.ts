/**
 * The ledger's folders are walked from the workspace root without following a link, and checked again at the write
 * (issue 25 item 2): a folder swapped for a link after it was opened is refused, and nothing is created where the link
 * points; writes through the opened folder stay in the folder that was checked.
 */
import { constants } from 'node:fs'
import { mkdir, mkdtemp, readdir, rename, rm, symlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ConfinedDirectory, isUnsafeLedgerPath } from '../../../core/coherence/confined.js'

let base: string
let root: string
let outside: string
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'quire-confined-'))
  root = join(base, 'workspace')
  outside = join(base, 'outside')
  await mkdir(join(root, '.vmark', 'ledger'), { recursive: true })
  await mkdir(outside)
})
afterEach(async () => {
  await rm(base, { recursive: true, force: true })
})

describe('ConfinedDirectory', () => {
  it('a folder swapped for a link after it was opened is refused at the write, and nothing lands where the link points', async () => {
    const ledger = (await ConfinedDirectory.open(root, ['.vmark', 'ledger'], { create: false }))!
    try {
      await rename(join(root, '.vmark', 'ledger'), join(root, '.vmark', 'elsewhere'))
      await symlink(outside, join(root, '.vmark', 'ledger'))
      const refusal = await ledger.file('segment.jsonl', constants.O_RDWR | constants.O_APPEND | constants.O_CREAT, { appending: true }).catch((error: unknown) => error)
      expect(isUnsafeLedgerPath(refusal) && refusal.why, String(refusal)).toBe('moved')
      expect(isUnsafeLedgerPath(refusal) && refusal.path).toBe('.vmark/ledger')
      expect(await readdir(outside)).toEqual([])
      expect(await readdir(join(root, '.vmark', 'elsewhere'))).toEqual([])
    } finally {
      await ledger.close()
    }
    // Walked again, the link is refused outright.
    const again = await ConfinedDirectory.open(root, ['.vmark', 'ledger'], { create: true }).catch((error: unknown) => error)
    expect(isUnsafeLedgerPath(again) && again.why).toBe('link')
    expect(await readdir(outside)).toEqual([])
  })

  it('a missing folder is made only when asked, one level at a time; the workspace folder itself must be where it was', async () => {
    expect(await ConfinedDirectory.open(root, ['.vmark', 'snapshots', 'sha256'], { create: false })).toBeUndefined()
    const made = (await ConfinedDirectory.open(root, ['.vmark', 'snapshots', 'sha256'], { create: true }))!
    expect(made.relative).toBe('.vmark/snapshots/sha256')
    await made.close()
    await symlink(root, join(base, 'workspace-link'))
    const throughLink = await ConfinedDirectory.open(join(base, 'workspace-link'), ['.vmark'], { create: false }).catch((error: unknown) => error)
    expect(isUnsafeLedgerPath(throughLink) && throughLink.why).toBe('link')
  })
})
