import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { random } from './util.js'

/**
 * The pages of the browser benchmark, made in this process and served on loopback so both browsers load the very
 * same bytes: a small page with a counter button, a big page of well over 1,000 elements, and a long news article
 * (its size given) with the site's header, navigation, sidebar and footer around it, as reader mode meets on the web.
 * Deterministic: the same sizes give the same bytes.
 */

const WORDS = (
  'tide moon sun water coast harbour current wave shore basin channel estuary gravity orbit bulge spring neap range ' +
  'the a of to and in is it that for on with as was by this be are from at an or which have not but had they ' +
  'river delta island reef storm surge pressure wind season chart gauge record survey station level mean high low ' +
  'measure model forecast pattern cycle phase lunar solar daily weekly month year ocean sea bay inlet sound strait'
).split(' ')

function words(next: () => number, count: number): string {
  const out: string[] = []
  for (let index = 0; index < count; index++) out.push(WORDS[Math.floor(next() * WORDS.length)]!)
  return out.join(' ')
}

function sentence(next: () => number): string {
  const text = words(next, 8 + Math.floor(next() * 14))
  return `${text[0]!.toUpperCase()}${text.slice(1)}.`
}

const escapeHtml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

/** The button both sides click; each click adds one to the output beside it, so the clicks can be counted. */
export const COUNTER_BUTTON = 'Add one'
export const COUNTER_ID = 'count'

/** A small page: a heading, a short text, a few links and the counter button. */
export function smallPage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Counter</title></head>
<body>
<h1>Counter</h1>
<p>Press the button to add one to the count. <a href="/help">Help</a> · <a href="/about">About</a></p>
<form onsubmit="return false">
  <label>Note <input name="note" value=""></label>
  <button type="button" id="add" onclick="document.getElementById('${COUNTER_ID}').textContent = String(++window.clicks)">${COUNTER_BUTTON}</button>
  <output id="${COUNTER_ID}">0</output>
</form>
<script>window.clicks = 0</script>
</body></html>
`
}

/**
 * A big page: a navigation bar, `rows` catalogue rows in sections of 25 (each row a heading-less list item with a
 * link, a short description, a checkbox and a button) and a table of `rows / 2` rows. Elements: about 5 per row and
 * 3 per table row, so 300 rows make about 1,900 elements.
 */
export function bigPage(rows: number): string {
  const next = random(7)
  const parts: string[] = [
    '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Catalogue</title></head><body>',
    '<header><nav>',
  ]
  for (let index = 0; index < 40; index++) parts.push(`<a href="/section/${index}">${escapeHtml(words(next, 2))}</a> `)
  parts.push('</nav></header><main><h1>Catalogue</h1>')
  for (let index = 0; index < rows; index++) {
    if (index % 25 === 0) parts.push(`${index > 0 ? '</ul></section>' : ''}<section><h2>Shelf ${index / 25 + 1}</h2><ul>`)
    parts.push(
      `<li><a href="/item/${index}">${escapeHtml(words(next, 3))} ${index}</a> <span>${escapeHtml(words(next, 8))}</span> ` +
        `<label><input type="checkbox" name="pick${index}"> pick</label> <button type="button">Save ${index}</button></li>`,
    )
  }
  parts.push('</ul></section><table><thead><tr><th>Item</th><th>Station</th><th>Level</th></tr></thead><tbody>')
  for (let index = 0; index < rows / 2; index++) {
    parts.push(`<tr><td><a href="/row/${index}">row ${index}</a></td><td>${escapeHtml(words(next, 2))}</td><td>${(next() * 10).toFixed(2)}</td></tr>`)
  }
  parts.push('</tbody></table></main><footer><a href="/contact">Contact</a></footer></body></html>\n')
  return parts.join('')
}

/**
 * A news article of about `bytes` bytes of HTML: the site's header and navigation, a promotion aside, a sidebar of
 * related links, the article (title, byline, sections of paragraphs with links and emphasis, lists, quotes, code)
 * and a footer. Readability should keep the article and drop the rest.
 */
export function articlePage(bytes: number): string {
  const next = random(11)
  const head =
    '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>How tides work | Fixture Gazette</title></head><body>' +
    '<header><a href="/">Fixture Gazette</a><nav>' +
    Array.from({ length: 12 }, (_, index) => `<a href="/topic/${index}">${escapeHtml(words(next, 1))}</a>`).join(' ') +
    '</nav></header><aside class="promo">Subscribe now for only one coin a week! Limited offer, act today.</aside>' +
    '<div class="sidebar"><h3>Related</h3><ul>' +
    Array.from({ length: 20 }, (_, index) => `<li><a href="/story/${index}">${escapeHtml(words(next, 4))}</a></li>`).join('') +
    '</ul></div><article><h1>How tides work</h1><p class="byline">By <a rel="author" href="/authors/ada">Ada Marine</a></p>'
  const tail = '</article><footer><p>© Fixture Gazette</p><a href="/privacy">Privacy</a> <a href="/terms">Terms</a></footer></body></html>\n'
  const body: string[] = []
  let size = head.length + tail.length
  for (let section = 1; size < bytes; section++) {
    const block: string[] = [`<h2>Section ${section}: ${escapeHtml(words(next, 3))}</h2>`]
    for (let paragraph = 0; paragraph < 6; paragraph++) {
      const sentences = Array.from({ length: 4 + Math.floor(next() * 5) }, () => sentence(next))
      sentences[1] = `${sentences[1]} See <a href="/glossary/${section}-${paragraph}">${escapeHtml(words(next, 2))}</a>.`
      sentences[2] = `<em>${sentences[2]}</em>`
      block.push(`<p>${sentences.join(' ')}</p>`)
    }
    if (section % 3 === 0) block.push(`<ul>${Array.from({ length: 5 }, () => `<li>${escapeHtml(sentence(next))}</li>`).join('')}</ul>`)
    if (section % 4 === 0) block.push(`<blockquote><p>${escapeHtml(sentence(next))}</p></blockquote>`)
    if (section % 5 === 0) block.push(`<pre><code>level = mean + amplitude * cos(phase ${section})</code></pre>`)
    const text = block.join('\n')
    body.push(text)
    size += text.length + 1
  }
  return `${head}\n${body.join('\n')}\n${tail}`
}

export interface PageServer {
  /** The page's absolute URL on the loopback server. */
  url(path: string): string
  close(): Promise<void>
}

/** Serves `pages` (path → HTML) on 127.0.0.1 at a free port; any other path is a short 404 page. */
export async function servePages(pages: Readonly<Record<string, string>>): Promise<PageServer> {
  const bodies = new Map(Object.entries(pages).map(([path, html]) => [path, Buffer.from(html, 'utf8')]))
  const server: Server = createServer((request, response) => {
    const body = bodies.get(new URL(request.url ?? '/', 'http://localhost').pathname)
    response.writeHead(body ? 200 : 404, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
    response.end(body ?? '<!doctype html><title>Not found</title><p>Not found</p>')
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as AddressInfo
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
