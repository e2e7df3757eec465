import { randomBytes } from 'node:crypto'
import { open, rename } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import type { ClassicLevel } from 'classic-level'

/**
 * The floor of a durable write, as issue 16 defines it: one synced classic-level put of the text, then an atomic
 * fsync'd replace of the file. One definition for every place that pays it (the raw floors of mcp-write and
 * mcp-throughput, and the minimal MCP server of mcpFloorServer.ts), so the protocol floor does exactly the raw
 * floor's work. Beside it, Quire's durability sequence (durableWrite), shared the same way by mcp-write's raw
 * "durability alone" and the minimal MCP server's second tool. Kept apart from mcpSupport.ts so that server loads no
 * MCP client code.
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

/** A key of the durability sequence's own range (apart from floorKey's), sorting in write order for the same reason. */
export const durableKey = (index: number): string => `s${index.toString().padStart(10, '0')}`

/**
 * What a saved document.write waits for on the disk, with no editor around it: its synced appends in their order (the
 * journal entry holding the text, the applied change, the save's record) around the same atomic file write. The
 * sizes of the two small appends (64 and 200 bytes) stand for the applied change and the save's record. Three fresh
 * keys are taken from `counter`.
 */
export async function durableWrite(db: ClassicLevel<string, Uint8Array>, counter: { n: number }, path: string, bytes: Uint8Array): Promise<void> {
  await db.put(durableKey(counter.n++), bytes, { sync: true })
  await db.put(durableKey(counter.n++), bytes.subarray(0, 64), { sync: true })
  await atomicWriteFsync(path, bytes)
  await db.put(durableKey(counter.n++), bytes.subarray(0, 200), { sync: true })
}
