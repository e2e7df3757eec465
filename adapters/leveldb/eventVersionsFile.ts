import { open, readFile, rename } from 'node:fs/promises'
import { join } from 'node:path'

/**
 * The LevelDB log's copy of its event versions record, in a file beside LevelDB's own in the log's directory (so a
 * backup or restore of the directory carries it). Opening a LevelDB database rewrites its files (the write-ahead
 * file becomes a table, a new manifest), so a Quire that must refuse the log reads this copy first and leaves the
 * directory exactly as it found it. The store writes it before the batch that grows the record, so it is never
 * behind the log; it is ahead of it only after that batch failed, until the store reopens its database (or opens
 * the log next) and writes it again from the record in the log.
 */
const FILE = 'event-versions.json'

/** The file's bytes, or undefined when there is none (a log kept before it, or a new one). */
export async function readEventVersionsFile(logDirectory: string): Promise<Uint8Array | undefined> {
  return readFile(join(logDirectory, FILE)).catch(() => undefined)
}

/** Replaces the file atomically: a temp file synced, renamed over it, and the directory synced. */
export async function writeEventVersionsFile(logDirectory: string, bytes: Uint8Array): Promise<void> {
  const path = join(logDirectory, FILE)
  const temp = `${path}.tmp`
  const file = await open(temp, 'w', 0o600)
  try {
    await file.writeFile(bytes)
    await file.sync()
  } finally {
    await file.close()
  }
  await rename(temp, path)
  const directory = await open(logDirectory, 'r')
  try {
    await directory.sync()
  } finally {
    await directory.close()
  }
}
