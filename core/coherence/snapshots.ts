/**
 * The content-addressed snapshot store of VMark coherence format 0 (spec §4): `.vmark/snapshots/sha256/<aa>/<62 hex>`
 * holding exactly the bytes that were hashed, so every snapshot verifies itself. Written to `snapshots/tmp/<uuid>`,
 * fsync'd and renamed into place, folders made before every write (git prunes empty ones); an existing snapshot is
 * never rewritten, none is ever deleted. A read that finds one missing or not matching its key fails loudly.
 */
import { createHash } from 'node:crypto'
import { mkdir, open, readFile, rename, stat, unlink } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { QuireError } from '../errors.js'
import { snapshotPath, type WorkspaceLayout } from './layout.js'
import { newUuidV7 } from './uuid.js'

const hashOf = (bytes: Uint8Array): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false
    throw error
  }
}

/**
 * Stores `bytes` (the identity-masked canonical bytes of a text, or a binary's raw bytes: hashing.ts) under their
 * hash and returns the hash. Call it before the ledger append that references the hash (spec §5.2).
 */
export async function writeSnapshot(layout: WorkspaceLayout, bytes: Uint8Array): Promise<string> {
  const contentHash = hashOf(bytes)
  const target = snapshotPath(layout, contentHash)
  if (await exists(target)) return contentHash
  await mkdir(layout.snapshotTemps, { recursive: true })
  await mkdir(dirname(target), { recursive: true })
  const temp = join(layout.snapshotTemps, newUuidV7())
  const file = await open(temp, 'wx', 0o644)
  try {
    await file.writeFile(bytes)
    await file.sync()
  } finally {
    await file.close()
  }
  if (await exists(target)) {
    await unlink(temp)
    return contentHash
  }
  await rename(temp, target)
  try {
    const directory = await open(dirname(target), 'r')
    try {
      await directory.sync()
    } finally {
      await directory.close()
    }
  } catch {
    // Best effort (spec §4.3): the rename is already visible; only its durability across a power cut is at stake.
  }
  return contentHash
}

/** The bytes stored under `contentHash`; QuireError('SNAPSHOT_UNAVAILABLE') when missing or not matching it. */
export async function readSnapshot(layout: WorkspaceLayout, contentHash: string): Promise<Buffer> {
  const path = snapshotPath(layout, contentHash)
  let bytes: Buffer
  try {
    bytes = await readFile(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new QuireError('SNAPSHOT_UNAVAILABLE', `no snapshot of ${contentHash} in ${layout.snapshots}`, { contentHash, reason: 'missing' })
    }
    throw error
  }
  const actual = hashOf(bytes)
  if (actual !== contentHash) {
    throw new QuireError('SNAPSHOT_UNAVAILABLE', `the snapshot of ${contentHash} holds other content (${actual})`, { contentHash, reason: 'hash-mismatch' })
  }
  return bytes
}
