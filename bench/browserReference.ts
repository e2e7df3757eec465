import { Readability } from '@mozilla/readability'
import { parseHTML } from 'linkedom'
import TurndownService from 'turndown'

/**
 * The extract benchmark's reference: @mozilla/readability and turndown called directly on a page's HTML, in this
 * process, with linkedom as the DOM (what Quire's extract parses with) and turndown set up as Quire's is. Nothing
 * else: no browser, no capture, no MCP, no second parse for the text length.
 */

const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' })
turndown.remove(['script', 'style', 'noscript', 'iframe'])

/**
 * The article of `html`, loaded from `url`, as Markdown; throws when Readability finds none. linkedom's document has
 * no URL, so a <base> names it, as a caller who wants absolute links must (Quire's extract does the same).
 */
export function readabilityTurndown(html: string, url: string): string {
  const { document } = parseHTML(html)
  const base = document.createElement('base')
  base.setAttribute('href', url)
  document.head.prepend(base)
  const article = new Readability(document as never).parse()
  if (article === null || !article.content) throw new Error('Readability found no article in the page')
  return turndown.turndown(article.content).trim()
}
