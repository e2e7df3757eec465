import MarkdownIt from 'markdown-it'
import type { MarkdownIt as Tokenizer, StateBlock } from 'markdown-it'

/**
 * The markdown-it tokenizer behind `parseMarkdown`: CommonMark with HTML, plus GFM strikethrough and tables, plus a
 * `$$` math block rule. Tables and math are recognized only so that their exact lines can be kept as raw blocks
 * (without the rules, a table would read as a paragraph and lose its line structure).
 */
export function createTokenizer(): Tokenizer {
  const md = new MarkdownIt('commonmark', { html: true })
  md.enable(['strikethrough', 'table'])
  md.block.ruler.before('fence', 'math_block', mathBlock, { alt: ['paragraph', 'reference', 'blockquote', 'list'] })
  return md
}

/**
 * A display math block: a line starting with `$$`, up to the first line (the same one, or a later one) ending with
 * `$$`. An unclosed `$$` is not math (it stays paragraph text), so a stray `$$` cannot swallow the document.
 */
function mathBlock(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  if (state.sCount[startLine]! - state.blkIndent >= 4) return false
  const start = state.bMarks[startLine]! + state.tShift[startLine]!
  const max = state.eMarks[startLine]!
  if (state.src.slice(start, start + 2) !== '$$') return false
  const rest = state.src.slice(start + 2, max).trim()
  let last = -1
  if (rest.length >= 2 && rest.endsWith('$$')) last = startLine
  else {
    for (let line = startLine + 1; line < endLine; line++) {
      const lineStart = state.bMarks[line]! + state.tShift[line]!
      const lineEnd = state.eMarks[line]!
      // Leaving the enclosing container ends the search.
      if (lineStart < lineEnd && state.sCount[line]! < state.blkIndent) break
      if (state.src.slice(lineStart, lineEnd).trim().endsWith('$$')) {
        last = line
        break
      }
    }
  }
  if (last < 0) return false
  if (silent) return true
  state.line = last + 1
  const token = state.push('math_block', '', 0)
  token.block = true
  token.map = [startLine, state.line]
  token.content = state.getLines(startLine, state.line, state.blkIndent, false)
  return true
}
