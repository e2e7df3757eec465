import { isMap, isScalar, isSeq, type Pair, type ParsedNode, type YAMLMap, type YAMLSeq } from 'yaml'
import { renderAfterKey, renderBlockSeq, renderItem, renderPair, type RenderStyle, type YamlValue } from './render.js'
import { column, endOfLine, isRanged, lineBreak, lineStart, SourceError, type Source } from './source.js'

/**
 * The structural edits a patch is made of, each a splice of the source text: only the bytes of the edited node (or
 * the inserted or deleted lines) change. Comments, blank lines, anchors and quoting elsewhere are never re-rendered
 * because nothing else is ever re-rendered.
 */

/** Replace `text.slice(start, end)` with `insert`. */
export interface Splice {
  readonly start: number
  readonly end: number
  readonly insert: string
}

export const applySplice = (text: string, splice: Splice): string =>
  text.slice(0, splice.start) + splice.insert + text.slice(splice.end)

export type ParsedMap = YAMLMap.Parsed
export type ParsedSeq = YAMLSeq.Parsed
export type ParsedPair = Pair<ParsedNode, ParsedNode | null>

/** Thrown for layouts the splicer does not handle (explicit `? key` pairs, `- - a` items): refused, never guessed. */
export class UnsupportedLayout extends SourceError {}

const keyOf = (pair: ParsedPair): ParsedNode => {
  if (!isRanged(pair.key)) throw new UnsupportedLayout('a pair without a key')
  return pair.key
}

/** Where the pair's text ends: its value's end, or its key's when the value is empty. */
const pairEnd = (pair: ParsedPair): number => (isRanged(pair.value) ? pair.value.range[1] : keyOf(pair).range[1])

/** Whether a node is the empty scalar of `key:` with nothing after it. */
export const isEmptyValue = (node: ParsedNode | null): boolean =>
  node === null || (isScalar(node) && node.value === null && node.range[0] === node.range[1])

/** The position just after the `:` of an implicit key. */
function colonEnd(text: string, pair: ParsedPair): number {
  let position = keyOf(pair).range[1]
  while (text[position] === ' ' || text[position] === '\t') position++
  if (text[position] !== ':') throw new UnsupportedLayout('a key that is not followed by ":"')
  return position + 1
}

/** After `&anchor` / `!tag` properties that follow the colon on the key's line: they stay with the pair. */
function propertiesEnd(text: string, from: number): number {
  const match = /^(?:[ \t]+[&!][^ \t\r\n]*)*/.exec(text.slice(from, lineBreak(text, from)))
  return from + (match?.[0].length ?? 0)
}

/** Prefixes every line after the first with `indent`, leaving empty lines empty (a blank line in a block scalar must stay blank). */
function indentFollowing(text: string, indent: number, eol: string): string {
  const pad = ' '.repeat(indent)
  return text
    .split('\n')
    .map((line, index) => (index === 0 || line.length === 0 ? line : pad + line))
    .join(eol)
}

