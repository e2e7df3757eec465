import { MarkdownSerializerState, type MarkdownSerializer } from 'prosemirror-markdown'
import type { Mark, Node } from 'prosemirror-model'
import { formatDestination, formatTitle } from './destination.js'
import { markdownSchema } from './schema.js'

/** prosemirror-markdown's mark spec (its typings do not export the name). */
type MarkSerializerSpec = ConstructorParameters<typeof MarkdownSerializer>[1][string]

type NodeSerializer = (state: QuireState, node: Node, parent: Node, index: number) => void

/** The fields of prosemirror-markdown's serializer state that its typings mark internal. */
interface StateInternals {
  out: string
  delim: string
  inAutolink: boolean | undefined
}

type StateConstructor = new (
  nodes: Record<string, NodeSerializer>,
  marks: Record<string, MarkSerializerSpec>,
  options: { tightLists?: boolean; strict?: boolean },
) => MarkdownSerializerState

/** Only container markers and whitespace so far on the output line: what follows starts a line's content. */
const MARKERS_ONLY = /^(?:[ \t]*(?:>|[-+*]|\d{1,9}[.)]))*[ \t]*$/
/** The same, ending in an ATX heading's opening: the start of a heading's content. */
const HEADING_START = /^(?:[ \t]*(?:>|[-+*]|\d{1,9}[.)]))*[ \t]*#{1,6} $/
/** The same, ending in a task item's checkbox, after which the parser drops whitespace too. */
const TASK_START = /^(?:[ \t]*(?:>|[-+*]|\d{1,9}[.)]))*[ \t]*\[[ xX]\] $/

/**
 * prosemirror-markdown's serializer state with escaping that makes `parse ∘ serialize` keep text as text: every
 * line of a paragraph (not only its first) is escaped as a line start, inline HTML, entities, setext underlines,
 * table delimiter rows and `$$` are neutralized, and whitespace the parser would strip (or read as a hard break or
 * an indented code block) is left out.
 */
class QuireState extends (MarkdownSerializerState as unknown as StateConstructor) {
  inHeading = false

  private get internals(): StateInternals {
    return this as unknown as StateInternals
  }

  override text(text: string, escape = true): void {
    const internals = this.internals
    const lines = (this.inHeading && escape ? text.replace(/\n/g, ' ') : text).split('\n')
    for (let i = 0; i < lines.length; i++) {
      let line = lines[i]!
      const last = i === lines.length - 1
      this.write()
      const prefix = internals.out.slice(internals.out.lastIndexOf('\n') + 1)
      const lineStart = MARKERS_ONLY.test(prefix)
      if (escape) {
        if (lineStart || (this.inHeading && HEADING_START.test(prefix)) || TASK_START.test(prefix)) line = line.replace(/^[ \t]+/, '')
        if (!last) line = line.replace(/[ \t]+$/, '')
        internals.out += this.esc(line, lineStart)
      } else {
        // An unescaped `[` (a link opening) after a literal `!` would make an image.
        if (line[0] === '[' && /(^|[^\\])!$/.test(internals.out.slice(-2))) internals.out = internals.out.slice(0, -1) + '\\!'
        internals.out += line
      }
      if (!last) internals.out += '\n'
    }
  }

