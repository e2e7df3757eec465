import type { MarkdownIt, Token } from 'markdown-it'
import { MarkdownParser, type ParseSpec } from 'prosemirror-markdown'
import type { Node } from 'prosemirror-model'
import { markdownSchema, type RawBlockKind } from './schema.js'
import { createTokenizer } from './tokenizer.js'
import { formatDestination, formatTitle } from './destination.js'
import { lineTable, type LineTable } from './lines.js'
import { mayDefine, reparse, WHOLE_BELOW, type ParseEntry } from './reparse.js'

/** Where one top-level node came from: `[from, to)` in UTF-16 offsets, whole lines, without the final line break. */
export interface BlockSpan {
  readonly from: number
  readonly to: number
}

/**
 * A parse with its block map: `spans[i]` is the source of `doc.child(i)`. A document with no blocks parses to one
 * empty paragraph whose span is `{from: 0, to: 0}`.
 */
export interface ParsedMarkdown {
  readonly doc: Node
  readonly spans: readonly BlockSpan[]
}

const tokenizer = createTokenizer()

/** Handled inline token types; anything else inside a block sends the whole top-level block to a raw block. */
const INLINE_TYPES = new Set([
  'text',
  'softbreak',
  'hardbreak',
  'em_open',
  'em_close',
  'strong_open',
  'strong_close',
  's_open',
  's_close',
  'link_open',
  'link_close',
  'image',
  'code_inline',
  'html_inline',
  'raw_inline',
])

/** Block token types the schema models. */
const BLOCK_TYPES = new Set([
  'paragraph_open',
  'paragraph_close',
  'heading_open',
  'heading_close',
  'blockquote_open',
  'blockquote_close',
  'bullet_list_open',
  'bullet_list_close',
  'ordered_list_open',
  'ordered_list_close',
  'list_item_open',
  'list_item_close',
  'code_block',
  'fence',
  'hr',
  'inline',
])

/** Block tokens whose map covers the lines they hold (the leaves); container lines are covered by their leaves. */
const LEAF_TYPES = new Set(['paragraph_open', 'heading_open', 'code_block', 'fence', 'hr', 'html_block', 'math_block', 'table_open'])

/** A GFM footnote definition opens the paragraph: kept raw, as CommonMark has no footnotes. */
const FOOTNOTE = /^ {0,3}\[\^[^\]\s]+\]:/

/** The first token type of a block kept raw, and the kind it is recorded as. */
const RAW_KINDS: Readonly<Record<string, RawBlockKind>> = { table_open: 'table', html_block: 'html', math_block: 'math' }

function listIsTight(tokens: readonly Token[], i: number): boolean {
  while (++i < tokens.length) if (tokens[i]!.type !== 'list_item_open') return tokens[i]!.hidden
  return false
}

const SPECS: Record<string, ParseSpec> = {
  blockquote: { block: 'blockquote' },
  paragraph: { block: 'paragraph' },
  list_item: { block: 'list_item', getAttrs: (tok) => ({ checked: (tok.meta as { checked?: boolean } | null)?.checked ?? null }) },
  bullet_list: {
    block: 'bullet_list',
    getAttrs: (tok, tokens, i) => ({ tight: listIsTight(tokens, i), bullet: tok.markup || '-' }),
  },
  ordered_list: {
    block: 'ordered_list',
    getAttrs: (tok, tokens, i) => ({
      order: Number(tok.attrGet('start') ?? 1) || 0,
      tight: listIsTight(tokens, i),
      delimiter: tok.markup === ')' ? ')' : '.',
    }),
  },
  heading: { block: 'heading', getAttrs: (tok) => ({ level: Number(tok.tag.slice(1)) }) },
  code_block: { block: 'code_block', noCloseToken: true },
  fence: { block: 'code_block', getAttrs: (tok) => ({ params: tok.info, fence: tok.markup }), noCloseToken: true },
  hr: { node: 'horizontal_rule' },
  image: {
    node: 'image',
    getAttrs: (tok) => ({
      src: tok.attrGet('src') ?? '',
      title: tok.attrGet('title') || null,
      alt: inlineText(tok.children ?? []) || null,
    }),
  },
  hardbreak: { node: 'hard_break' },
  em: { mark: 'em' },
  strong: { mark: 'strong' },
  s: { mark: 'strike' },
  link: { mark: 'link', getAttrs: (tok) => ({ href: tok.attrGet('href') ?? '', title: tok.attrGet('title') || null }) },
  code_inline: { mark: 'code', noCloseToken: true },
  html_inline: { node: 'raw_inline', getAttrs: (tok) => ({ source: tok.content }) },
  raw_inline: { node: 'raw_inline', getAttrs: (tok) => ({ source: tok.content }) },
  raw_block: { node: 'raw_block', getAttrs: (tok) => ({ source: tok.content, kind: tok.info }) },
}

