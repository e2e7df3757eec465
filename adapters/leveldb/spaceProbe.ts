import { open, readdir, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'

/** What LevelDB writes on open besides the recovered log's table: a manifest and a fresh log, with room to spare. */
const MARGIN = 256 * 1024
const CHUNK = 64 * 1024

/**
 * Checks that the disk under a LevelDB database takes as many bytes as reopening it will write, by writing and
 * fsyncing a scratch file of that size next to it (then removing it). Throws the disk's error when it does not.
 *
 * Reopening turns the write-ahead log into a table before it accepts anything, so it needs about the log's size
 * free; closing the database first and then failing to reopen it would leave the log unreadable until space
 * returns, which this check avoids.
 */
export async function probeSpace(databaseDirectory: string, scratchFile: string): Promise<void> {
  const size = (await writeAheadLogBytes(databaseDirectory)) + MARGIN
  const file = await open(scratchFile, 'w')
  try {
    const zeros = new Uint8Array(CHUNK)
    for (let written = 0; written < size; written += CHUNK) await file.write(zeros, 0, Math.min(CHUNK, size - written))
    await file.sync()
  } finally {
    await file.close()
    await rm(scratchFile, { force: true })
  }
}

async function writeAheadLogBytes(databaseDirectory: string): Promise<number> {
  let total = 0
  for (const name of await readdir(databaseDirectory)) {
    if (name.endsWith('.log')) total += (await stat(join(databaseDirectory, name)).catch(() => ({ size: 0 }))).size
  }
  return total
}
