/**
 * Finding the place without reading everything (issue 27, item 2; our extension of VMark's surface): `document.read`
 * with `outline: true` answers the heading tree, each heading with its section's offset and length (UTF-16 code
 * units, as the paged read counts them), and with `search` answers the matches with their line, offset and a short
 * context; both are bounded and paged like reads. Over stdio and HTTP.
 */
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_OUTPUT_BYTES } from '../../adapters/mcp/results.js'
import { TRANSPORTS, folder, ok, open, plain, read, removeAll, rig, tabsOf, write, type Json, type Rig, type Transport } from '../support/conformance.js'

const FENCE = '```'
const NOTES = [
  '---',
  'title: "# not a heading"',
  '---',
  '# Notes 中文 😀',
  '',
  'Intro with 😀 emoji and 中文.',
  '',
  '## Setup',
  'text',
  '',
  `${FENCE}md`,
  '# not a heading: inside a fence',
  FENCE,
  '',
  'Setext Title',
  '------------',
  '',
  'body 中文字符 😀',
  '',
  '### Deep ✨ ###',
  '',
  '    # indented code, not a heading',
  '',
  '> # inside a quote, not a section',
  '',
  'Top Two',
  '=======',
  '',
  'last 中文',
  '',
].join('\n')

/** 1-based line of an offset. */
const lineOf = (text: string, offset: number) => text.slice(0, offset).split('\n').length
const at = (text: string, needle: string) => {
  const offset = text.indexOf(needle)
  if (offset < 0) throw new Error(`fixture lacks ${needle}`)
  return offset
}

/** Every heading of an outline answer, depth first (document order). */
function flatten(headings: Json[]): Json[] {
  return headings.flatMap((heading) => [heading, ...flatten(heading.children ?? [])])
}

