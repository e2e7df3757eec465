import { lineTable } from './lines.js'
import { frontMatterEnd } from './parse.js'
import { createTokenizer } from './tokenizer.js'

/**
 * One heading of a Markdown text and the section it opens. Offsets and lengths count UTF-16 code units, as a paged
 * `document.read` does, so `{offset, length}` reads exactly the section; `line` counts from 1.
 */
export interface OutlineHeading {
  readonly level: number
  /** The heading's inline Markdown, its lines joined by a space (a setext heading may span several). */
  readonly title: string
  readonly line: number
  /** Where the heading's first line starts: the start of its section. */
  readonly offset: number
  /** To the next heading of the same or a higher rank (a level no larger), or to the end of the text. */
  readonly length: number
}

/** A heading with the headings its section holds. */
export interface OutlineNode extends OutlineHeading {
  readonly children?: readonly OutlineNode[]
}

const tokenizer = createTokenizer()

/**
 * The headings of a Markdown text in document order: ATX and setext headings as the project's parser reads them, so
 * a `#` line inside a fenced or indented code block, an HTML block or the front matter is no heading. Only headings of
 * the document itself open sections: one inside a block quote or a list item belongs to that block.
 */
export function outlineOf(text: string): OutlineHeading[] {
  const lines = lineTable(text)
  const skipped = frontMatterEnd(lines)
  const tokens = tokenizer.parse(text.slice(lines.start(skipped)), {})
  const found: { level: number; title: string; line: number }[] = []
  tokens.forEach((token, index) => {
    if (token.type !== 'heading_open' || token.level !== 0 || !token.map) return
    const inline = tokens[index + 1]
    found.push({ level: Number(token.tag.slice(1)), title: (inline?.content ?? '').replace(/[ \t]*\n[ \t]*/g, ' ').trim(), line: token.map[0] + skipped })
  })
  // Each section ends where the next heading of its rank or higher begins: the headings still open are a stack.
  const ends: number[] = found.map(() => text.length)
  const open: number[] = []
  found.forEach((heading, index) => {
    while (open.length > 0 && found[open.at(-1)!]!.level >= heading.level) ends[open.pop()!] = lines.start(heading.line)
    open.push(index)
  })
  return found.map(({ level, title, line }, index) => {
    const offset = lines.start(line)
    return { level, title, line: line + 1, offset, length: ends[index]! - offset }
  })
}

/** Headings (in document order) nested under the nearest earlier heading of a higher rank among them. */
export function outlineTree(headings: readonly OutlineHeading[]): OutlineNode[] {
  interface Building extends OutlineHeading {
    children: Building[]
  }
  const roots: Building[] = []
  const open: Building[] = []
  for (const heading of headings) {
    const node: Building = { ...heading, children: [] }
    while (open.length > 0 && open.at(-1)!.level >= heading.level) open.pop()
    ;(open.at(-1)?.children ?? roots).push(node)
    open.push(node)
  }
  const finish = (node: Building): OutlineNode => {
    const { children, ...heading } = node
    return children.length === 0 ? heading : { ...heading, children: children.map(finish) }
  }
  return roots.map(finish)
}
