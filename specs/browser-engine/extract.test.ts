import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { EXTRACT_HTML_CAP } from '../../adapters/browser/engine.js'
import { extractArticle } from '../../adapters/browser/extract.js'
import { BUILTIN_SITE_READERS, wikipediaReader } from '../../adapters/browser/wikipediaReader.js'
import { REPO_ROOT } from '../support/mcpHarness.js'
import { useEngine } from './support/engineRig.js'

// The fixture site is not wikipedia.org, so this engine also routes the site's wiki.html to the Wikipedia reader.
const rig = useEngine((site) => ({
  siteReaders: [{ ...wikipediaReader, matches: (url: URL) => url.origin === site.origin && url.pathname === '/wiki.html' }],
}))

const fixture = (name: string): Promise<string> => readFile(join(REPO_ROOT, 'specs', 'fixtures', 'site', name), 'utf8')

describe('BRR.EXTRACT.1, BRR.EXTRACT.2 and BRR.EXTRACT.4 extract with the generic reader', () => {
  test('an article page becomes reader-mode Markdown without its navigation, promotion and footer', async () => {
    const { tabId } = await rig.engine.open('extractor', rig.site.url('/article.html?utm_source=x'))
    const result = await rig.engine.extract('extractor', tabId)
    expect(result).toMatchObject({ url: rig.site.url('/article.html'), byline: 'By Ada Marine', truncated: false })
    expect(result.title).toContain('How tides work')
    expect(result.markdown).toContain('## Spring and neap tides')
    expect(result.markdown).toContain('-   Spring tides: the largest range.')
    expect(result.markdown).toContain('```\nrange = high_water - low_water\n```')
    expect(result.markdown).toContain(`[the glossary](${rig.site.url('/glossary#bulge')})`)
    for (const furniture of ['Subscribe now', 'Privacy', 'World', 'Copyright']) expect(result.markdown).not.toContain(furniture)
    expect(result.textLength).toBeGreaterThan(1_000)
  })
})

describe('BRR.EXTRACT.3 a site reader takes precedence', () => {
  test('the Wikipedia reader keeps the article body and drops infobox, navbox, hatnote, edit links and navigation', async () => {
    const { tabId } = await rig.engine.open('extractor', rig.site.url('/wiki.html'))
    const result = await rig.engine.extract('extractor', tabId)
    expect(result.title).toBe('Lighthouse')
    expect(result.byline).toBeNull()
    expect(result.markdown).toContain('A **lighthouse** is a tower')
    expect(result.markdown).toContain('## History')
    expect(result.markdown).toContain('mariners were guided by fires built on hilltops')
    for (const furniture of ['INFOBOX-ROW', 'NAVBOX-CONTENT', 'For other uses', 'edit', 'Main page', 'Random article', '[1]', 'last edited', 'Tower that emits light']) {
      expect(result.markdown).not.toContain(furniture)
    }
  })

  test('the built-in registry routes wikipedia.org pages over https, and only those, to the Wikipedia reader', async () => {
    const html = await fixture('wiki.html')
    expect(extractArticle(html, 'https://en.wikipedia.org/wiki/Lighthouse', BUILTIN_SITE_READERS)?.reader).toBe('wikipedia')
    expect(extractArticle(html, 'https://wikipedia.org/wiki/Lighthouse', BUILTIN_SITE_READERS)?.reader).toBe('wikipedia')
    for (const elsewhere of ['http://en.wikipedia.org/wiki/Lighthouse', 'https://en.wikipedia.org.example.com/wiki/Lighthouse', 'https://notwikipedia.org/wiki/Lighthouse']) {
      expect(extractArticle(html, elsewhere, BUILTIN_SITE_READERS)?.reader).toBe('generic')
    }
  })
})

describe('BRR.EXTRACT.5 a page past the capture cap', () => {
  test('is read up to the cap and says truncated; its tail is not in the Markdown', async () => {
    const { tabId } = await rig.engine.open('extractor', rig.site.url('/huge'))
    const result = await rig.engine.extract('extractor', tabId)
    expect(result.truncated).toBe(true)
    expect(result.markdown).toContain('FIRST PARAGRAPH')
    expect(result.markdown).not.toContain('LAST PARAGRAPH')
    expect(result.textLength).toBeLessThan(EXTRACT_HTML_CAP)
  })
})
