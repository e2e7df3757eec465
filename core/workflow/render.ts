import { Document, isScalar, isSeq, Pair, Scalar, YAMLMap, YAMLSeq, type Node } from 'yaml'

/**
 * Renders the new text of one edited node with the yaml library's own stringifier, so quoting is only added where a
 * plain scalar would be misread (`'true'`, `"x: y"`, `"#x"`), and matching the style of the node it replaces: a
 * quoted string stays quoted the same way, a block scalar stays a block scalar, a block sequence stays block, a flow
 * sequence keeps its padding. New sequences are flow (`[a, b]`: one line, the smallest diff); new maps are block
 * unless they sit inside a flow collection. Rendering is at column 0; the caller indents every line after the first.
 */

/** What a patch can write: patch values, plus the maps the patcher builds for missing intermediates. */
export type YamlValue = string | number | boolean | null | readonly YamlValue[] | { readonly [key: string]: YamlValue }

export interface RenderStyle {
  /** Inside a flow collection: no block scalars or block collections. */
  readonly inFlow: boolean
  /** The node being replaced, whose style the new one keeps. */
  readonly like?: unknown
  /** `[ a ]` rather than `[a]`, for flow collections. */
  readonly padding?: boolean
  /** The file's indentation step for new block content. */
  readonly indent?: number
  /** Whether the file indents block sequences under their key (`key:\n  - a`) or not (`key:\n- a`). */
  readonly indentSeq?: boolean
  /** Render nulls as nothing (`push:`) instead of `null`; only in block context (a flow `[a, ]` would lose the item). */
  readonly emptyNull?: boolean
}

const isList = (value: YamlValue): value is readonly YamlValue[] => Array.isArray(value)

/** The text after `key:` (including its leading space or newline) for `value` as the value of a map pair. */
export function renderAfterKey(value: YamlValue, style: RenderStyle): string {
  if (style.inFlow) return ' ' + renderFlowItem(value, style)
  const map = new YAMLMap()
  map.items.push(new Pair(new Scalar('k'), build(value, false, style.like)))
  const text = stringify(map, style)
  if (!text.startsWith('k:')) throw new Error(`unexpected rendering of a value: ${JSON.stringify(text)}`)
  return text.slice(2)
}

/** One whole `key: value` pair: block lines (`key: v` or `key:\n  - a`) or, in a flow map, `key: v`. */
export function renderPair(key: string, value: YamlValue, style: RenderStyle): string {
  const map = new YAMLMap()
  map.items.push(new Pair(build(key, style.inFlow, undefined), build(value, style.inFlow, style.like)))
  map.flow = style.inFlow
  return style.inFlow ? unwrapFlow(stringify(map, style), '{', '}', style) : stringify(map, style)
}

/** One sequence item: `- v` (block) or `v` (flow). */
export function renderItem(value: YamlValue, style: RenderStyle): string {
  if (style.inFlow) return renderFlowItem(value, style)
  const seq = new YAMLSeq()
  seq.items.push(build(value, false, style.like))
  return stringify(seq, style)
}

/** A whole block sequence (`- a\n- b`), for replacing a block sequence in place. */
export function renderBlockSeq(values: readonly YamlValue[], style: RenderStyle): string {
  const seq = build(values, false, style.like)
  if (!isSeq(seq)) throw new Error('a list must render as a sequence')
  seq.flow = false
  return stringify(seq, style)
}

function renderFlowItem(value: YamlValue, style: RenderStyle): string {
  const seq = new YAMLSeq()
  seq.flow = true
  seq.items.push(build(value, true, style.like))
  return unwrapFlow(stringify(seq, style), '[', ']', style)
}

function unwrapFlow(text: string, open: string, close: string, style: RenderStyle): string {
  const pad = style.padding ? ' ' : ''
  if (!text.startsWith(open + pad) || !text.endsWith(pad + close)) throw new Error(`unexpected flow rendering: ${JSON.stringify(text)}`)
  return text.slice(open.length + pad.length, text.length - close.length - pad.length)
}

function stringify(node: Node, style: RenderStyle): string {
  const doc = new Document(null, { version: '1.2' })
  doc.contents = node
  const text = doc.toString({
    lineWidth: 0,
    minContentWidth: 0,
    flowCollectionPadding: style.padding ?? false,
    indent: style.indent ?? 2,
    indentSeq: style.indentSeq ?? true,
    nullStr: style.emptyNull && !style.inFlow ? '' : 'null',
  })
  return text.endsWith('\n') ? text.slice(0, -1) : text
}

/** The node for `value`, keeping the style of `like` (the node it replaces) where that style can hold the value. */
function build(value: YamlValue, inFlow: boolean, like: unknown): Node {
  if (isList(value)) {
    const seq = new YAMLSeq()
    const likeSeq = isSeq(like) ? like : undefined
    seq.flow = inFlow || !likeSeq || likeSeq.flow === true
    value.forEach((item, index) => {
      const likeItem = likeSeq?.items[Math.min(index, likeSeq.items.length - 1)]
      seq.items.push(build(item, seq.flow === true, likeItem))
    })
    return seq
  }
  if (value !== null && typeof value === 'object') {
    const map = new YAMLMap()
    map.flow = inFlow
    for (const [key, item] of Object.entries(value)) map.items.push(new Pair(build(key, inFlow, undefined), build(item, inFlow, undefined)))
    return map
  }
  const scalar = new Scalar(value)
  if (typeof value === 'string') scalar.type = stringType(value, inFlow, isScalar(like) ? like.type : undefined)
  return scalar
}

/**
 * The scalar style for a new string: the replaced node's, unless it cannot hold the value (a block scalar inside a
 * flow collection) or would render badly (a multi-line plain or single-quoted scalar folds into blank lines).
 * The library still quotes a PLAIN string that would read as another type or break the syntax.
 */
function stringType(value: string, inFlow: boolean, old: Scalar['type'] | undefined): Scalar['type'] {
  const block = old === Scalar.BLOCK_LITERAL || old === Scalar.BLOCK_FOLDED
  if (value.includes('\n')) {
    if (inFlow || old === Scalar.QUOTE_DOUBLE) return Scalar.QUOTE_DOUBLE
    return block ? old : Scalar.BLOCK_LITERAL
  }
  if (inFlow && block) return Scalar.PLAIN
  return old ?? Scalar.PLAIN
}