/**
 * prosemirror-markdown's parser over tokens we prepare ourselves: its "tokenizer" hands back the tokens passed in
 * the environment, so each top-level block is parsed on its own and maps to exactly one node.
 */
const blockParser = new MarkdownParser(
  markdownSchema,
  { parse: (_source: string, env: { tokens: Token[] }) => env.tokens } as unknown as MarkdownIt,
  SPECS,
)

/** Parses Markdown into a document of `markdownSchema`. Never throws; never drops a non-whitespace character. */
export function parseMarkdown(text: string): Node {
  return parseMarkdownWithSpans(text).doc
}

/**
 * The last text parsed and what it gave. The bridge parses the text it has just written to check it, and the next
 * keystroke parses that same text again as the starting point: one entry halves the parsing of steady typing. A
 * text that differs from it in a few blocks is parsed from it (`reparse`): a keystroke costs the blocks it touches.
 * Parsed nodes are immutable, so sharing them is safe.
 */
let lastParsed: ParseEntry | undefined

/** Parses Markdown and reports which source lines each top-level node came from. */
export function parseMarkdownWithSpans(text: string): ParsedMarkdown {
  if (lastParsed?.text === text) return lastParsed.parsed
  const again = lastParsed && reparse(lastParsed, text, parseUncached)
  const entry = again ? { text, parsed: again, local: true } : { text, parsed: parseUncached(text), local: !mayDefine(text) }
  // A block parsed on its own between two keystrokes' parses must not push the document's parse out.
  if (!lastParsed || text.length >= WHOLE_BELOW || lastParsed.text.length < WHOLE_BELOW) lastParsed = entry
  return entry.parsed
}

/** A whole parse, with no parse before it to start from (what `reparse` is checked against). */
export function parseMarkdownWhole(text: string): ParsedMarkdown {
  return parseUncached(text)
}

function parseUncached(text: string): ParsedMarkdown {
  const lines = lineTable(text)
  const nodes: Node[] = []
  const spans: BlockSpan[] = []
  const add = (node: Node, first: number, end: number) => {
    nodes.push(node)
    spans.push({ from: lines.start(first), to: lines.end(end - 1) })
  }
  const raw = (first: number, end: number, kind: RawBlockKind) => {
    const last = lastContentLine(lines, first, end)
    if (last < first) return
    add(rawBlock(text.slice(lines.start(first), lines.end(last)), kind), first, last + 1)
  }

  let offsetLine = frontMatterEnd(lines)
  if (offsetLine > 0) raw(0, offsetLine, 'front_matter')
  const rest = text.slice(lines.start(offsetLine))
  const tokens = tokenizer.parse(rest, {})

  let covered = offsetLine
  /** Non-blank lines no token claimed (link reference definitions): kept as raw blocks, run by run. */
  const gap = (until: number) => {
    let line = covered
    while (line < until) {
      if (lines.isBlank(line)) {
        line++
        continue
      }
      let end = line
      while (end < until && !lines.isBlank(end)) end++
      raw(line, end, 'definitions')
      line = end
    }
    covered = until
  }

  for (let i = 0; i < tokens.length; ) {
    const first = tokens[i]!
    let j = i
    if (first.nesting === 1) {
      while (j < tokens.length && !(tokens[j]!.level === first.level && tokens[j]!.nesting === -1)) j++
    }
    const group = tokens.slice(i, j + 1)
    i = j + 1
    const map = first.map
    if (!map) continue
    const start = map[0] + offsetLine
    const end = lastContentLine(lines, start, map[1] + offsetLine) + 1
    gap(start)
    covered = Math.max(covered, map[1] + offsetLine)
    if (end <= start) continue
    const rawKind =
      RAW_KINDS[first.type] ??
      (!BLOCK_TYPES.has(first.type) ? 'other' : first.type === 'paragraph_open' && FOOTNOTE.test(lines.text(start)) ? 'definitions' : undefined)
    if (rawKind !== undefined || !modelsEverything(group, lines, offsetLine, start, end)) {
      raw(start, end, rawKind ?? 'other')
      continue
    }
    const node = parseGroup(group)
    if (node && !marksInlineNodes(node)) add(node, start, end)
    else raw(start, end, 'other')
  }
  gap(lines.count)

  if (nodes.length === 0) {
    return { doc: markdownSchema.topNodeType.createAndFill()!, spans: [{ from: 0, to: 0 }] }
  }
  return { doc: markdownSchema.topNodeType.create(null, nodes), spans }
}

/** The one node a top-level token group makes, or null when it does not make exactly one. */
function parseGroup(group: Token[]): Node | null {
  prepare(group)
  try {
    const doc = blockParser.parse('', { tokens: group })
    return doc.childCount === 1 ? doc.child(0) : null
  } catch {
    return null
  }
}

