/**
 * Names of the temp files a save writes beside its target (atomicWrite.ts) and the sweep removes (staleTemps.ts):
 * `.quire-save-<pid>-<16 hex>.tmp`. The pid of the process that writes it is in the name so a temp whose owner is
 * dead (a save killed mid-way) can be removed at once instead of after an age limit; the random part keeps two saves
 * of one process apart. Names of earlier versions, `.quire-save-<16 hex>.tmp`, carry no owner.
 */
import { randomFillSync } from 'node:crypto'

const CURRENT = /^\.quire-save-([1-9][0-9]{0,9})-[0-9a-f]{16}\.tmp$/
const LEGACY = /^\.quire-save-[0-9a-f]{16}\.tmp$/

/** Random bytes for 64 names, drawn at once: one call to the system's generator per 64 saves instead of one per save. */
const pool = Buffer.alloc(8 * 64)
let used = pool.length

/** A fresh temp name for a save by this process. */
export function newSaveTempName(): string {
  if (used === pool.length) {
    randomFillSync(pool)
    used = 0
  }
  const random = pool.toString('hex', used, used + 8)
  used += 8
  return `.quire-save-${process.pid}-${random}.tmp`
}

/** Anything named like a save's temp file: Quire's own, never opened or written for anyone (pathScope.ts). */
export const isSaveTempName = (name: string): boolean => name.startsWith('.quire-save-') && name.endsWith('.tmp')

/**
 * What a name says about a temp file: written by process `pid`, by an earlier version (owner unknown), or not a
 * save's temp file at all (look-alikes are never touched).
 */
export function parseSaveTempName(name: string): { readonly owner: number } | { readonly owner: 'unknown' } | undefined {
  const current = CURRENT.exec(name)
  if (current) return { owner: Number(current[1]) }
  return LEGACY.test(name) ? { owner: 'unknown' } : undefined
}
