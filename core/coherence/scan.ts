/**
 * The workspace scan of VMark coherence format 0 (spec §9.4, §2.1, §3): walks a workspace and says, for every file the
 * coherence layer tracks, its content hash and identity — the `ScannedFile[]` that `reconcile` (model/reconcile.ts)
 * decides from. It reads and never writes. It never follows a symbolic link (spec §9.4: an escape hazard): links are
 * reported, not read, and the walk does not descend into them. No single file, however broken and however it changes
 * while the scan runs, makes the scan throw; only a root that cannot be listed does.
 *
 * Which files: Markdown (`.md`, `.markdown`, `.mdx`) and the binary kinds of hashing.ts `BINARY_EXTENSIONS`. Those
 * are the files that can be objects: a document carries its identity in frontmatter (spec §2.1), which Quire edits
 * only in Markdown, and a binary promoted to canon (R20) is known by its registered path. Every other file (source,
 * JSON, `.txt`) can be neither, so listing it would only cost a read and a hash per file for nothing. Quire's save
 * temps (`.quire-save-*.tmp`, adapters/fs/saveTemp.ts) and the snapshot store's temps (inside `.vmark/`) are never of
 * a tracked kind, so they are left out by the same rule.
 */
import { createHash } from 'node:crypto'
import { constants, type Dirent } from 'node:fs'
import { lstat, open, readdir, stat, type FileHandle } from 'node:fs/promises'
import { extname, join } from 'node:path'
import { QuireError } from '../errors.js'
import { UuidSchema } from './entries.js'
import { frontmatterIdentity } from './frontmatter.js'
import { canonicalText, isBinaryPath, textContentHash } from './hashing.js'
import type { ScannedFile } from './model/reconcile.js'

/** The text kinds the coherence layer tracks; with `BINARY_EXTENSIONS` (hashing.ts), every kind it tracks. */
export const TEXT_EXTENSIONS: ReadonlySet<string> = new Set(['.md', '.markdown', '.mdx'])

/** Whether a file of this name is of a kind the coherence layer tracks. */
export const isTrackedPath = (path: string): boolean => TEXT_EXTENSIONS.has(extname(path).toLowerCase()) || isBinaryPath(path)

/**
 * Directories that are never content, skipped by name at any depth: the coherence state itself, version-control
 * metadata, dependency and cache trees, the trash. The list is VMark's scan's (src-tauri/src/coherence/scan.rs), so
 * that both programs, reading one workspace and one ledger, see the same objects.
 */
export const NEVER_CONTENT_DIRECTORIES: ReadonlySet<string> = new Set(['.vmark', '.git', '.obsidian', '.svn', '.hg', 'node_modules', '__pycache__', '.Trash'])

/**
 * Workspace-relative folders skipped only at that exact place (VMark's `IGNORED_REL_PREFIXES`): git worktrees an
 * agent checks out inside the workspace are second copies of the same files, so every document in them would carry
 * its twin's `vmark.id` and be held as a duplicate.
 */
export const NEVER_CONTENT_PATHS: ReadonlySet<string> = new Set(['.claude/worktrees'])

export const DEFAULT_SCAN_MAX_FILES = 50_000
export const DEFAULT_SCAN_MAX_FILE_BYTES = 64 * 1024 * 1024
/** Reads in flight at once: enough to keep the disk busy, few enough not to crowd the event loop or the descriptors. */
export const DEFAULT_SCAN_CONCURRENCY = 16

/** Codes of `ScannedFile.unreadable` the scan sets; they become the codes of the scan's diagnostics (spec §9.4). */
export const SCAN_PROBLEM_CODES = {
  /** An I/O error (EACCES, EIO, ...). */
  unreadable: 'unreadable',
  /** A text kind whose bytes are not UTF-8 (spec §3.1 step 1). */
  invalidUtf8: 'invalid-utf8',
  /** An unterminated frontmatter fence, or a `vmark.id` that is not a UUID (spec §2.1: treated as no identity). */
  malformedFrontmatter: 'malformed-frontmatter',
  /** Larger than `maxFileBytes`; VMark's scan names it the same, so the two programs' diagnostics de-duplicate. */
  tooLarge: 'file-too-large',
} as const

export interface ScanOptions {
  /** At most this many files (links included) are listed; the scan is `truncated` past it. Default 50,000. */
  readonly maxFiles?: number
  /** Larger files are not read: they are `unreadable` with code `file-too-large`. Default 64 MiB. */
  readonly maxFileBytes?: number
  /** Files read at once. Default 16. */
  readonly concurrency?: number
  /**
   * Directories of Quire's own (its data directory) that may lie inside the workspace (`--workspace ~` with the data
   * directory under it). Matched by device and inode, so any spelling of the path, or a link to it, names it.
   */
  readonly ownDataDirectories?: readonly string[]
}

