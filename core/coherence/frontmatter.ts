/**
 * The reserved `vmark:` identity block of a document's frontmatter, handled line by line on the raw text as VMark
 * coherence format 0 fixes it (spec §2.1 "parsing strategy", §3.2 identity masking): a top-level `vmark:` line and
 * its indented `id:` / `schema:` children; everything else is left byte for byte. Pure; expects canonical text
 * (LF line endings, hashing.ts).
 */

const FENCE = '---'
const VMARK_LINE = /^vmark:[ \t]*(#.*)?$/
const RESERVED_CHILD = /^([ \t]+)(id|schema):([ \t]|$)/

/** The frontmatter of a text: its lines between the fences, and where the block ends. */
interface FrontmatterBlock {
  /** Lines between the opening and closing fence. */
  readonly lines: readonly string[]
  /** Index in the text just past the closing fence line (past its newline, when it has one). */
  readonly end: number
}

export type FrontmatterShape = { readonly status: 'none' } | { readonly status: 'unterminated' } | ({ readonly status: 'present' } & FrontmatterBlock)

/** A frontmatter block opens on the text's first line, exactly `---`, and closes on the next line that is exactly `---`. */
export function frontmatterOf(text: string): FrontmatterShape {
  if (!(text === FENCE || text.startsWith(`${FENCE}\n`))) return { status: 'none' }
  const lines: string[] = []
  let at = FENCE.length + 1
  while (at <= text.length) {
    const newline = text.indexOf('\n', at)
    const lineEnd = newline === -1 ? text.length : newline
    const line = text.slice(at, lineEnd)
    if (line === FENCE) return { status: 'present', lines, end: newline === -1 ? text.length : newline + 1 }
    if (newline === -1) break
    lines.push(line)
    at = newline + 1
  }
  return { status: 'unterminated' }
}

/** One top-level `vmark:` block: the index of its line and of its children (the indented lines right after it). */
interface VmarkBlock {
  readonly header: number
  readonly children: readonly number[]
}

function vmarkBlocks(lines: readonly string[]): VmarkBlock[] {
  const blocks: VmarkBlock[] = []
  for (let i = 0; i < lines.length; i++) {
    if (!VMARK_LINE.test(lines[i] as string)) continue
    const children: number[] = []
    let j = i + 1
    while (j < lines.length && /^[ \t]+\S/.test(lines[j] as string)) children.push(j++)
    blocks.push({ header: i, children })
    i = j - 1
  }
  return blocks
}

/** The reserved children of a block: `id:` and `schema:` lines at the block's own (shallowest) indentation. */
function reservedChildren(lines: readonly string[], block: VmarkBlock): number[] {
  const indents = block.children.map((index) => /^[ \t]+/.exec(lines[index] as string)?.[0].length ?? 0)
  const shallowest = Math.min(...indents)
  return block.children.filter((index, k) => indents[k] === shallowest && RESERVED_CHILD.test(lines[index] as string))
}

/**
 * Spec §3.2: the text without the reserved identity lines — `vmark.id` and `vmark.schema` deleted, a `vmark:` block
 * left with no children deleted with them, and a frontmatter block left with no lines deleted whole (both fences).
 * A text without frontmatter, or whose frontmatter is not closed, is returned as it is.
 */
export function maskIdentity(text: string): string {
  const shape = frontmatterOf(text)
  if (shape.status !== 'present') return text
  const { lines } = shape
  const removed = new Set<number>()
  for (const block of vmarkBlocks(lines)) {
    const reserved = reservedChildren(lines, block)
    for (const index of reserved) removed.add(index)
    if (reserved.length > 0 && reserved.length === block.children.length) removed.add(block.header)
  }
  if (removed.size === 0) return text
  const kept = lines.filter((_, index) => !removed.has(index))
  const rest = text.slice(shape.end)
  if (kept.length === 0) return rest
  // The closing fence keeps whatever followed it (a newline, or the end of the text).
  const closing = text.slice(0, shape.end).endsWith('\n') ? `${FENCE}\n` : FENCE
  return `${FENCE}\n${kept.map((line) => `${line}\n`).join('')}${closing}${rest}`
}

/** What a text's frontmatter says about its identity (spec §2.1). */
export type FrontmatterIdentity =
  | { readonly status: 'none' }
  /** An unterminated fence: treated as no identity, and the first capture reports it instead of guessing. */
  | { readonly status: 'malformed'; readonly reason: string }
  | { readonly status: 'present'; readonly id: string | undefined; readonly schema: string | undefined }

function scalarValue(line: string): string {
  const value = line.replace(RESERVED_CHILD, '').replace(/[ \t]+#.*$/, '').trim()
  const quoted = /^(["'])(.*)\1$/.exec(value)
  return quoted === null ? value : (quoted[2] as string)
}

/** The `vmark.id` / `vmark.schema` values of a text's frontmatter, read the same line-based way masking reads them. */
export function frontmatterIdentity(text: string): FrontmatterIdentity {
  const shape = frontmatterOf(text)
  if (shape.status === 'none') return { status: 'none' }
  if (shape.status === 'unterminated') return { status: 'malformed', reason: 'the frontmatter has no closing --- fence' }
  let id: string | undefined
  let schema: string | undefined
  for (const block of vmarkBlocks(shape.lines)) {
    for (const index of reservedChildren(shape.lines, block)) {
      const line = shape.lines[index] as string
      const key = RESERVED_CHILD.exec(line)?.[2]
      if (key === 'id') id ??= scalarValue(line)
      else schema ??= scalarValue(line)
    }
  }
  return { status: 'present', id, schema }
}

/**
 * Spec §2.1: the text with `vmark.id` set to `id`, written at first capture. No frontmatter: a block is prepended. A
 * frontmatter without a `vmark:` key: the key is added as its last lines. A `vmark:` block without `id:` (only a
 * schema): the id line is added first in it, at its children's indentation. Every other byte stays as it was, so the
 * content hash (which masks these lines) does not change. A text that already carries an id is returned as it is;
 * an unterminated frontmatter gives undefined (the capture reports it instead of guessing).
 */
export function assignIdentity(text: string, id: string): string | undefined {
  const shape = frontmatterOf(text)
  if (shape.status === 'unterminated') return undefined
  if (shape.status === 'none') return `${FENCE}\nvmark:\n  id: ${id}\n${FENCE}\n${text}`
  const current = frontmatterIdentity(text)
  if (current.status === 'present' && current.id !== undefined) return text
  const lines = [...shape.lines]
  const block = vmarkBlocks(lines)[0]
  if (block === undefined) {
    lines.push('vmark:', `  id: ${id}`)
  } else {
    const indent = block.children.length === 0 ? '  ' : (/^[ \t]+/.exec(lines[block.children[0] as number] as string)?.[0] ?? '  ')
    lines.splice(block.header + 1, 0, `${indent}id: ${id}`)
  }
  const closing = text.slice(0, shape.end).endsWith('\n') ? `${FENCE}\n` : FENCE
  return `${FENCE}\n${lines.map((line) => `${line}\n`).join('')}${closing}${text.slice(shape.end)}`
}
