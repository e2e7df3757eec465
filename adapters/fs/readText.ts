/**
 * Reading a file to open it as a document (WS.OPEN.1, WS.OPEN.3). A document's canonical content is text with LF
 * line endings (DESIGN.md §4), so what comes off the disk is checked and normalised here, and anything Quire cannot
 * hold faithfully is refused with INVALID_PATH and a message a person can act on:
 *
 * - only regular files: a FIFO would block the open forever, a device could be endless, a directory is not text;
 * - at most `maxBytes` (16 MiB by default): the whole file becomes a Y.Text and every edit event carries updates
 *   against it;
 * - valid UTF-8 only: decoding with replacement characters would silently change the bytes on the next save.
 *
 * CRLF and lone CR become LF; `hadCrlf` tells the caller the file used CRLF so a save can write it back that way.
 * A leading UTF-8 BOM is dropped from the text and reported as `hadBom`. `sha256` is of the bytes on disk, as the
 * file watcher computes it, so the caller can register the document's baseline with it.
 *
 * The file is opened with O_NOFOLLOW and O_NONBLOCK and checked with `fstat` on the open descriptor: there is no gap
 * between checking what the file is and reading it, and a final component swapped for a symlink after the scope
 * check is refused (pass `ScopedPath.real`, which contains no symlinks).
 */
import { constants } from 'node:fs'
import { open, readlink, realpath, stat } from 'node:fs/promises'
import type { FileHandle } from 'node:fs/promises'
import { QuireError } from '../../core/errors.js'
import { sha256Hex } from './contentHash.js'

export const DEFAULT_MAX_TEXT_BYTES = 16 * 1024 * 1024

/** Decoded document text. */
export interface DecodedText {
  /** The content with every CRLF and lone CR turned into LF and without a leading BOM. */
  readonly text: string
  /** The file contained at least one CRLF. */
  readonly hadCrlf: boolean
  /** The file started with a UTF-8 byte order mark. */
  readonly hadBom: boolean
}

export interface TextFile extends DecodedText {
  /** SHA-256 (hex) of the bytes as they are on disk. */
  readonly sha256: string
  /** Size on disk in bytes. */
  readonly byteLength: number
}

export interface ReadTextOptions {
  readonly maxBytes?: number
}

const BOM = 0xfeff

const errorCode = (error: unknown): string | undefined =>
  typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : undefined

const mib = (bytes: number): string => `${(bytes / (1024 * 1024)).toFixed(1)} MiB`

/** Decode file bytes as a document's text; throws INVALID_PATH (reason `not_utf8`) on invalid UTF-8. */
export function decodeText(bytes: Uint8Array, path: string): DecodedText {
  let decoded: string
  try {
    decoded = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes)
  } catch {
    throw new QuireError('INVALID_PATH', `${path} is not valid UTF-8 text; Quire opens UTF-8 text files only.`, {
      reason: 'not_utf8',
      path,
    })
  }
  const hadBom = decoded.charCodeAt(0) === BOM
  const withoutBom = hadBom ? decoded.slice(1) : decoded
  return { text: withoutBom.replace(/\r\n?/g, '\n'), hadCrlf: withoutBom.includes('\r\n'), hadBom }
}

/** Read `path` (a real path) for opening as a document. Every refusal is a QuireError('INVALID_PATH'). */
export async function readText(path: string, options: ReadTextOptions = {}): Promise<TextFile> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_TEXT_BYTES
  let handle: FileHandle
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch (error) {
    throw openRefusal(path, error)
  }
  try {
    await assertOpenedAt(handle, path)
    const stats = await handle.stat()
    if (!stats.isFile()) {
      const what = stats.isDirectory() ? 'a folder' : 'not a regular file'
      throw new QuireError('INVALID_PATH', `${path} is ${what}; only regular text files can be opened.`, { reason: 'not_a_file', path })
    }
    if (stats.size > maxBytes) throw tooLarge(path, stats.size, maxBytes)
    const bytes = await readAtMost(handle, path, maxBytes)
    return { ...decodeText(bytes, path), sha256: sha256Hex(bytes), byteLength: bytes.byteLength }
  } finally {
    await handle.close().catch(() => undefined)
  }
}

/**
 * O_NOFOLLOW guards only the last component: a parent folder swapped for a symlink after the scope check would
 * still be followed. So check where the descriptor really points: on Linux the kernel says so through
 * /proc/self/fd; elsewhere the path must still resolve to itself and name the same inode.
 */
async function assertOpenedAt(handle: FileHandle, path: string): Promise<void> {
  const moved = () =>
    new QuireError('INVALID_PATH', `${path} changed while it was being opened (a folder on its path became a link); nothing was read.`, {
      reason: 'symlink_outside_scope',
      path,
    })
  const actual = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined)
  if (actual !== undefined) {
    if (actual !== path) throw moved()
    return
  }
  const [opened, current, resolved] = await Promise.all([handle.stat(), stat(path).catch(() => undefined), realpath(path).catch(() => undefined)])
  if (resolved !== path || !current || current.ino !== opened.ino || current.dev !== opened.dev) throw moved()
}

function tooLarge(path: string, size: number, maxBytes: number): QuireError {
  return new QuireError('INVALID_PATH', `${path} is ${mib(size)}; Quire opens files of at most ${mib(maxBytes)}.`, {
    reason: 'too_large',
    path,
    size,
    maxBytes,
  })
}

/** The whole file, refusing it if it grew past `maxBytes` after `fstat` (reads one byte past the limit to know); nothing past it is read. */
async function readAtMost(handle: FileHandle, path: string, maxBytes: number): Promise<Uint8Array> {
  const chunks: Buffer[] = []
  let total = 0
  for (;;) {
    const chunk = Buffer.allocUnsafe(Math.min(1024 * 1024, maxBytes + 1 - total))
    const { bytesRead } = await handle.read(chunk, 0, chunk.byteLength, null)
    if (bytesRead === 0) break
    chunks.push(chunk.subarray(0, bytesRead))
    total += bytesRead
    if (total > maxBytes) throw tooLarge(path, total, maxBytes)
  }
  return Buffer.concat(chunks, total)
}

function openRefusal(path: string, error: unknown): QuireError {
  const code = errorCode(error)
  const [reason, what] =
    code === 'ENOENT' || code === 'ENOTDIR'
      ? ['not_found', 'does not exist']
      : code === 'ELOOP'
        ? ['symlink', 'is a symbolic link (open the file it points to)']
        : code === 'EACCES' || code === 'EPERM'
          ? ['unreadable', 'cannot be read (permission denied)']
          : ['unreadable', `cannot be read (${code ?? String(error)})`]
  return new QuireError('INVALID_PATH', `${path} ${what}.`, { reason, path, cause: code })
}
