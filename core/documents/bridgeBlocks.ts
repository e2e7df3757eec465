import { diffMain, DIFF_DELETE, DIFF_EQUAL, DIFF_INSERT } from 'diff-match-patch-es'
import type { Node } from 'prosemirror-model'
import { parseMarkdownWhole } from '../markdown/parse.js'
import { serializeBlock, serializeMarkdown } from '../markdown/serialize.js'

/** The mirror's top-level blocks `[mirrorFrom, mirrorTo)` write what the parsed blocks `[parsedFrom, parsedTo)` do not. */
export interface BlockRegion {
  readonly mirrorFrom: number
  readonly mirrorTo: number
  readonly parsedFrom: number
  readonly parsedTo: number
}

/**
 * How long the block diff may search before settling for coarser regions (still correct, just wider): bounds a
 * hostile pair of huge unrelated documents.
 */
const DIFF_TIMEOUT_SECONDS = 0.05

/** The most distinct blocks the diff can tell apart (one UTF-16 unit each). */
const MAX_KEYS = 0xffff

/**
 * Where the mirror (what WYSIWYG peers hold) and a parse of `source` write different Markdown, block by block: the
 * stretches of top-level blocks to carry over from one side to the other. Every block outside them writes the same
 * on both sides, however differently each holds it (the person's trailing spaces, a mark around a space, a break at
 * the end, a split text), so it is left exactly as it is.
 *
 * A block that writes nothing (an empty paragraph the person opened, one of spaces) is nobody's change: it is
 * matched to nothing and stays in place, unless it is its document's only block (an empty document), which is then
 * compared like any other. Regions therefore never start or end on such a block of the mirror, and a region that
 * only adds blocks to the mirror lies right after the last block before it that writes something.
 *
 * Cost, kept to the blocks that differ: blocks equal as nodes at both ends are skipped by `Node.eq`; the rest are
 * aligned by their text (one symbol per block, a linear diff) and pairs that are equal nodes are settled; only the
 * blocks left (the change, and blocks the person holds differently from the parse, such as a trailing space) are
 * serialized and read back, each on its own, and aligned by their Markdown.
 */
export function changedBlocks(mirror: Node, parsed: Node): BlockRegion[] {
  const mirrorCount = mirror.childCount
  const parsedCount = parsed.childCount
  let start = 0
  while (start < mirrorCount && start < parsedCount && sameNode(mirror.child(start), parsed.child(start))) start++
  let mirrorEnd = mirrorCount
  let parsedEnd = parsedCount
  while (mirrorEnd > start && parsedEnd > start && sameNode(mirror.child(mirrorEnd - 1), parsed.child(parsedEnd - 1))) {
    mirrorEnd--
    parsedEnd--
  }
  if (start === mirrorEnd && start === parsedEnd) return []
  const middle = { mirrorFrom: start, mirrorTo: mirrorEnd, parsedFrom: start, parsedTo: parsedEnd }
  return unequalByText(mirror, parsed, middle).flatMap((region) => unequalByMarkdown(mirror, parsed, region))
}

/**
 * Pairs of blocks found equal: the mirror's blocks and the parse's are kept from one keystroke to the next (they are
 * immutable), so a pair compared once is not compared again, and skipping the equal blocks costs a lookup each.
 */
const knownEqual = new WeakMap<Node, Node>()

function sameNode(a: Node, b: Node): boolean {
  if (a === b || knownEqual.get(a) === b) return true
  if (!a.eq(b)) return false
  knownEqual.set(a, b)
  return true
}

/** The stretches of `within` left once blocks with the same text are aligned and those that are equal nodes settled. */
function unequalByText(mirror: Node, parsed: Node, within: BlockRegion): BlockRegion[] {
  const texts = (doc: Node, from: number, to: number) => {
    const keys: Keyed = { keys: [], at: [] }
    for (let i = from; i < to; i++) {
      keys.keys.push(doc.child(i).textContent)
      keys.at.push(i)
    }
    return keys
  }
  const coarse = align(texts(mirror, within.mirrorFrom, within.mirrorTo), texts(parsed, within.parsedFrom, within.parsedTo), within)
  const regions: BlockRegion[] = []
  let m = within.mirrorFrom
  let p = within.parsedFrom
  let open: { m: number; p: number } | undefined
  const close = (mirrorTo: number, parsedTo: number) => {
    if (open) regions.push({ mirrorFrom: open.m, mirrorTo, parsedFrom: open.p, parsedTo })
    open = undefined
  }
  // Between the regions the text diff found, blocks are paired one to one: a pair of unequal nodes joins a region.
  for (const region of [...coarse, { mirrorFrom: within.mirrorTo, mirrorTo: within.mirrorTo, parsedFrom: within.parsedTo, parsedTo: within.parsedTo }]) {
    for (; m < region.mirrorFrom; m++, p++) {
      if (sameNode(mirror.child(m), parsed.child(p))) close(m, p)
      else open ??= { m, p }
    }
    if (region.mirrorFrom < region.mirrorTo || region.parsedFrom < region.parsedTo) open ??= { m: region.mirrorFrom, p: region.parsedFrom }
    m = region.mirrorTo
    p = region.parsedTo
  }
  close(m, p)
  return regions
}

