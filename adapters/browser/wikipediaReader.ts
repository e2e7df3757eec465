import type { ParsedDocument, ReaderOutput, SiteReader } from './extract.js'

/**
 * Wikipedia's article body without its furniture: infoboxes, navigation boxes, hatnotes, edit links and the like are
 * removed by their MediaWiki class names (BRR.EXTRACT.3), which the generic reader would otherwise keep or mangle.
 */
const FURNITURE = [
  '.infobox', '.navbox', '.navbox-styles', '.vertical-navbox', '.sidebar', '.hatnote', '.mw-editsection',
  '.mw-jump-link', '.noprint', '.metadata', '.ambox', '.shortdescription', '#toc', '.toc', 'style', 'script',
  'sup.reference', '.mw-empty-elt',
].join(', ')

export const wikipediaReader: SiteReader = {
  name: 'wikipedia',
  // Secure origins only: an http:// page calling itself wikipedia.org could be anyone on the path.
  matches: (url) => url.protocol === 'https:' && (url.hostname === 'wikipedia.org' || url.hostname.endsWith('.wikipedia.org')),
  read(document: ParsedDocument): ReaderOutput | null {
    const body = document.querySelector('#mw-content-text .mw-parser-output') ?? document.querySelector('#mw-content-text')
    if (!body) return null
    for (const node of Array.from(body.querySelectorAll(FURNITURE)) as { remove(): void }[]) node.remove()
    const heading = document.querySelector('#firstHeading')
    const title = (heading?.textContent ?? document.title ?? '').replace(/\s+/g, ' ').trim()
    return { title, byline: null, html: body.innerHTML, text: body.textContent ?? '' }
  },
}

export const BUILTIN_SITE_READERS: readonly SiteReader[] = [wikipediaReader]