  override esc(str: string, startOfLine = false): string {
    let escaped = str
      .replace(/\[\^[^\]\s[]+\]|[`*\\~[\]_]/g, (m: string, i: number) => {
        // A footnote reference `[^1]` stays as written (GFM renders it; CommonMark reads it as text).
        if (m.length > 1) return m
        return m === '_' && i > 0 && i + 1 < str.length && /\w/.test(str[i - 1]!) && /\w/.test(str[i + 1]!) ? m : '\\' + m
      })
      .replace(/<(?=[A-Za-z/!?])/g, '\\<')
      .replace(/&(?=#?[A-Za-z0-9]+;)/g, '\\&')
    if (startOfLine) {
      escaped = escaped
        .replace(/^(#{1,6})(?=[ \t]|$)/, '\\$1')
        .replace(/^[-+>](?=[ \t]|$)/, '\\$&')
        .replace(/^>/, '\\>')
        .replace(/^[-=](?=[-= \t]*$)/, '\\$&')
        .replace(/^(\d{1,9})([.)])(?=[ \t]|$)/, '$1\\$2')
        .replace(/^\$\$/, '\\$$$$')
      // A line of pipes, colons and dashes could be a table's delimiter row.
      if (/^[ \t|:\\-]+$/.test(escaped) && escaped.includes('-')) escaped = escaped.replace(/[|:]/g, '\\$&')
    }
    return escaped
  }

  /** Trims whitespace a block's inline content ended with (the parser would drop it, or read a hard break). */
  trimTrailingSpace(): void {
    const internals = this.internals
    // A loop, not /[ \t]+$/: a regex anchored at the end still scans the whole (growing) output.
    let end = internals.out.length
    while (end > 0 && (internals.out[end - 1] === ' ' || internals.out[end - 1] === '\t')) end--
    if (end < internals.out.length) internals.out = internals.out.slice(0, end)
  }

  /**
   * Moves every finished line of the output to `chunks`, keeping only the current line. The state inspects its
   * output's end all the time, and on one long string each look costs a copy of it (V8 flattens the rope), which
   * made serialization quadratic.
   */
  commitLines(chunks: string[]): void {
    const internals = this.internals
    const cut = internals.out.lastIndexOf('\n')
    if (cut < 0) return
    chunks.push(internals.out.slice(0, cut + 1))
    internals.out = internals.out.slice(cut + 1)
  }

  get output(): string {
    return this.internals.out
  }

  set autolink(value: boolean | undefined) {
    this.internals.inAutolink = value
  }

  get autolink(): boolean | undefined {
    return this.internals.inAutolink
  }
}

/**
 * A paragraph or heading with nothing to show: no text but whitespace, no image, no raw inline. A code span is
 * something to show even when it holds only spaces (`` ` ` `` reads back as a one-space code span).
 */
function isBlankInline(node: Node): boolean {
  let blank = true
  node.forEach((child) => {
    if (showsSomething(child)) blank = false
  })
  return blank
}

function showsSomething(inline: Node): boolean {
  return inline.isText ? /\S/.test(inline.text ?? '') || inline.marks.some((mark) => mark.type.name === 'code') : inline.type.name !== 'hard_break'
}

/** The bullet a list is written with: its own, or the other one when the list before it uses the same. */
function bulletFor(parent: Node, index: number): string {
  const node = parent.child(index)
  const own = String(node.attrs['bullet'])
  const bullet = own === '*' || own === '+' ? own : '-'
  if (index > 0 && parent.child(index - 1).type === node.type && bulletFor(parent, index - 1) === bullet) {
    return bullet === '-' ? '*' : '-'
  }
  return bullet
}

function delimiterFor(parent: Node, index: number): string {
  const node = parent.child(index)
  const delimiter = node.attrs['delimiter'] === ')' ? ')' : '.'
  if (index > 0 && parent.child(index - 1).type === node.type && delimiterFor(parent, index - 1) === delimiter) {
    return delimiter === '.' ? ')' : '.'
  }
  return delimiter
}

/**
 * A code span's fence on one side (`side` < 0 opens): one backtick more than the longest run inside, and a space
 * between fence and content when CommonMark would otherwise take one away or join them: content with backticks, or
 * content that starts and ends with a space (and is not all spaces), of which one is stripped at each end. The
 * serializer writes each code text node as a span of its own, so `content` is that node's text (before any
 * whitespace another mark expels from it: a padded span whose content then starts with no space reads back the same).
 */
function backticksFor(content: string, side: number): string {
  let len = 0
  for (const match of content.matchAll(/`+/g)) len = Math.max(len, match[0].length)
  const fence = '`'.repeat(len + 1)
  const pad = len > 0 || (content.length > 1 && content[0] === ' ' && content[content.length - 1] === ' ' && /[^ ]/.test(content))
  if (!pad) return fence
  return side < 0 ? fence + ' ' : ' ' + fence
}

/** A link written `<url>`: no title, its text is its URL, and the URL is valid as an autolink. */
function isPlainURL(link: Mark, parent: Node, index: number): boolean {
  const href = String(link.attrs['href'])
  if (link.attrs['title'] || !/^[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*$/.test(href)) return false
  const content = parent.child(index)
  if (!content.isText || content.text !== href || content.marks[content.marks.length - 1] !== link) return false
  return index === parent.childCount - 1 || !link.isInSet(parent.child(index + 1).marks)
}

/**
 * prosemirror-markdown separates two adjacent lists of one type with an extra blank line, which CommonMark no
 * longer honours; alternating markers (`bulletFor`, `delimiterFor`) keeps them apart, so the usual single blank line
 * is enough and reads back the same.
 */
function keepListsApartByMarker(state: QuireState, node: Node): void {
  const internals = state as unknown as { closed: Node | null }
  if (internals.closed && internals.closed.type === node.type) internals.closed = markdownSchema.nodes['paragraph']!.create()
}

const NODES: Record<string, NodeSerializer> = {
  blockquote(state, node) {
    state.wrapBlock('> ', null, node, () => state.renderContent(node))
  },
  code_block(state, node) {
    const written = String(node.attrs['fence'] || '```')
    const params = String(node.attrs['params'] ?? '').replace(/\n/g, ' ')
    const char = written[0] === '~' || params.includes('`') ? '~' : '`'
    let length = Math.max(3, written.length)
    const content = node.textContent
    for (const match of content.matchAll(char === '`' ? /^[ \t]*(`{3,})/gm : /^[ \t]*(~{3,})/gm)) {
      length = Math.max(length, match[1]!.length + 1)
    }
    const fence = char.repeat(length)
    state.write(fence + params + '\n')
    if (content.length > 0) {
      state.text(content, false)
      state.write('\n')
    }
    state.write(fence)
    state.closeBlock(node)
  },
  heading(state, node) {
    state.write('#'.repeat(Math.min(6, Math.max(1, Number(node.attrs['level']) || 1))) + ' ')
    state.inHeading = true
    state.renderInline(node, false)
    state.inHeading = false
    state.trimTrailingSpace()
    // A closing run of `#` would be read as the optional closing sequence and dropped.
    const out = state.output
    const closing = /(^|[ \t])(#+)$/.exec(out.slice(out.lastIndexOf('\n') + 1))
    if (closing && !/^(?:[ \t]*(?:>|[-+*]|\d{1,9}[.)]))*[ \t]*#{1,6}$/.test(out.slice(out.lastIndexOf('\n') + 1))) {
      const at = out.length - closing[2]!.length
      ;(state as unknown as StateInternals).out = out.slice(0, at) + '\\' + out.slice(at)
    }
    state.closeBlock(node)
  },
  horizontal_rule(state, node) {
    state.write('---')
    state.closeBlock(node)
  },
  bullet_list(state, node, parent, index) {
    keepListsApartByMarker(state, node)
    const bullet = bulletFor(parent, index)
    state.renderList(node, '  ', () => bullet + ' ')
  },
  ordered_list(state, node, parent, index) {
    keepListsApartByMarker(state, node)
    const order = Number(node.attrs['order'])
    const start = Number.isInteger(order) && order >= 0 && order <= 999_999_999 - node.childCount ? order : 1
    const delimiter = delimiterFor(parent, index)
    const width = String(start + node.childCount - 1).length
    state.renderList(node, ' '.repeat(width + 2), (i) => `${start + i}${delimiter} `)
  },
  list_item(state, node) {
    const checked = node.attrs['checked']
    if (checked !== null && node.firstChild?.type.name === 'paragraph' && !isBlankInline(node.firstChild)) {
      state.write(checked ? '[x] ' : '[ ] ')
    }
    state.renderContent(node)
  },
  paragraph(state, node) {
    // An empty paragraph has no Markdown: writing one would leave blank lines the parser does not give back.
    if (isBlankInline(node)) return
    state.renderInline(node)
    state.trimTrailingSpace()
    state.closeBlock(node)
  },
  raw_block(state, node) {
    const source = String(node.attrs['source'] ?? '')
    if (source.length === 0) return
    state.text(source, false)
    state.closeBlock(node)
  },
  image(state, node) {
    state.write(
      '![' + state.esc(String(node.attrs['alt'] ?? '')) + '](' + formatDestination(String(node.attrs['src'] ?? '')) + formatTitle(node.attrs['title']) + ')',
    )
  },
  hard_break(state, _node, parent, index) {
    if (state.inHeading) {
      // A heading is one line, so a break in it is a space; but not before its first content (a setext heading can
      // start with a break), where the parser would strip the space and the next round trip would differ.
      const out = state.output
      if (!HEADING_START.test(out.slice(out.lastIndexOf('\n') + 1))) state.write(' ')
      return
    }
    // Only before something to show: whitespace after the last break is trimmed, and a break at the end would be
    // left as a literal backslash.
    for (let i = index + 1; i < parent.childCount; i++) {
      if (showsSomething(parent.child(i))) {
        state.write('\\\n')
        return
      }
    }
  },
  raw_inline(state, node) {
    state.text(String(node.attrs['source'] ?? ''), false)
  },
  text(state, node) {
    state.text(node.text ?? '', !state.autolink)
  },
}

const MARKS: Record<string, MarkSerializerSpec> = {
  em: { open: '*', close: '*', mixable: true, expelEnclosingWhitespace: true },
  strong: { open: '**', close: '**', mixable: true, expelEnclosingWhitespace: true },
  strike: { open: '~~', close: '~~', mixable: true, expelEnclosingWhitespace: true },
  link: {
    open(state, mark, parent, index) {
      const plain = isPlainURL(mark, parent, index)
      ;(state as unknown as QuireState).autolink = plain
      return plain ? '<' : '['
    },
    close(state, mark) {
      const quire = state as unknown as QuireState
      const plain = quire.autolink
      quire.autolink = undefined
      return plain ? '>' : '](' + formatDestination(String(mark.attrs['href'])) + formatTitle(mark.attrs['title']) + ')'
    },
    mixable: true,
  },
  code: {
    open: (_state, _mark, parent, index) => backticksFor(parent.child(index).text ?? '', -1),
    close: (_state, _mark, parent, index) => backticksFor(parent.child(index - 1).text ?? '', 1),
    escape: false,
  },
}

/**
 * Writes a document of `markdownSchema` as Markdown: ATX headings, `-` bullets unless the list says otherwise, fenced
 * code with its own fence, `*em*`, `**strong**`, `~~strike~~`, backslash hard breaks, raw blocks and raw inlines
 * byte for byte, one trailing line break (none for an empty document).
 */
export function serializeMarkdown(doc: Node): string {
  const state = new QuireState(NODES as Record<string, NodeSerializer>, MARKS, { tightLists: false, strict: false })
  const chunks: string[] = []
  doc.forEach((child, _offset, index) => {
    state.render(child, doc, index)
    state.commitLines(chunks)
  })
  chunks.push(state.output)
  let out = chunks.join('')
  let end = out.length
  while (end > 0 && out[end - 1] === '\n') end--
  out = out.slice(0, end)
  return out.length === 0 ? '' : out + '\n'
}

/**
 * The Markdown of `parent.child(index)` as `serializeMarkdown(parent)` writes it (a list with the marker it gets
 * beside the list before it), without the final line break; '' for a block that writes nothing. A document writes
 * its top-level blocks one after another, a blank line apart, so two block lists whose blocks write alike, one by
 * one, write the same Markdown.
 */
export function serializeBlock(parent: Node, index: number): string {
  let node = parent.child(index)
  if (node.type.name === 'bullet_list') node = node.type.create({ ...node.attrs, bullet: bulletFor(parent, index) }, node.content, node.marks)
  else if (node.type.name === 'ordered_list') node = node.type.create({ ...node.attrs, delimiter: delimiterFor(parent, index) }, node.content, node.marks)
  const out = serializeMarkdown(markdownSchema.topNodeType.create(null, [node]))
  return out.length === 0 ? out : out.slice(0, -1)
}
