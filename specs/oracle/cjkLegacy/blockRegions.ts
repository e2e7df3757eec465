import { BLOCK, type Placeholder } from '../../../core/text/cjk/placeholders.js'

/** A protected stretch of the original text, `[start, end)` in UTF-16 code units. */
export interface Region {
  readonly start: number
  readonly end: number
  readonly placeholder: Placeholder
}

interface Line {
  readonly start: number
  /** End of the content, before `\r\n` or `\n`. */
  readonly end: number
}

export interface BlockScan {
  /** Block regions, sorted; each spans whole lines, without the final line ending. */
  readonly regions: Region[]
  /** Normalised labels of the reference definitions (`[id]: url`), so shortcut links `[id]` can be recognised. */
  readonly labels: Set<string>
}

const BLANK = /^[ \t]*$/
const FENCE_OPEN = /^((?:[ \t]*>)*[ \t]*)(`{3,}|~{3,})(.*)$/
const MATH_OPEN = /^[ \t]{0,3}\$\$/
const REFERENCE_DEFINITION = /^[ \t]{0,3}\[((?:[^\]\\]|\\.){1,999})\]:[ \t]*\S/
const LIST_ITEM = /^[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)/
const HTML_RAW_OPEN = /^[ \t]{0,3}<(script|pre|style|textarea)(?:[ \t>]|$)/i
const HTML_BLOCK_NAMES =
  'address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h1|h2|h3|h4|h5|h6|head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol|optgroup|option|p|param|search|section|summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul'
const HTML_NAMED_OPEN = new RegExp(`^[ \\t]{0,3}</?(?:${HTML_BLOCK_NAMES})(?:[ \\t/>]|$)`, 'i')
const HTML_LONE_TAG = /^[ \t]{0,3}(?:<[A-Za-z][A-Za-z0-9-]*(?:[ \t]+[^<>]*)?\/?>|<\/[A-Za-z][A-Za-z0-9-]*[ \t]*>)[ \t]*$/
const REFERENCE_HEADING =
  /^[ \t]{0,3}(#{1,6})[ \t]+(?:references|bibliography|works cited|参考文献|参考资料|参考資料|参考书目|參考文獻|引用文献)[ \t]*#*[ \t]*$/i
const HEADING = /^[ \t]{0,3}(#{1,6})(?:[ \t]|$)/

/** ASCII table of the characters a block can start with (after indentation and `>`): `` ` ~ $ < [ # ``. */
const BLOCK_LEAD = asciiTable('`~$<[#')
/** ASCII table of the characters a list item can start with. */
const LIST_LEAD = asciiTable('-*+0123456789')

function asciiTable(chars: string): Uint8Array {
  const table = new Uint8Array(0x80)
  for (const char of chars) table[char.charCodeAt(0)] = 1
  return table
}

const FENCE_CLOSERS = new Map<string, RegExp>()

/** The closing-fence pattern for an opening fence: same character, at least as long, nothing else on the line. */
function fenceCloser(marker: string): RegExp {
  let closer = FENCE_CLOSERS.get(marker)
  if (!closer) {
    closer = new RegExp(`^(?:[ \\t]*>)*[ \\t]*${marker[0] === '`' ? '`' : '~'}{${marker.length},}[ \\t]*$`)
    if (FENCE_CLOSERS.size < 64) FENCE_CLOSERS.set(marker, closer)
  }
  return closer
}

function splitLines(text: string): Line[] {
  const lines: Line[] = []
  let start = 0
  for (;;) {
    const newline = text.indexOf('\n', start)
    if (newline === -1) {
      lines.push({ start, end: text.length })
      return lines
    }
    lines.push({ start, end: newline > start && text.charCodeAt(newline - 1) === 13 ? newline - 1 : newline })
    start = newline + 1
  }
}

/** CommonMark's label normalisation, near enough: case-folded, inner whitespace collapsed. */
export const normaliseLabel = (label: string): string => label.trim().replace(/[ \t\r\n]+/g, ' ').toLowerCase()

/**
 * Finds the block-level regions no transform may touch. Where Markdown is ambiguous the scan errs towards protecting
 * (a fence opens even inside a list or block quote; an unclosed fence runs to the end, as CommonMark says): leaving a
 * paragraph unformatted is harmless, rewriting code is not.
 */
export function scanBlocks(text: string, skipReferenceSections: boolean): BlockScan {
  const lines = splitLines(text)
  const content = (index: number): string => {
    const line = lines[index]!
    return text.slice(line.start, line.end)
  }
  const regions: Region[] = []
  const labels = new Set<string>()
  const protect = (from: number, to: number) => regions.push({ start: lines[from]!.start, end: lines[to]!.end, placeholder: BLOCK })
  const findLine = (from: number, test: (line: string) => boolean): number => {
    for (let index = from; index < lines.length; index++) if (test(content(index))) return index
    return -1
  }
  const untilBlank = (from: number): number => {
    const blank = findLine(from + 1, (line) => BLANK.test(line))
    return blank === -1 ? lines.length - 1 : blank - 1
  }

  let index = 0
  // YAML front matter: `---` on the very first line, closed by `---` or `...`.
  if (lines.length > 1 && content(0) === '---') {
    const close = findLine(1, (line) => line === '---' || line === '...')
    if (close !== -1) {
      protect(0, close)
      index = close + 1
    }
  }
  let previousBlank = true
  // Inside a list, indented lines after a blank line are list paragraphs, not code: a list item starts a list, an
  // unindented non-item line ends it.
  let inList = false
  for (; index < lines.length; index++) {
    // Fast path: a line that cannot start a block (most prose) only updates the blank-line and list state.
    const { start: lineStart, end: lineEnd } = lines[index]!
    let first = lineStart
    let code = text.charCodeAt(first)
    while (first < lineEnd && (code === 0x20 || code === 0x09)) code = text.charCodeAt(++first)
    if (first === lineEnd) {
      previousBlank = true
      continue
    }
    const leadCode = code
    let quoted = first
    while (quoted < lineEnd && (code === 0x20 || code === 0x09 || code === 0x3e)) code = text.charCodeAt(++quoted)
    const indented = first - lineStart >= 4 || text.charCodeAt(lineStart) === 0x09
    if (!indented && (code > 0x7e || BLOCK_LEAD[code] !== 1)) {
      previousBlank = false
      if (leadCode < 0x80 && LIST_LEAD[leadCode] === 1) inList = LIST_ITEM.test(text.slice(lineStart, Math.min(lineEnd, first + 12)))
      else if (first === lineStart) inList = false
      continue
    }
    const lead = text[first]!
    const leadInQuote = text[quoted] ?? ''
    const line = content(index)
    const from = index
    let to = -1
    const fence = leadInQuote === '`' || leadInQuote === '~' ? FENCE_OPEN.exec(line) : null
    if (fence && !(fence[2]!.startsWith('`') && fence[3]!.includes('`'))) {
      const marker = fence[2]!
      const closing = fenceCloser(marker)
      const close = findLine(index + 1, (candidate) => closing.test(candidate))
      to = close === -1 ? lines.length - 1 : close
    } else if (lead === '$' && MATH_OPEN.test(line)) {
      const rest = line.replace(MATH_OPEN, '')
      if (rest.trimEnd().endsWith('$$') && rest.trim().length >= 2) to = index
      else {
        const close = findLine(index + 1, (candidate) => candidate.trimEnd().endsWith('$$'))
        if (close !== -1) to = close
      }
    } else if (lead !== '<' && lead !== '[' && lead !== '#' && !indented) {
      // No other block starts with this character.
    } else if (/^[ \t]{0,3}<!--/.test(line)) {
      const close = findLine(index, (candidate) => candidate.includes('-->'))
      to = close === -1 ? lines.length - 1 : close
    } else if (HTML_RAW_OPEN.test(line)) {
      const tag = HTML_RAW_OPEN.exec(line)![1]!.toLowerCase()
      const close = findLine(index, (candidate) => candidate.toLowerCase().includes(`</${tag}>`))
      to = close === -1 ? lines.length - 1 : close
    } else if (/^[ \t]{0,3}<\?/.test(line)) {
      const close = findLine(index, (candidate) => candidate.includes('?>'))
      to = close === -1 ? lines.length - 1 : close
    } else if (/^[ \t]{0,3}<!\[CDATA\[/.test(line)) {
      const close = findLine(index, (candidate) => candidate.includes(']]>'))
      to = close === -1 ? lines.length - 1 : close
    } else if (/^[ \t]{0,3}<![A-Za-z]/.test(line)) {
      const close = findLine(index, (candidate) => candidate.includes('>'))
      to = close === -1 ? lines.length - 1 : close
    } else if (HTML_NAMED_OPEN.test(line) || (previousBlank && HTML_LONE_TAG.test(line))) {
      to = untilBlank(index)
    } else if (REFERENCE_DEFINITION.test(line)) {
      labels.add(normaliseLabel(REFERENCE_DEFINITION.exec(line)![1]!))
      to = index
    } else if (
      previousBlank && !inList && !BLANK.test(line) && /^(?: {4}|[ ]{0,3}\t)/.test(line)
    ) {
      // Indented code: runs over blank lines while lines stay indented; trailing blank lines are not part of it.
      let last = index
      for (let next = index + 1; next < lines.length; next++) {
        const candidate = content(next)
        if (BLANK.test(candidate)) continue
        if (!/^(?: {4}|[ ]{0,3}\t)/.test(candidate)) break
        last = next
      }
      to = last
    } else if (skipReferenceSections && REFERENCE_HEADING.test(line)) {
      const level = REFERENCE_HEADING.exec(line)![1]!.length
      const next = findLine(index + 1, (candidate) => {
        const heading = HEADING.exec(candidate)
        return heading !== null && heading[1]!.length <= level
      })
      to = next === -1 ? lines.length - 1 : next - 1
    }
    if (to >= from) {
      protect(from, to)
      index = to
      previousBlank = false
      continue
    }
    previousBlank = BLANK.test(line)
    if (!previousBlank) inList = LIST_ITEM.test(line) || (/^[ \t]/.test(line) && inList)
  }
  return { regions, labels }
}
