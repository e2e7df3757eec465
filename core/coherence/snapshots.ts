/**
 * The content-addressed snapshot store of VMark coherence format 0 (spec §4): `.vmark/snapshots/sha256/<aa>/<62 hex>`
 * holding exactly the bytes that were hashed, so every snapshot verifies itself. Written to `snapshots/tmp/<uuid>`,
 * fsync'd and renamed into place, folders made before every write (git prunes empty ones); an existing snapshot is
 * never rewritten, none is ever deleted. A read that finds one missing or not matching its key fails loudly.
 */
import { createHash } from 'node:crypto'
import { constants } from 'node:fs'
import { readFile, rename, unlink } from 'node:fs/promises'
import { QuireError } from '../errors.js'
import { ConfinedDirectory } from './confined.js'
import { LAYOUT_PARTS, snapshotPath, type WorkspaceLayout } from './layout.js'
import { newUuidV7 } from './uuid.js'

const hashOf = (bytes: Uint8Array): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`

/**
 * Stores `bytes` (the identity-masked canonical bytes of a text, or a binary's raw bytes: hashing.ts) under their
 * hash and returns the hash. Call it before the ledger append that references the hash (spec §5.2). Every folder on
 * the way is reached without following a link, and the temp file and the rename go through the folders' descriptors
 * (confined.ts): a `snapshots` link never receives the document's text.
 */
export async function writeSnapshot(layout: WorkspaceLayout, bytes: Uint8Array): Promise<string> {
  const contentHash = hashOf(bytes)
  const hex = contentHash.slice('sha256:'.length)
  const name = hex.slice(2)
  const snapshots = (await ConfinedDirectory.open(layout.root, LAYOUT_PARTS.snapshots, { create: true }))!
  const opened: ConfinedDirectory[] = [snapshots]
  try {
    const algorithm = (await snapshots.child('sha256', { create: true }))!
    opened.push(algorithm)
    const target = (await algorithm.child(hex.slice(0, 2), { create: true }))!
    opened.push(target)
    if (await target.assertNotLink(name)) return contentHash
    const temps = (await snapshots.child('tmp', { create: true }))!
    opened.push(temps)
    const temp = newUuidV7()
    const file = (await temps.file(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, { appending: true }))!
    try {
      await file.writeFile(bytes)
      await file.sync()
    } finally {
      await file.close()
    }
    await temps.verify()
    await target.verify()
    if (await target.assertNotLink(name)) {
      await unlink(temps.at(temp))
      return contentHash
    }
    await rename(temps.at(temp), target.at(name))
    // Best effort (spec §4.3): the rename is already visible; only its durability across a power cut is at stake.
    await target.sync()
    return contentHash
  } finally {
    for (const directory of opened) await directory.close()
  }
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