describe.each<Transport>(TRANSPORTS)('document.read outline and search over %s', (transport) => {
  let r: Rig
  let w: string

  beforeAll(async () => {
    w = await folder('find', { 'notes.md': NOTES, '.github/workflows/ci.yml': 'on: push\njobs:\n  a: {}\n' })
    r = await rig(transport, { workspaces: [w] })
  })
  afterAll(async () => {
    await r?.close()
    await removeAll(w)
  })

  it('ISSUE27.2 DOC.READ.OUTLINE outline: true answers the heading tree (ATX and setext, never in front matter, code or a quote), each section\'s offset and length in UTF-16 units, and no content', async () => {
    const tabId = await open(r.session, join(w, 'notes.md'))
    const { revision } = await read(r.session, tabId)
    const answer = ok(await r.session.call('document', { action: 'read', tabId, outline: true }))
    expect(answer.content).toBeUndefined()
    expect(answer).toMatchObject({ revision, filePath: join(w, 'notes.md'), kind: 'markdown', dirty: false, totalLength: NOTES.length })
    expect(answer.nextOffset).toBeUndefined()
    const notes = at(NOTES, '# Notes')
    const setup = at(NOTES, '## Setup')
    const setext = at(NOTES, 'Setext Title')
    const deep = at(NOTES, '### Deep')
    const two = at(NOTES, 'Top Two')
    const section = (offset: number, end: number) => ({ offset, length: end - offset, line: lineOf(NOTES, offset) })
    expect(answer.outline).toEqual([
      {
        level: 1, title: 'Notes 中文 😀', ...section(notes, two),
        children: [
          { level: 2, title: 'Setup', ...section(setup, setext) },
          { level: 2, title: 'Setext Title', ...section(setext, two), children: [{ level: 3, title: 'Deep ✨', ...section(deep, two) }] },
        ],
      },
      { level: 1, title: 'Top Two', ...section(two, NOTES.length) },
    ])
  })

  it('ISSUE27.2 DOC.READ.OUTLINE a paged read of a heading\'s offset and length fetches exactly that section', async () => {
    const tabId = await open(r.session, join(w, 'notes.md'))
    const outline = flatten(ok(await r.session.call('document', { action: 'read', tabId, outline: true })).outline)
    const setext = outline.find((heading) => heading.title === 'Setext Title')!
    const part = ok(await r.session.call('document', { action: 'read', tabId, offset: setext.offset, length: setext.length }))
    expect(part.content).toBe(NOTES.slice(at(NOTES, 'Setext Title'), at(NOTES, 'Top Two')))
    expect(part.content).toMatch(/^Setext Title\n-+\n\nbody 中文字符 😀\n\n### Deep ✨ ###\n/)
  })

  it('ISSUE27.2 DOC.READ.OUTLINE an outline too large for one answer is paged: every answer under the bound, nextOffset to go on, every heading once', async () => {
    const lines: string[] = ['# Big']
    for (let i = 0; i < 3_000; i++) lines.push('', `## Heading ${i} 中文 😀 "quoted" \\ slash`, '', `text ${i}`)
    const text = lines.join('\n') + '\n'
    await writeFile(join(w, 'big.md'), text)
    const tabId = await open(r.session, join(w, 'big.md'))
    const seen: Json[] = []
    let offset: number | undefined
    for (let pages = 0; ; pages++) {
      expect(pages).toBeLessThan(100)
      const result = await r.session.call('document', { action: 'read', tabId, outline: true, ...(offset === undefined ? {} : { offset }) })
      expect(Buffer.byteLength(result.text, 'utf8')).toBeLessThanOrEqual(MAX_OUTPUT_BYTES)
      const page = ok(result)
      expect(page.truncated).toBeUndefined()
      const headings = flatten(page.outline)
      expect(headings.length).toBeGreaterThan(0)
      if (offset !== undefined) expect(headings[0].offset).toBeGreaterThanOrEqual(offset)
      seen.push(...headings)
      if (page.nextOffset === undefined) break
      expect(page.nextOffset).toBeGreaterThan(headings.at(-1).offset)
      offset = page.nextOffset
    }
    expect(seen.length).toBe(3_001)
    expect(seen.map((heading) => heading.title)).toEqual(['Big', ...Array.from({ length: 3_000 }, (_, i) => `Heading ${i} 中文 😀 "quoted" \\ slash`)])
    seen.slice(1).forEach((heading, i) => {
      expect(text.slice(heading.offset, heading.offset + heading.length)).toBe(`## ${heading.title}\n\ntext ${i}\n${i < 2_999 ? '\n' : ''}`)
      expect(heading.line).toBe(3 + 4 * i)
    })
    // The first page's level-1 heading holds the whole document after it.
    expect(seen[0]).toMatchObject({ level: 1, offset: 0, length: text.length })
  })

  it('ISSUE27.2 DOC.READ.SEARCH search answers each literal match with its line, offset (UTF-16, past CJK and emoji), length and a short context', async () => {
    const tabId = await open(r.session, join(w, 'notes.md'))
    const answer = ok(await r.session.call('document', { action: 'read', tabId, search: '中文' }))
    expect(answer.content).toBeUndefined()
    expect(answer.totalLength).toBe(NOTES.length)
    const expected: number[] = []
    for (let index = NOTES.indexOf('中文'); index >= 0; index = NOTES.indexOf('中文', index + 1)) expected.push(index)
    expect(expected.length).toBe(4)
    expect(answer.matches.map((match: Json) => match.offset)).toEqual(expected)
    for (const match of answer.matches) {
      expect(match.length).toBe(2)
      expect(NOTES.slice(match.offset, match.offset + match.length)).toBe('中文')
      expect(match.line).toBe(lineOf(NOTES, match.offset))
      expect(match.context).toContain('中文')
      expect(NOTES.split('\n')[match.line - 1]).toContain(match.context.replace(/^…|…$/g, ''))
    }
    expect(answer.matches[1].context).toBe('Intro with 😀 emoji and 中文.')
    expect(answer.nextOffset).toBeUndefined()
    // Nothing found is an empty list, not an error.
    expect(ok(await r.session.call('document', { action: 'read', tabId, search: 'absent words' })).matches).toEqual([])
  })

  it('ISSUE27.2 DOC.READ.SEARCH regex: true searches with a regular expression; an invalid one is a plain-string refusal', async () => {
    const tabId = await open(r.session, join(w, 'notes.md'))
    const answer = ok(await r.session.call('document', { action: 'read', tabId, search: '^#{1,3} (\\w+)', regex: true }))
    expect(answer.matches.map((match: Json) => NOTES.slice(match.offset, match.offset + match.length))).toEqual(['# Notes', '## Setup', '# not', '### Deep'])
    expect(answer.matches.map((match: Json) => match.line)).toEqual([4, 8, 12, 20])
    plain(await r.session.call('document', { action: 'read', tabId, search: '(unclosed', regex: true }), /regular expression/)
  })

  it('ISSUE27.2 DOC.READ.SEARCH a regular expression that runs away is stopped within its time bound and answered TIMEOUT; the server goes on', async () => {
    await writeFile(join(w, 'evil.md'), `${'a'.repeat(40)}!\n`)
    const tabId = await open(r.session, join(w, 'evil.md'))
    const started = Date.now()
    plain(await r.session.call('document', { action: 'read', tabId, search: '^(a+)+$', regex: true }), /^TIMEOUT: .*did not finish within/)
    expect(Date.now() - started).toBeLessThan(15_000)
    expect((await read(r.session, tabId)).content).toBe(`${'a'.repeat(40)}!\n`)
    expect(ok(await r.session.call('document', { action: 'read', tabId, search: 'a+!', regex: true })).matches).toEqual([{ line: 1, offset: 0, length: 41, context: `${'a'.repeat(40)}!` }])
  })

  it('ISSUE27.2 DOC.READ.SEARCH many matches are paged: every answer under the bound, nextOffset to go on, every match once, in order', async () => {
    const text = Array.from({ length: 2_000 }, (_, i) => `line ${i} has the needle 😀 in it, 中文 "and" \\ more words around it`).join('\n') + '\n'
    await writeFile(join(w, 'many.md'), text)
    const tabId = await open(r.session, join(w, 'many.md'))
    const offsets: number[] = []
    let offset: number | undefined
    for (let pages = 0; ; pages++) {
      expect(pages).toBeLessThan(100)
      const result = await r.session.call('document', { action: 'read', tabId, search: 'needle', ...(offset === undefined ? {} : { offset }) })
      expect(Buffer.byteLength(result.text, 'utf8')).toBeLessThanOrEqual(MAX_OUTPUT_BYTES)
      const page = ok(result)
      expect(page.matches.length).toBeGreaterThan(0)
      offsets.push(...page.matches.map((match: Json) => match.offset))
      if (page.nextOffset === undefined) break
      offset = page.nextOffset
    }
    const expected: number[] = []
    for (let index = text.indexOf('needle'); index >= 0; index = text.indexOf('needle', index + 1)) expected.push(index)
    expect(offsets).toEqual(expected)
    // With length, only matches starting inside [offset, offset + length).
    const second = text.indexOf('\n') + 1
    const inOneLine = ok(await r.session.call('document', { action: 'read', tabId, search: 'needle', offset: second, length: text.indexOf('\n', second) - second }))
    expect(inOneLine.matches).toEqual([expect.objectContaining({ line: 2, offset: text.indexOf('needle', second) })])
    expect(inOneLine.nextOffset).toBeUndefined()
  })

  it('ISSUE27.2 outline and search are refused together, regex without search, an outline of a YAML tab, and an empty search', async () => {
    const tabId = await open(r.session, join(w, 'notes.md'))
    plain(await r.session.call('document', { action: 'read', tabId, outline: true, search: 'x' }), /outline or search/)
    plain(await r.session.call('document', { action: 'read', tabId, regex: true }), /regex/)
    plain(await r.session.call('document', { action: 'read', tabId, search: '' }))
    const yaml = await open(r.session, join(w, '.github/workflows/ci.yml'))
    plain(await r.session.call('document', { action: 'read', tabId: yaml, outline: true }), /outline/)
    expect(ok(await r.session.call('document', { action: 'read', tabId: yaml, search: 'jobs:' })).matches).toEqual([{ line: 2, offset: 9, length: 5, context: 'jobs:' }])
  })

  it('ISSUE27.2 an outline or search read is a read: the next write from the tab is based on the revision it saw', async () => {
    for (const lookup of [{ outline: true }, { search: 'two' }]) {
      const name = `base-${Object.keys(lookup)[0]}.md`
      await writeFile(join(w, name), '# one\n')
      const tabId = await open(r.session, join(w, name))
      const { revision } = await read(r.session, tabId)
      // Another program changes the file; this assistant looks at the new text only through the outline or a search.
      await writeFile(join(w, name), '# one two\n')
      const deadline = Date.now() + 10_000
      while ((await tabsOf(r.session)).find((tab) => tab.id === tabId)!.revision === revision) {
        expect(Date.now()).toBeLessThan(deadline)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      ok(await r.session.call('document', { action: 'read', tabId, ...lookup }))
      // Written from what it saw: based on "# one two", the write is exactly the new text, not a merge with it.
      await write(r.session, tabId, '# one two three\n', { save: false })
      expect((await read(r.session, tabId)).content).toBe('# one two three\n')
    }
  })
})