/** Something the scan met and did not list: a file that vanished, a folder it could not list, Quire's own data. */
export interface ScanSkip {
  readonly path: string
  readonly reason: string
}

export interface WorkspaceScan {
  /** Sorted by path (code-unit order, as reconcile sorts). */
  files: ScannedFile[]
  /** More files were there than `maxFiles`; the ones past it are not listed. */
  truncated: boolean
  /**
   * Every folder was listed and nothing was cut off by `maxFiles`. Only a complete scan shows that a known object's
   * file is gone: a file of a folder the scan could not list, or past the cap, is missing from `files` but not absent.
   */
  complete: boolean
  /** Sorted by path. */
  skipped: ScanSkip[]
}

/** Like hashing.ts: a BOM is kept as text (the canonical form drops nothing but CR and non-NFC forms). */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

interface Listed {
  readonly path: string
  readonly isSymlink: boolean
}

/** A folder of the walk: its entries and the next one to visit. */
interface Frame {
  readonly folder: string
  readonly entries: readonly FolderEntry[]
  next: number
}

interface FolderEntry {
  readonly dirent: Dirent<Buffer>
  /** The name as UTF-8, or with replacement characters when `valid` is false. */
  readonly name: string
  readonly valid: boolean
}

/**
 * Names are read as bytes: a name that is not UTF-8 would come back from a string listing with replacement characters,
 * naming no file, and the file would look removed. Such a file cannot have a ledger path (paths are JSON strings).
 */
function folderEntry(dirent: Dirent<Buffer>): FolderEntry {
  try {
    return { dirent, name: strictUtf8.decode(dirent.name), valid: true }
  } catch {
    return { dirent, name: dirent.name.toString('utf8'), valid: false }
  }
}

const errorCode = (error: unknown): string =>
  typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : 'unknown error'

const byPath = <T extends { readonly path: string }>(a: T, b: T) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)

function positiveInteger(name: string, value: number | undefined, fallback: number, minimum: number): number {
  if (value === undefined) return fallback
  if (!Number.isSafeInteger(value) || value < minimum) throw new RangeError(`${name} must be an integer of at least ${minimum}, got ${value}`)
  return value
}

/** Device and inode of each directory that exists; the others cannot be met by the walk either. */
async function directoryIdentities(paths: readonly string[]): Promise<Set<string>> {
  const identities = new Set<string>()
  for (const path of paths) {
    const info = await stat(path, { bigint: true }).catch(() => undefined)
    if (info?.isDirectory()) identities.add(`${info.dev}:${info.ino}`)
  }
  return identities
}

/**
 * Scans the workspace at `root` (spec §9.4): every file of a tracked kind, hashed and with its identity read, and every
 * symbolic link, reported and not read. See `WorkspaceScan.complete` before treating a missing file as deleted.
 */
export async function scanWorkspace(root: string, options: ScanOptions = {}): Promise<WorkspaceScan> {
  const maxFiles = positiveInteger('maxFiles', options.maxFiles, DEFAULT_SCAN_MAX_FILES, 1)
  const maxFileBytes = positiveInteger('maxFileBytes', options.maxFileBytes, DEFAULT_SCAN_MAX_FILE_BYTES, 0)
  const concurrency = positiveInteger('concurrency', options.concurrency, DEFAULT_SCAN_CONCURRENCY, 1)
  // The root itself may be reached through a link (a workspace opened as /tmp/w, where /tmp links to /private/tmp);
  // nothing below it is.
  const rootInfo = await stat(root).catch((error: unknown) => {
    throw new QuireError('COHERENCE_INVALID_WORKSPACE', `the workspace ${root} cannot be scanned (${errorCode(error)})`)
  })
  if (!rootInfo.isDirectory()) throw new QuireError('COHERENCE_INVALID_WORKSPACE', `the workspace ${root} is not a directory`)

  const listing = await listWorkspace(root, maxFiles, await directoryIdentities(options.ownDataDirectories ?? []))
  const results = new Array<ScannedFile | ScanSkip>(listing.listed.length)
  let next = 0
  const worker = async () => {
    while (next < listing.listed.length) {
      const index = next++
      const entry = listing.listed[index] as Listed
      results[index] = entry.isSymlink ? entry : await scanWorkspaceFile(root, entry.path, { maxFileBytes })
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, listing.listed.length) }, worker))

  const files: ScannedFile[] = []
  const skipped = [...listing.skipped]
  for (const result of results) {
    if ('reason' in result) skipped.push(result)
    else files.push(result)
  }
  return { files: files.sort(byPath), truncated: listing.truncated, complete: listing.complete, skipped: skipped.sort(byPath) }
}

