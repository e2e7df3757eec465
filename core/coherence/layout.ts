/**
 * Where coherence state lives in a workspace (VMark coherence format 0, spec §1, §4.1, §5.1, §5.6): pure path and
 * name rules, no file access.
 */
import { join } from 'node:path'

export const VMARK_DIRECTORY = '.vmark'
/** Spec §5.1: a writer's segment rotates once it has grown to this size. */
export const SEGMENT_ROTATION_BYTES = 8 * 1024 * 1024
/**
 * The longest line a reader takes in. The spec asks readers to bound a line without naming the bound; this is VMark's
 * reader's (16 MiB), so a line one program reads the other reads too. Our writer refuses anything longer.
 */
export const MAX_LINE_BYTES = 16 * 1024 * 1024

/** Spec §1: written once, on the first append; ignores the derived index. */
export const GITIGNORE_CONTENT = 'index.db*\n'
/** Spec §1, §5.5: segments merge by union, which per-writer files and idempotent entries make harmless. */
export const GITATTRIBUTES_CONTENT = 'ledger/*.jsonl merge=union\n'

export interface WorkspaceLayout {
  readonly root: string
  readonly vmark: string
  readonly ledger: string
  readonly quarantine: string
  readonly contexts: string
  readonly snapshots: string
  readonly snapshotTemps: string
  readonly gitignore: string
  readonly gitattributes: string
}

export function workspaceLayout(root: string): WorkspaceLayout {
  const vmark = join(root, VMARK_DIRECTORY)
  const ledger = join(vmark, 'ledger')
  return {
    root,
    vmark,
    ledger,
    quarantine: join(ledger, 'quarantine'),
    contexts: join(vmark, 'contexts'),
    snapshots: join(vmark, 'snapshots', 'sha256'),
    snapshotTemps: join(vmark, 'snapshots', 'tmp'),
    gitignore: join(vmark, '.gitignore'),
    gitattributes: join(vmark, '.gitattributes'),
  }
}

/**
 * The same folders as names from the workspace root down, for walking them one at a time without following a link
 * (confined.ts).
 */
export const LAYOUT_PARTS = {
  vmark: [VMARK_DIRECTORY],
  ledger: [VMARK_DIRECTORY, 'ledger'],
  quarantine: [VMARK_DIRECTORY, 'ledger', 'quarantine'],
  contexts: [VMARK_DIRECTORY, 'contexts'],
  snapshots: [VMARK_DIRECTORY, 'snapshots'],
} as const satisfies Readonly<Record<string, readonly string[]>>

/** `<writer>.jsonl` for the first segment (number 0), `<writer>-<NNN>.jsonl` after each rotation. */
export function segmentFileName(writer: string, number: number): string {
  if (!Number.isSafeInteger(number) || number < 0) throw new RangeError(`segment number must be a non-negative integer, got ${number}`)
  return number === 0 ? `${writer}.jsonl` : `${writer}-${String(number).padStart(3, '0')}.jsonl`
}

/** The rotation number of `name` if it is one of `writer`'s segments, else undefined. */
export function segmentNumberOf(name: string, writer: string): number | undefined {
  if (!name.startsWith(writer) || !name.endsWith('.jsonl')) return undefined
  const rest = name.slice(writer.length, -'.jsonl'.length)
  if (rest === '') return 0
  const match = /^-(\d+)$/.exec(rest)
  if (match === null) return undefined
  const number = Number(match[1])
  return Number.isSafeInteger(number) ? number : undefined
}

/** A file in the ledger folder that readers merge: any `*.jsonl` (every writer's segments). */
export const isSegmentFileName = (name: string): boolean => name.endsWith('.jsonl')

/** Spec §5.6: the quarantine file of one segment. */
export const quarantineFileName = (segment: string): string => `${segment}.bad`

/** Spec §4.1: `sha256/<first 2 hex>/<remaining 62 hex>` of a `sha256:` content hash. */
export function snapshotPath(layout: WorkspaceLayout, contentHash: string): string {
  const match = /^sha256:([0-9a-f]{64})$/.exec(contentHash)
  if (match === null) throw new RangeError(`not a sha256: content hash: ${contentHash}`)
  const hex = match[1] as string
  return join(layout.snapshots, hex.slice(0, 2), hex.slice(2))
}
