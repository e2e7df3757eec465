import { QuireError } from '../errors.js'
import { outlineOf, type OutlineHeading } from '../markdown/outline.js'
import { findPattern } from '../text/search/regexSearch.js'
import { contextOf, findLiteral, linesOf, type SearchQuery } from '../text/search/textSearch.js'

/** `document.read` looking for the place instead of reading the text: the outline, or a search. */
export type ReadLookup = { readonly outline: true } | ({ readonly outline?: false } & SearchQuery)

/** One search match: where it is, and the part of its line around it. */
export interface SearchMatch {
  /** From 1. */
  readonly line: number
  readonly offset: number
  readonly length: number
  readonly context: string
}

/** What a read with a lookup answers: the document's revision and facts as a read's, and the headings or the matches. */
export interface LookupResponse {
  readonly revision: string
  readonly filePath: string | null
  readonly kind: string
  readonly dirty: boolean
  readonly totalLength: number
  /** The start of the range looked in, when one was asked for. */
  readonly offset?: number
  /** Where the next page starts (the first heading or match not in this one), when there is more. */
  readonly nextOffset?: number
  readonly outline?: readonly OutlineHeading[]
  readonly matches?: readonly SearchMatch[]
}

/** The most headings, and matches, one answer lists before it says where the next page starts. */
export const OUTLINE_PAGE_HEADINGS = 1_000
export const SEARCH_PAGE_MATCHES = 100
/** How much of a heading's title an outline shows, in UTF-16 code units. */
const TITLE_LENGTH = 200

/**
 * What a document looked up in `part` (a range of its text, `pageBounds`; the whole text when absent) answers,
 * headings and matches in document order.
 */
export async function lookUp(
  document: { readonly content: string; readonly revision: string; readonly filePath: string | null; readonly kind: string; readonly dirty: boolean },
  lookup: ReadLookup,
  part: { readonly offset: number; readonly end: number } | undefined,
): Promise<LookupResponse> {
  const { content: text, ...facts } = document
  const { offset, end } = part ?? { offset: 0, end: text.length }
  const head = { ...facts, totalLength: text.length, ...(part === undefined ? {} : { offset }) }
  if (lookup.outline === true) {
    if (document.kind !== 'markdown') throw new QuireError('INVALID_ARGUMENT', `document.read outline works on markdown tabs; this one is ${document.kind} (search it instead)`)
    const inRange = outlineOf(text).filter((heading) => heading.offset >= offset && heading.offset < end)
    const page = inRange.slice(0, OUTLINE_PAGE_HEADINGS).map((heading) => ({ ...heading, title: clip(heading.title, TITLE_LENGTH) }))
    const next = inRange[OUTLINE_PAGE_HEADINGS]
    return { ...head, outline: page, ...(next === undefined ? {} : { nextOffset: next.offset }) }
  }
  const found = lookup.regex
    ? await findPattern(text, lookup.search, offset, end, SEARCH_PAGE_MATCHES + 1)
    : findLiteral(text, lookup.search, offset, end, SEARCH_PAGE_MATCHES + 1)
  const page = found.slice(0, SEARCH_PAGE_MATCHES)
  const lines = linesOf(text, page.map((match) => match.offset))
  const matches = page.map((match, index) => ({ line: lines[index]!, offset: match.offset, length: match.length, context: contextOf(text, match) }))
  const next = found[SEARCH_PAGE_MATCHES]
  return { ...head, matches, ...(next === undefined ? {} : { nextOffset: next.offset }) }
}

/** At most `length` code units of `text` (never half a surrogate pair), `…` marking a cut. */
function clip(text: string, length: number): string {
  if (text.length <= length) return text
  const code = text.charCodeAt(length - 1)
  const cut = code >= 0xd800 && code <= 0xdbff ? length - 1 : length
  return `${text.slice(0, cut)}…`
}