/**
 * The walk: depth first, each folder's entries in name order (a folder's contents where its name falls), so which
 * files a truncated scan keeps is the same every time. Only names and entry types are read here; an entry's type is
 * never that of a link's target.
 */
async function listWorkspace(root: string, maxFiles: number, ownData: ReadonlySet<string>) {
  const listed: Listed[] = []
  const skipped: ScanSkip[] = []
  let complete = true
  let truncated = false
  /** The entries of `folder`, or undefined when it cannot be listed (said in `skipped`). */
  const list = async (folder: string): Promise<Frame | undefined> => {
    try {
      const entries = (await readdir(join(root, folder), { withFileTypes: true, encoding: 'buffer' })).map(folderEntry)
      return { folder, entries: entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)), next: 0 }
    } catch (error) {
      if (folder === '') throw new QuireError('COHERENCE_INVALID_WORKSPACE', `the workspace ${root} cannot be listed (${errorCode(error)})`)
      const code = errorCode(error)
      // A folder removed since its parent was listed took its files with it: they are gone, not unseen.
      if (code === 'ENOENT' || code === 'ENOTDIR') skipped.push({ path: folder, reason: 'removed during the scan' })
      else {
        skipped.push({ path: folder, reason: `the folder could not be listed (${code})` })
        complete = false
      }
      return undefined
    }
  }
  // The root either lists or throws.
  const stack = [(await list('')) as Frame]
  while (stack.length > 0) {
    const top = stack[stack.length - 1] as Frame
    const next = top.entries[top.next++]
    if (next === undefined) {
      stack.pop()
      continue
    }
    const { dirent: entry, name } = next
    const path = top.folder === '' ? name : `${top.folder}/${name}`
    if (!next.valid) {
      // Nothing in such a folder can be a known object either: its path would have to contain this name.
      if (entry.isDirectory() || entry.isSymbolicLink() || isTrackedPath(name)) skipped.push({ path, reason: 'the name is not valid UTF-8, so no ledger path can name it' })
      continue
    }
    if (entry.isDirectory()) {
      if (NEVER_CONTENT_DIRECTORIES.has(name) || NEVER_CONTENT_PATHS.has(path)) continue
      if (ownData.size > 0) {
        const info = await lstat(join(root, path), { bigint: true }).catch(() => undefined)
        if (info !== undefined && ownData.has(`${info.dev}:${info.ino}`)) {
          skipped.push({ path, reason: "Quire's own data directory" })
          continue
        }
      }
      const folder = await list(path)
      if (folder !== undefined) stack.push(folder)
      continue
    }
    const isSymlink = entry.isSymbolicLink()
    if (!isSymlink && !isTrackedPath(name)) continue
    if (!isSymlink && !entry.isFile()) {
      // A FIFO or device named like a document: opening it could block or read forever.
      skipped.push({ path, reason: 'not a regular file' })
      continue
    }
    if (listed.length === maxFiles) {
      truncated = true
      complete = false
      break
    }
    listed.push({ path, isSymlink })
  }
  return { listed, skipped, complete, truncated }
}

/** Binary files are hashed as they stream through a buffer this size, so a video never sits in memory whole. */
const BINARY_CHUNK_BYTES = 1024 * 1024
// O_NOFOLLOW: a link put in the file's place after the listing is refused, not read (ELOOP). O_NONBLOCK: a FIFO put
// there cannot hang the open; the descriptor is then found not to be a regular file and closed unread.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0)

/**
 * One file of the workspace, by its workspace-relative `/`-separated path: hashed and its identity read, or why it
 * could not be. Gives a `ScanSkip` when there is nothing to list: the file is gone (it was removed after the walk saw
 * it), it is not a regular file, or not of a tracked kind. A link at the path itself is reported, not read; the
 * folders above it are the walk's to check (scanWorkspace never descends into a link).
 */
