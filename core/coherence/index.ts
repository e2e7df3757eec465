/**
 * The coherence ledger of VMark's format 0 (spec `dev-docs/specs/coherence-format-v0.md` in xiaolai/vmark, §1–§5):
 * entry schemas and types, the pure reader, the on-disk ledger, hashing and revision ids. The projection
 * (model/) reads `LedgerRead.entries`; the files of this folder never interpret them beyond validation.
 */
export * from './entries.js'
export { composeEntry, quarantineDiagnostic, type EntryOrigin } from './compose.js'
export { BoundedLineSplitter, splitSegment, type SegmentLine } from './lines.js'
export {
  LedgerReadBuilder,
  OVERSIZED_PLACEHOLDER,
  judgeLineBytes,
  quarantineDiagnosticIdem,
  quarantineRecordText,
  readSegments,
  type LedgerRead,
  type QuarantinedLine,
  type SegmentLines,
} from './reader.js'
export { CoherenceLedger, type AppendReceipt, type CoherenceLedgerOptions } from './ledger.js'
export {
  GITATTRIBUTES_CONTENT,
  GITIGNORE_CONTENT,
  MAX_LINE_BYTES,
  SEGMENT_ROTATION_BYTES,
  VMARK_DIRECTORY,
  isSegmentFileName,
  quarantineFileName,
  segmentFileName,
  segmentNumberOf,
  snapshotPath,
  workspaceLayout,
  type WorkspaceLayout,
} from './layout.js'
export { UuidV7Generator, isUuidV7, newUuidV7, uuidFromDigest, uuidV7Milliseconds, type UuidV7Source } from './uuid.js'
export { formatEntryTime, isRfc3339, rfc3339Nanoseconds } from './time.js'
export { canonicalText, maskedCanonicalBytes, textContentHash, binaryContentHash, hashFileContent, isBinaryPath, BINARY_EXTENSIONS, type HashedContent } from './hashing.js'
export { assignIdentity, frontmatterIdentity, frontmatterOf, maskIdentity, type FrontmatterIdentity, type FrontmatterShape } from './frontmatter.js'
export { isContentHash, isRevisionId, revisionId } from './revision.js'
export { loadOrCreateWriterId, WRITER_ID_FILE } from './writerId.js'
export { readSnapshot, writeSnapshot } from './snapshots.js'
export { readContextFiles, writeContextFile, type ContextFile } from './contextFiles.js'
export { scanWorkspace, scanWorkspaceFile, isTrackedPath, TEXT_EXTENSIONS, NEVER_CONTENT_DIRECTORIES, NEVER_CONTENT_PATHS, SCAN_PROBLEM_CODES, DEFAULT_SCAN_MAX_FILES, DEFAULT_SCAN_MAX_FILE_BYTES, DEFAULT_SCAN_CONCURRENCY, type ScanOptions, type ScanSkip, type WorkspaceScan } from './scan.js'
