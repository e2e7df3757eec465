/**
 * The names a stream may have, on every store: non-empty, at most 512 UTF-16 units, well-formed, and without a NUL
 * (the LevelDB store separates a name from the version in its keys with one).
 */
export function isValidStreamName(stream: string): boolean {
  return stream.length > 0 && stream.length <= 512 && !stream.includes('\u0000') && stream.isWellFormed()
}
