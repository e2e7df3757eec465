import type { BigIntStats } from 'node:fs'

/**
 * What a save knows of the file it placed without reading it back: the inode its temp file became and that inode's
 * size and modification time, taken from the temp file's descriptor once it held the complete content (a rename keeps
 * all four). The disk watcher compares it with a `lstat` of the path to recognise Quire's own save without reading and
 * hashing the file again (fileWatcher.ts says when that comparison is trusted).
 */
export interface PlacedFile {
  readonly dev: bigint
  readonly ino: bigint
  readonly size: bigint
  readonly mtimeNs: bigint
}

export const placedFileOf = (stats: BigIntStats): PlacedFile => ({ dev: stats.dev, ino: stats.ino, size: stats.size, mtimeNs: stats.mtimeNs })

/** Whether `stats` (of the path, not following a link) show the very inode placed, with its size and time unchanged. */
export const isStillPlaced = (placed: PlacedFile, stats: BigIntStats): boolean =>
  stats.isFile() && stats.dev === placed.dev && stats.ino === placed.ino && stats.size === placed.size && stats.mtimeNs === placed.mtimeNs