/**
 * Whether the schema can hold this group without losing anything: every token is one it models, and every
 * non-blank line is covered by a leaf block (a link reference definition inside a list or quote is not).
 */
function modelsEverything(group: readonly Token[], lines: LineTable, offsetLine: number, start: number, end: number): boolean {
  const coveredLines = new Set<number>()
  for (const token of group) {
    if (!BLOCK_TYPES.has(token.type)) return false
    if (token.type === 'inline' && !(token.children ?? []).every((child) => INLINE_TYPES.has(child.type) || child.type === 'text_special')) {
      return false
    }
    if (LEAF_TYPES.has(token.type) && token.map) {
      for (let line = token.map[0]; line < token.map[1]; line++) coveredLines.add(line + offsetLine)
    }
  }
  for (let line = start; line < end; line++) {
    if (!coveredLines.has(line) && !lines.isMarkerOnly(line)) return false
  }
  return true
}

/**
 * Rewrites a group's tokens into what the token specs expect: soft breaks become "\n" text (so a paragraph keeps its
 * lines), `text_special` becomes text, a link with no text becomes a raw inline (a mark on nothing would vanish),
 * and a list item starting `[ ]` or `[x]` becomes a task item.
 */
function prepare(group: Token[]): void {
  for (let i = 0; i < group.length; i++) {
    const token = group[i]!
    if (token.type === 'list_item_open') markTask(token, group[i + 1], group[i + 2])
    if (token.type !== 'inline' || !token.children) continue
    const children: Token[] = []
    const source = token.children
    for (let k = 0; k < source.length; k++) {
      const child = source[k]!
      if (child.type === 'softbreak') {
        children.push(retype(child, 'text', '\n'))
      } else if (child.type === 'text_special') {
        children.push(retype(child, 'text', child.content))
      } else if (child.type === 'link_open' && source[k + 1]?.type === 'link_close') {
        const href = String(child.attrGet('href') ?? '')
        children.push(retype(child, 'raw_inline', `[](${formatDestination(href)}${formatTitle(child.attrGet('title'))})`))
        k++
      } else {
        children.push(child)
      }
    }
    token.children = children
  }
}

const TASK = /^\[([ xX])\](?:[ \t]+|$)/

function markTask(item: Token, open: Token | undefined, inline: Token | undefined): void {
  if (open?.type !== 'paragraph_open' || inline?.type !== 'inline') return
  const children = inline.children ?? []
  const first = children[0]
  if (first?.type !== 'text') return
  const match = TASK.exec(first.content)
  if (!match) return
  const restOfText = first.content.slice(match[0].length)
  // "[ ]" alone is not a task: there must be something after the box.
  if (restOfText.trim().length === 0 && children.length === 1) return
  item.meta = { checked: match[1] !== ' ' }
  first.content = restOfText
}

function retype(token: Token, type: string, content: string): Token {
  const copy = Object.assign(Object.create(Object.getPrototypeOf(token) as object) as Token, token)
  copy.type = type
  copy.content = content
  return copy
}

/** The text of inline tokens, as an image's alt text. */
function inlineText(tokens: readonly Token[]): string {
  let text = ''
  for (const token of tokens) {
    if (token.type === 'text' || token.type === 'code_inline' || token.type === 'text_special') text += token.content
    else if (token.type === 'softbreak' || token.type === 'hardbreak') text += ' '
    else if (token.type === 'image') text += inlineText(token.children ?? [])
  }
  return text
}

function rawBlock(source: string, kind: RawBlockKind): Node {
  return markdownSchema.nodes['raw_block']!.create({ source, kind })
}

/** The last non-blank line in `[first, end)`, or `first - 1`. */
function lastContentLine(lines: LineTable, first: number, end: number): number {
  let last = Math.min(end, lines.count) - 1
  while (last >= first && lines.isBlank(last)) last--
  return last
}

/** YAML (`---`) front matter at the very start: the number of lines it takes, or 0. */
export function frontMatterEnd(lines: LineTable): number {
  if (lines.count < 2 || lines.text(0) !== '---') return 0
  for (let line = 1; line < lines.count; line++) {
    const text = lines.text(line).trimEnd()
    if (text === '---' || text === '...') return line + 1
  }
  return 0
}

/**
 * Whether a block holds an inline node (image, hard break, raw HTML) that carries a mark: a linked image (a README
 * badge), emphasis across a hard break. The WYSIWYG mirror cannot hold marks on inline nodes (y-prosemirror keeps
 * them on text only), so such a block would lose its link or emphasis on the way through an editor; it is kept as a
 * raw block instead, byte for byte.
 */
function marksInlineNodes(block: Node): boolean {
  let found = false
  block.descendants((node) => {
    if (found) return false
    if (node.isInline && !node.isText && node.marks.length > 0) found = true
    return !found
  })
  return found
}
