import { Readability } from '@mozilla/readability'
import { parseHTML } from 'linkedom'
import TurndownService from 'turndown'

/**
 * Reader-mode extraction, in Node and never in the page (BRR.EXTRACT.2): the page's HTML arrives as one bounded
 * capture and is parsed here with linkedom, so nothing the page does can run or observe it.
 */

/** What a reader hands back before it becomes Markdown: the article's HTML and its metadata. */
export interface ReaderOutput {
  readonly title: string
  readonly byline: string | null
  readonly html: string
  /** The article's text, when the reader has it already (saves parsing `html` again to count it). */
  readonly text?: string
}

/** linkedom's document; typed loosely because the engine compiles without DOM types. */
export type ParsedDocument = any

/** A reader for one site, chosen by URL before the generic one (BRR.EXTRACT.3). */
export interface SiteReader {
  readonly name: string
  matches(url: URL): boolean
  read(document: ParsedDocument, url: URL): ReaderOutput | null
}

export interface Extracted {
  readonly title: string
  readonly byline: string | null
  readonly markdown: string
  readonly textLength: number
  readonly reader: string
}

const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' })
turndown.remove(['script', 'style', 'noscript', 'iframe'])

function parse(html: string, url: URL): ParsedDocument {
  const { document } = parseHTML(html)
  // Readability makes relative links absolute against the document's base; linkedom has no URL of its own.
  const head = document.head ?? document.documentElement
  if (head && !document.querySelector('base[href]')) {
    const base = document.createElement('base')
    base.setAttribute('href', url.href)
    head.prepend(base)
  }
  return document
}

function textLengthOf(html: string): number {
  const { document } = parseHTML(`<!doctype html><html><body>${html}</body></html>`)
  return normalizedLength(document.body?.textContent ?? '')
}

const normalizedLength = (text: string): number => text.replace(/\s+/g, ' ').trim().length

/** The density-heuristic reader for every site without a plugin (BRR.EXTRACT.4): Mozilla Readability. */
function genericRead(document: ParsedDocument): ReaderOutput | null {
  const article = new Readability(document).parse()
  if (article === null || !article.content) return null
  return { title: article.title ?? '', byline: article.byline ?? null, html: article.content, ...(article.textContent ? { text: article.textContent } : {}) }
}

/** The page as reader-mode Markdown, or null when no reader found an article in it. */
export function extractArticle(html: string, pageUrl: string, siteReaders: readonly SiteReader[]): Extracted | null {
  const url = new URL(pageUrl)
  const plugin = siteReaders.find((reader) => reader.matches(url))
  const output = plugin ? plugin.read(parse(html, url), url) : genericRead(parse(html, url))
  if (output === null) return null
  return {
    title: output.title,
    byline: output.byline,
    markdown: turndown.turndown(output.html).trim(),
    textLength: output.text !== undefined ? normalizedLength(output.text) : textLengthOf(output.html),
    reader: plugin?.name ?? 'generic',
  }
}
