import { createHash } from 'node:crypto'

/**
 * The identity of a file's bytes: lowercase hex SHA-256. The watcher compares these to tell an external edit from
 * Quire's own save, so every caller must hash the exact bytes that go to (or come from) the disk, not the document's
 * LF-normalised text. Strings are hashed as their UTF-8 encoding, which is what `writeFileAtomic` writes for them.
 */
export const sha256Hex = (content: Uint8Array | string): string => createHash('sha256').update(content).digest('hex')
