import { randomBytes } from 'node:crypto'
import { open, rename } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import type { ClassicLevel } from 'classic-level'

/**
 * The floor of a durable write, as issue 16 defines it: one synced classic-level put of the text, then an atomic
 * fsync'd replace of the file. One definition for every place that pays it (the raw floors of mcp-write and
 * mcp-throughput, and the minimal MCP server of mcpFloorServer.ts), so the protocol floor does exactly the raw
 * floor's work. Kept apart from mcpSupport.ts so that server loads no MCP client code.
 */

/** An atomic replace of `path` with fsync: temp file in the same directory, write, fsync, rename, fsync the directory. */
export async function atomicWriteFsync(path: string, bytes: Uint8Array): Promise<void> {
  const temp = join(dirname(path), `.floor-${randomBytes(6).toString('hex')}.tmp`)
  const file = await open(temp, 'wx')
  try {
    await file.writeFile(bytes)
    await file.sync()
  } finally {
    await file.close()
  }
  await rename(temp, path)
  const directory = await open(dirname(path), 'r')
  try {
    await directory.sync()
  } finally {
    await directory.close()
  }
}

/** A key that sorts in write order, so LevelDB appends rather than inserts between existing keys. */
export const floorKey = (index: number): string => `k${index.toString().padStart(10, '0')}`

/** One floor write: `bytes` put under `key` with sync, then `path` replaced by them atomically with fsync. */
export async function floorWrite(db: ClassicLevel<string, Uint8Array>, key: string, path: string, bytes: Uint8Array): Promise<void> {
  await db.put(key, bytes, { sync: true })
  await atomicWriteFsync(path, bytes)
}