export async function scanWorkspaceFile(root: string, path: string, options: Pick<ScanOptions, 'maxFileBytes'> = {}): Promise<ScannedFile | ScanSkip> {
  if (path === '' || path.startsWith('/') || path.includes('\\') || path.split('/').some((part) => part === '' || part === '.' || part === '..')) {
    throw new RangeError(`a workspace file is named by a relative path with / separators and no . or .. parts, got ${JSON.stringify(path)}`)
  }
  const maxFileBytes = positiveInteger('maxFileBytes', options.maxFileBytes, DEFAULT_SCAN_MAX_FILE_BYTES, 0)
  if (!isTrackedPath(path)) return { path, reason: 'not a kind of file the coherence layer tracks' }
  const binary = isBinaryPath(path)
  const kind = binary ? { binary: true } : {}
  const unreadable = (code: string, message: string): ScannedFile => ({ path, isSymlink: false, ...kind, unreadable: { code, message } })
  let handle: FileHandle
  try {
    handle = await open(join(root, ...path.split('/')), OPEN_FLAGS)
  } catch (error) {
    const code = errorCode(error)
    if (code === 'ENOENT' || code === 'ENOTDIR') return { path, reason: 'removed during the scan' }
    if (code === 'ELOOP') return { path, isSymlink: true }
    // The message goes into a shared ledger: the error's code, never the absolute path Node's message carries.
    return unreadable(SCAN_PROBLEM_CODES.unreadable, `the file could not be opened (${code})`)
  }
  try {
    const info = await handle.stat()
    if (!info.isFile()) return { path, reason: 'not a regular file' }
    const tooLarge = () => unreadable(SCAN_PROBLEM_CODES.tooLarge, `the file is larger than the ${maxFileBytes}-byte scan limit`)
    if (info.size > maxFileBytes) return tooLarge()
    if (binary) {
      const contentHash = await hashBinary(handle, Math.min(info.size + 1, BINARY_CHUNK_BYTES), maxFileBytes)
      return contentHash === undefined ? tooLarge() : { path, isSymlink: false, binary: true, contentHash }
    }
    const bytes = await readBounded(handle, info.size, maxFileBytes)
    return bytes === undefined ? tooLarge() : textFile(path, bytes)
  } catch (error) {
    return unreadable(SCAN_PROBLEM_CODES.unreadable, `the file could not be read (${errorCode(error)})`)
  } finally {
    await handle.close().catch(() => undefined)
  }
}

/** A text file's hash and identity (spec §3.1–§3.2, §2.1). */
function textFile(path: string, bytes: Uint8Array): ScannedFile {
  let text: string
  try {
    text = strictUtf8.decode(bytes)
  } catch {
    return { path, isSymlink: false, unreadable: { code: SCAN_PROBLEM_CODES.invalidUtf8, message: 'the file is not valid UTF-8 text' } }
  }
  const canonical = canonicalText(text)
  const identity = frontmatterIdentity(canonical)
  const malformed = (message: string): ScannedFile => ({ path, isSymlink: false, unreadable: { code: SCAN_PROBLEM_CODES.malformedFrontmatter, message } })
  if (identity.status === 'malformed') return malformed(identity.reason)
  let vmarkId: string | null = null
  let schema: string | null = null
  if (identity.status === 'present') {
    if (identity.id !== undefined) {
      // The ledger's ids are UUIDs in lower case (entries.ts): an id that is not one could never be registered.
      const parsed = UuidSchema.safeParse(identity.id)
      if (!parsed.success) return malformed(`vmark.id ${JSON.stringify(identity.id)} is not a UUID`)
      vmarkId = parsed.data
    }
    schema = identity.schema === undefined || identity.schema === '' ? null : identity.schema
  }
  // Canonicalizing is idempotent, so hashing the canonical text is hashFileContent's text hash of these bytes.
  return { path, isSymlink: false, contentHash: textContentHash(canonical), vmarkId, schema }
}

/** The whole file, or undefined once it proves longer than `max` (it may have grown since its size was read). */
async function readBounded(handle: FileHandle, sizeHint: number, max: number): Promise<Buffer | undefined> {
  // One byte past the expected size, so the read that finds the end needs no second buffer.
  let buffer = Buffer.allocUnsafe(Math.min(sizeHint, max) + 1)
  let length = 0
  for (;;) {
    if (length === buffer.length) {
      const grown = Buffer.allocUnsafe(Math.min(buffer.length * 2, max + 1))
      buffer.copy(grown, 0, 0, length)
      buffer = grown
    }
    const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null)
    if (bytesRead === 0) return buffer.subarray(0, length)
    length += bytesRead
    if (length > max) return undefined
  }
}

/** Spec §3.4's hash of the raw bytes (`binaryContentHash`, computed as the bytes stream), or undefined past `max`. */
async function hashBinary(handle: FileHandle, chunkBytes: number, max: number): Promise<string | undefined> {
  const hash = createHash('sha256')
  const buffer = Buffer.allocUnsafe(chunkBytes)
  let total = 0
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, null)
    if (bytesRead === 0) return `sha256:${hash.digest('hex')}`
    total += bytesRead
    if (total > max) return undefined
    hash.update(buffer.subarray(0, bytesRead))
  }
}
