import { isMap, isPair, isSeq, parseDocument, visit, type Document, type ParsedNode } from 'yaml'

/**
 * A workflow's text with its parsed YAML 1.2 document (so `on:` is the string key GitHub reads, not YAML 1.1's
 * boolean), and the few layout facts new content must match. Nodes carry their source `range`s: the patcher edits
 * by splicing those ranges, never by re-stringifying the document (which would collapse comment spacing, re-fold
 * strings and re-pad flow collections everywhere).
 */
export interface Source {
  readonly text: string
  readonly doc: Document.Parsed
  /** The line ending new lines get: CRLF if the text uses it, so a CRLF file is not left with mixed endings. */
  readonly eol: string
  /** The file's indentation step, from its first nested block map (2 if none). */
  readonly indent: number
  /** Whether block sequences are indented under their key (`steps:\n  - a`), from the first one found. */
  readonly indentSeq: boolean
}

export class SourceError extends Error {}

/** Parses `text`; throws SourceError with the first YAML error's first line if it is not one valid YAML document. */
export function parseSource(text: string): Source {
  const doc = parseDocument(text, { version: '1.2', prettyErrors: false })
  const error = doc.errors[0]
  if (error) throw new SourceError(`${error.message.split('\n')[0]} (${describeOffset(text, error.pos[0])})`)
  if (text.includes('*')) refuseDanglingAliases(text, doc)
  return { text, doc, eol: text.includes('\r\n') ? '\r\n' : '\n', ...layout(text, doc) }
}

/** The composer accepts `*name` before or without `&name` (only toJS throws), but such a file is broken YAML. */
function refuseDanglingAliases(text: string, doc: Document.Parsed): void {
  visit(doc, {
    Alias(_, alias) {
      if (alias.resolve(doc) === undefined) {
        const at = alias.range ? ` (${describeOffset(text, alias.range[0])})` : ''
        throw new SourceError(`alias *${alias.source} has no anchor &${alias.source} before it${at}`)
      }
    },
  })
}

function layout(text: string, doc: Document.Parsed): { indent: number; indentSeq: boolean } {
  let indent: number | undefined
  let indentSeq: boolean | undefined
  visit(doc, {
    Pair(_, pair) {
      if (!isPair(pair) || !isRanged(pair.key) || !isRanged(pair.value)) return undefined
      const value = pair.value
      if ((isMap(value) || isSeq(value)) && !value.flow && lineStart(text, value.range[0]) !== lineStart(text, pair.key.range[0])) {
        const step = column(text, value.range[0]) - column(text, pair.key.range[0])
        if (isMap(value) && indent === undefined && step > 0) indent = step
        if (isSeq(value) && indentSeq === undefined) indentSeq = step > 0
      }
      return indent !== undefined && indentSeq !== undefined ? visit.BREAK : undefined
    },
  })
  return { indent: indent ?? 2, indentSeq: indentSeq ?? true }
}

export const isRanged = (node: unknown): node is ParsedNode =>
  typeof node === 'object' && node !== null && Array.isArray((node as { range?: unknown }).range)

export function lineStart(text: string, position: number): number {
  return text.lastIndexOf('\n', position - 1) + 1
}

export const column = (text: string, position: number): number => position - lineStart(text, position)

/**
 * The position after the line break that ends the line holding `position` (or the end of the text); `position`
 * itself if it already follows one. A block collection's range can end in the indentation of the next line
 * (`...\n  `); that indentation belongs to the next line, so the range is taken to end at the line break before it.
 */
export function endOfLine(text: string, position: number): number {
  let back = position
  while (back > 0 && (text[back - 1] === ' ' || text[back - 1] === '\t')) back--
  if (back > 0 && text[back - 1] === '\n') return back
  const newline = text.indexOf('\n', position)
  return newline < 0 ? text.length : newline + 1
}

/** The position of the line break (CR of a CRLF) that ends the line holding `position`, or the end of the text. */
export function lineBreak(text: string, position: number): number {
  const newline = text.indexOf('\n', position)
  if (newline < 0) return text.length
  return newline > 0 && text[newline - 1] === '\r' ? newline - 1 : newline
}

function describeOffset(text: string, offset: number): string {
  const before = text.slice(0, offset)
  const line = before.split('\n').length
  return `line ${line}, column ${offset - lineStart(text, offset) + 1}`
}