const padded = (text: string, node: ParsedNode): boolean => /^[[{][ \t]/.test(text.slice(node.range[0], node.range[0] + 2))

function styleFor(source: Source, inFlow: boolean, like?: ParsedNode | null): RenderStyle {
  return {
    inFlow,
    like: like ?? undefined,
    padding: like && (isMap(like) || isSeq(like)) && like.flow ? padded(source.text, like) : false,
    indent: source.indent,
    indentSeq: source.indentSeq,
    emptyNull: true,
  }
}

/** Replaces the value of an existing pair of `map` with `value`. */
export function replacePairValue(source: Source, map: ParsedMap, pair: ParsedPair, value: YamlValue): Splice {
  const { text, eol } = source
  const inFlow = map.flow === true
  const old = pair.value
  const keyColumn = column(text, keyOf(pair).range[0])
  if (old === null || isEmptyValue(old)) {
    const rendered = renderAfterKey(value, styleFor(source, inFlow))
    const colon = colonEnd(text, pair)
    // Inline after the colon; a block value goes after whatever comment ends the key's line.
    if (!rendered.startsWith('\n')) return { start: colon, end: colon, insert: indentFollowing(rendered, keyColumn, eol) }
    const end = lineBreak(text, colon)
    return { start: end, end, insert: indentFollowing(rendered, keyColumn, eol) }
  }
  return replaceNode(source, old, value, inFlow, keyColumn, () => propertiesEnd(text, colonEnd(text, pair)))
}

/** Replaces item `index` of `seq` with `value`. */
export function replaceItem(source: Source, seq: ParsedSeq, index: number, value: YamlValue): Splice {
  const item = seq.items[index]
  if (!isRanged(item) || isEmptyValue(item)) throw new UnsupportedLayout('an empty sequence item')
  const itemColumn = column(source.text, item.range[0])
  return replaceNode(source, item, value, seq.flow === true, itemColumn, () => {
    throw new UnsupportedLayout('a block collection inside a sequence item')
  })
}

function replaceNode(source: Source, old: ParsedNode, value: YamlValue, inFlow: boolean, ownerColumn: number, afterColon: () => number): Splice {
  const { text, eol } = source
  const blockCollection = (isMap(old) || isSeq(old)) && !old.flow
  const style = styleFor(source, inFlow, old)
  if (blockCollection && isSeq(old) && Array.isArray(value) && value.length > 0) {
    // A block sequence stays block, at its own column.
    const end = endOfLine(text, old.range[1])
    const rendered = indentFollowing(renderBlockSeq(value, style), column(text, old.range[0]), eol)
    return { start: old.range[0], end, insert: rendered + (text[end - 1] === '\n' ? eol : '') }
  }
  const rendered = renderAfterKey(value, style)
  if (blockCollection) {
    // The collection starts on a later line: replace from the colon (keeping an anchor) to the end of its last line.
    const start = afterColon()
    const end = endOfLine(text, old.range[1])
    return { start, end, insert: indentFollowing(rendered, ownerColumn, eol) + (text[end - 1] === '\n' ? eol : '') }
  }
  if (!rendered.startsWith('\n')) {
    const inline = indentFollowing(rendered.replace(/^ /, ''), ownerColumn, eol)
    const oldText = text.slice(old.range[0], old.range[1])
    // A block scalar's range ends after its last line break; the new text must end the line the same way.
    const lineEnded = oldText.endsWith('\n') && !inline.endsWith('\n')
    const header = inline.indexOf('\n')
    if (header >= 0 && !lineEnded) {
      // A new block scalar: what followed the old scalar on its line (spaces, a comment) would become content, so
      // it moves up behind the header (`|-   # comment`).
      const end = lineBreak(text, old.range[1])
      const rest = text.slice(old.range[1], end)
      const headerEnd = header > 0 && inline[header - 1] === '\r' ? header - 1 : header
      return { start: old.range[0], end, insert: inline.slice(0, headerEnd) + rest + inline.slice(headerEnd) }
    }
    return { start: old.range[0], end: old.range[1], insert: inline + (lineEnded ? eol : '') }
  }
  // A scalar (or alias, or flow collection) becomes a block collection: it moves below the key, after any comment
  // that ended the scalar's line.
  const start = afterColon()
  const end = old.range[1] > 0 && text[old.range[1] - 1] === '\n' ? old.range[1] - 1 : lineBreak(text, old.range[1])
  const rest = text.slice(old.range[1], end)
  return { start, end, insert: rest + indentFollowing(rendered, ownerColumn, eol) }
}

/** Adds `key: value` as the last pair of `map` (which has no pair `key`). */
export function insertPair(source: Source, map: ParsedMap, key: string, value: YamlValue): Splice {
  const { text, eol } = source
  const last = map.items[map.items.length - 1]
  if (map.flow) {
    const rendered = renderPair(key, value, styleFor(source, true, undefined))
    if (!last) return { start: map.range[0] + 1, end: map.range[0] + 1, insert: (padded(text, map) ? ' ' : '') + rendered }
    const end = pairEnd(last)
    return { start: end, end, insert: ', ' + rendered }
  }
  if (!last) throw new UnsupportedLayout('an empty block mapping')
  const rendered = renderPair(key, value, styleFor(source, false, undefined))
  return insertLines(source, endOfLine(text, pairEnd(last)), rendered, column(text, map.range[0]), eol)
}

/** Appends `value` to `seq`. */
export function appendItem(source: Source, seq: ParsedSeq, value: YamlValue): Splice {
  const { text, eol } = source
  const last = seq.items[seq.items.length - 1]
  if (seq.flow) {
    const rendered = renderItem(value, styleFor(source, true, undefined))
    if (!last) return { start: seq.range[0] + 1, end: seq.range[0] + 1, insert: (padded(text, seq) ? ' ' : '') + rendered }
    if (!isRanged(last)) throw new UnsupportedLayout('a flow sequence of pairs')
    return { start: last.range[1], end: last.range[1], insert: ', ' + rendered }
  }
  if (!isRanged(last)) throw new UnsupportedLayout('an empty block sequence')
  const like = isScalar(last) ? last : undefined
  const rendered = renderItem(value, styleFor(source, false, like))
  return insertLines(source, endOfLine(text, last.range[1]), rendered, column(text, seq.range[0]), eol)
}

function insertLines(source: Source, at: number, rendered: string, indent: number, eol: string): Splice {
  const { text } = source
  const lines = ' '.repeat(indent) + indentFollowing(rendered, indent, eol)
  // At the end of a text without a final line break, the new lines start one.
  if (at === text.length && text.length > 0 && !text.endsWith('\n')) return { start: at, end: at, insert: eol + lines }
  return { start: at, end: at, insert: lines + eol }
}

/** Removes `pair` from `map`: its lines (with their own trailing comment), or its text and one comma in a flow map. */
export function deletePair(source: Source, map: ParsedMap, pair: ParsedPair): Splice {
  const index = map.items.indexOf(pair)
  const next = map.items[index + 1]
  const previous = map.items[index - 1]
  const start = keyOf(pair).range[0]
  if (map.flow) {
    if (next) return { start, end: keyOf(next).range[0], insert: '' }
    if (previous) return { start: pairEnd(previous), end: pairEnd(pair), insert: '' }
    return { start, end: pairEnd(pair), insert: '' }
  }
  return deleteLines(source, start, pair.value ?? keyOf(pair), next ? keyOf(next).range[0] : undefined, '{}')
}

/** Removes item `index` of `seq`. */
export function deleteItem(source: Source, seq: ParsedSeq, index: number): Splice {
  const item = seq.items[index]
  const next = seq.items[index + 1]
  const previous = seq.items[index - 1]
  if (!isRanged(item)) throw new UnsupportedLayout('a sequence item that is a pair')
  if (seq.flow) {
    if (isRanged(next)) return { start: item.range[0], end: next.range[0], insert: '' }
    if (isRanged(previous)) return { start: previous.range[1], end: item.range[1], insert: '' }
    return { start: item.range[0], end: item.range[1], insert: '' }
  }
  const { text } = source
  const from = lineStart(text, item.range[0])
  if (!/^[ \t]*-[ \t]+$/.test(text.slice(from, item.range[0]))) throw new UnsupportedLayout('a sequence item that does not start its own line')
  return removeLines(text, from, endOfLine(text, item.range[1]))
}

/** Removes whole lines; the last line of a text without a final line break takes the line break before it along. */
function removeLines(text: string, from: number, end: number): Splice {
  if (end === text.length && !text.endsWith('\n') && from > 0) {
    return { start: from - (text[from - 2] === '\r' ? 2 : 1), end, insert: '' }
  }
  return { start: from, end, insert: '' }
}

/**
 * Deletes the lines from the one holding `start` to the end of `last`'s last line. When something precedes `start`
 * on its line (the `- ` of a step's first key), only the pair's own text goes, up to `next` (which moves up onto the
 * dash line), or it is replaced by `empty` when nothing follows.
 */
function deleteLines(source: Source, start: number, last: ParsedNode, next: number | undefined, empty: string): Splice {
  const { text } = source
  const from = lineStart(text, start)
  const end = endOfLine(text, last.range[1])
  if (text.slice(from, start).trim() === '') return removeLines(text, from, end)
  if (next !== undefined) return { start, end: next, insert: '' }
  let stop = last.range[1]
  if (text[stop - 1] === '\n') stop -= text[stop - 2] === '\r' ? 2 : 1
  return { start, end: Math.max(start, stop), insert: empty }
}