/** The stretches of `within` whose blocks write different Markdown (see `changedBlocks` for blocks that write none). */
function unequalByMarkdown(mirror: Node, parsed: Node, within: BlockRegion): BlockRegion[] {
  return align(markdownOf(mirror, within.mirrorFrom, within.mirrorTo, readBack), markdownOf(parsed, within.parsedFrom, within.parsedTo), within)
}

/** Keys of some blocks of a document, and the index of the block each belongs to. */
interface Keyed {
  readonly keys: string[]
  readonly at: number[]
}

/**
 * A mirror block's Markdown as the source would hold it once parsed: the editor can hold what its serialization does
 * not read back as (a tight list whose item has two paragraphs is written loose), and the source, which is that
 * serialization, parses to the read-back form.
 */
function readBack(markdown: string): string {
  if (markdown === '') return markdown
  const again = serializeMarkdown(parseMarkdownWhole(markdown).doc)
  return again.length === 0 ? again : again.slice(0, -1)
}

/** The blocks `[from, to)` of `doc` that write something (or the only block), keyed by their Markdown. */
function markdownOf(doc: Node, from: number, to: number, normalize?: (markdown: string) => string): Keyed {
  const keyed: Keyed = { keys: [], at: [] }
  for (let i = from; i < to; i++) {
    const written = serializeBlock(doc, i)
    if (written === '' && doc.childCount > 1) continue
    keyed.keys.push(normalize ? normalize(written) : written)
    keyed.at.push(i)
  }
  return keyed
}

/**
 * The stretches where two keyed block lists differ, as a diff of one symbol per key finds them, in block indexes of
 * `within`: from a stretch's first block to its last, or, when one side is empty, right after that side's block
 * before it (the start of `within` when there is none).
 */
function align(mirrorSide: Keyed, parsedSide: Keyed, within: BlockRegion): BlockRegion[] {
  const symbols = new Map<string, string>()
  const encode = (keys: readonly string[]) => {
    let out = ''
    for (const key of keys) {
      let symbol = symbols.get(key)
      if (symbol === undefined) {
        symbol = String.fromCharCode(symbols.size & MAX_KEYS)
        symbols.set(key, symbol)
      }
      out += symbol
    }
    return out
  }
  const mirrorSymbols = encode(mirrorSide.keys)
  const parsedSymbols = encode(parsedSide.keys)
  if (symbols.size > MAX_KEYS) return [within]
  const span = (at: readonly number[], from: number, to: number, start: number): [number, number] => {
    if (from < to) return [at[from]!, at[to - 1]! + 1]
    const after = from > 0 ? at[from - 1]! + 1 : start
    return [after, after]
  }
  const regions: BlockRegion[] = []
  let m = 0
  let p = 0
  let open: { m: number; p: number } | undefined
  const flush = () => {
    if (open && (open.m < m || open.p < p)) {
      const [mirrorFrom, mirrorTo] = span(mirrorSide.at, open.m, m, within.mirrorFrom)
      const [parsedFrom, parsedTo] = span(parsedSide.at, open.p, p, within.parsedFrom)
      regions.push({ mirrorFrom, mirrorTo, parsedFrom, parsedTo })
    }
    open = undefined
  }
  for (const [op, run] of diffMain(mirrorSymbols, parsedSymbols, { diffTimeout: DIFF_TIMEOUT_SECONDS }, false)) {
    if (op === DIFF_EQUAL) {
      flush()
      m += run.length
      p += run.length
    } else {
      open ??= { m, p }
      if (op === DIFF_DELETE) m += run.length
      else if (op === DIFF_INSERT) p += run.length
    }
  }
  flush()
  return regions
}
