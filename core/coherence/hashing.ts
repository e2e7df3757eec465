/**
 * Canonical form and content hashes of VMark coherence format 0 (spec §3.1–§3.4, §4.2): text is decoded as UTF-8,
 * normalized to NFC and to LF line endings, nothing else; its hash is SHA-256 over the identity-masked canonical
 * bytes, which are also exactly what the snapshot store keeps. Bytes that are not UTF-8, and files of a binary kind,
 * are hashed raw. Pure.
 */
import { createHash } from 'node:crypto'
import { extname } from 'node:path'
import { maskIdentity } from './frontmatter.js'

/** Spec §3.1 steps 2–3: NFC, then CRLF and lone CR to LF. Trailing whitespace, final newline and indentation stay. */
export function canonicalText(text: string): string {
  return text.normalize('NFC').replace(/\r\n?/g, '\n')
}

const sha256Hash = (bytes: Uint8Array | string): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`

/** The bytes a text object is hashed and snapshotted as: UTF-8 of the identity-masked canonical text. */
export function maskedCanonicalBytes(text: string): Buffer {
  return Buffer.from(maskIdentity(canonicalText(text)), 'utf8')
}

/** Spec §3.2: `sha256:` + hex SHA-256 of the identity-masked canonical bytes of a text. */
export function textContentHash(text: string): string {
  return sha256Hash(maskedCanonicalBytes(text))
}

/** Spec §3.4: `sha256:` + hex SHA-256 of the raw bytes, no canonicalization, no masking. */
export function binaryContentHash(bytes: Uint8Array): string {
  return sha256Hash(bytes)
}

/**
 * Spec §3.4: extensions the format adapter registry declares binary (images, audio, video, PDFs). Hashed raw even
 * when their bytes happen to be valid UTF-8.
 */
export const BINARY_EXTENSIONS: ReadonlySet<string> = new Set([
  '.png', '.jpg', '.jpeg', '.gif', '.webp', '.bmp', '.tif', '.tiff', '.ico', '.heic', '.avif',
  '.mp3', '.wav', '.ogg', '.flac', '.m4a', '.aac', '.opus',
  '.mp4', '.mov', '.webm', '.mkv', '.avi', '.m4v',
  '.pdf',
])

export const isBinaryPath = (path: string): boolean => BINARY_EXTENSIONS.has(extname(path).toLowerCase())

/** A file's content as the ledger sees it: its hash and the bytes a snapshot of it stores (spec §4.2). */
export interface HashedContent {
  readonly kind: 'text' | 'binary'
  readonly contentHash: string
  /** Text: the identity-masked canonical bytes. Binary: the raw bytes. SHA-256 of these is the hash. */
  readonly snapshotBytes: Uint8Array
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/** Hashes a file's bytes: text unless the path names a binary kind or the bytes are not valid UTF-8 (spec §3.1 step 1). */
export function hashFileContent(bytes: Uint8Array, path?: string): HashedContent {
  if (path === undefined || !isBinaryPath(path)) {
    let text: string | undefined
    try {
      text = strictUtf8.decode(bytes)
    } catch {
      text = undefined
    }
    if (text !== undefined) {
      const snapshotBytes = maskedCanonicalBytes(text)
      return { kind: 'text', contentHash: sha256Hash(snapshotBytes), snapshotBytes }
    }
  }
  return { kind: 'binary', contentHash: binaryContentHash(bytes), snapshotBytes: bytes }
}
