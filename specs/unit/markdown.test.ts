import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parseMarkdown, parseMarkdownWithSpans } from '../../core/markdown/parse.js'
import { serializeMarkdown } from '../../core/markdown/serialize.js'
import { markdownSchema } from '../../core/markdown/schema.js'

const fixture = (name: string) => readFileSync(new URL(`../fixtures/markdown/${name}`, import.meta.url), 'utf8')
const roundTrip = (text: string) => serializeMarkdown(parseMarkdown(text))
const types = (text: string) => {
  const names: string[] = []
  parseMarkdown(text).descendants((node) => {
    names.push(node.type.name)
  })
  return names
}

describe('markdown parse/serialize', () => {
  it('keeps a canonical document byte for byte', () => {
    const text = fixture('canonical.md')
    expect(roundTrip(text)).toBe(text)
  })

  it('keeps raw blocks (front matter, tables, HTML, math, definitions) byte for byte', () => {
    const text = fixture('raw.md')
    expect(roundTrip(text)).toBe(text)
    const doc = parseMarkdown(text)
    const kinds: string[] = []
    doc.forEach((node) => {
      if (node.type.name === 'raw_block') kinds.push(String(node.attrs['kind']))
    })
    // The blank line inside <details> ends the first HTML block, as CommonMark says.
    expect(kinds).toEqual(['front_matter', 'table', 'html', 'html', 'math', 'definitions', 'definitions'])
  })

  it.each([
    ['heading', '### Three\n', 'heading'],
    ['paragraph', 'plain\n', 'paragraph'],
    ['blockquote', '> q\n', 'blockquote'],
    ['hr', '---\n', 'horizontal_rule'],
    ['fence', '```js\nx\n```\n', 'code_block'],
    ['bullet list', '- a\n- b\n', 'bullet_list'],
    ['ordered list', '3) a\n4) b\n', 'ordered_list'],
    ['image', '![a](b.png)\n', 'image'],
    ['hard break', 'a\\\nb\n', 'hard_break'],
    ['inline html', 'a <b>c</b>\n', 'raw_inline'],
    ['table', '| a |\n| - |\n| 1 |\n', 'raw_block'],
  ])('models %s and writes it back unchanged', (_name, text, type) => {
    expect(types(text)).toContain(type)
    expect(roundTrip(text)).toBe(text)
  })

  it('reads every mark', () => {
    const doc = parseMarkdown('*e* **s** ~~x~~ [l](u) `c`\n')
    const marks = new Set<string>()
    doc.descendants((node) => {
      for (const mark of node.marks) marks.add(mark.type.name)
    })
    expect([...marks].sort()).toEqual(['code', 'em', 'link', 'strike', 'strong'])
  })

  it('reads task items and keeps fences, bullets and delimiters as written', () => {
    const doc = parseMarkdown('* [x] done\n* [ ] open\n')
    expect(doc.child(0).attrs['bullet']).toBe('*')
    expect(doc.child(0).child(0).attrs['checked']).toBe(true)
    expect(doc.child(0).child(1).attrs['checked']).toBe(false)
    expect(doc.child(0).child(0).textContent).toBe('done')
    expect(roundTrip('~~~~py\n~~~\n~~~~\n')).toBe('~~~~py\n~~~\n~~~~\n')
  })

  it('normalizes non-canonical spellings once, to a fixed point', () => {
    const text = 'Title\n=====\n\n+ a\n+ b\n\n_em_ __strong__\n\n    indented code\n'
    const once = roundTrip(text)
    expect(once).toBe('# Title\n\n+ a\n+ b\n\n*em* **strong**\n\n```\nindented code\n```\n')
    expect(roundTrip(once)).toBe(once)
  })

  it('keeps adjacent lists apart and escapes text that would read as markup', () => {
    const list = markdownSchema.nodes['bullet_list']!
    const item = (text: string) =>
      markdownSchema.nodes['list_item']!.create(null, markdownSchema.nodes['paragraph']!.create(null, markdownSchema.text(text)))
    const doc = markdownSchema.topNodeType.create(null, [list.create({ tight: true }, item('a')), list.create({ tight: true }, item('b'))])
    const text = serializeMarkdown(doc)
    expect(parseMarkdown(text).childCount).toBe(2)
    const tricky = ['# not a heading', '- not a list', '1. not a list', '<div>not html</div>', '&amp; literal', '| a |\n|---|', 'a\n===', '$$ x $$']
    for (const line of tricky) {
      const p = markdownSchema.topNodeType.create(null, markdownSchema.nodes['paragraph']!.create(null, markdownSchema.text(line)))
      const written = serializeMarkdown(p)
      const back = parseMarkdown(written)
      expect(back.childCount, written).toBe(1)
      expect(back.child(0).type.name, written).toBe('paragraph')
      expect(back.child(0).textContent, written).toBe(line)
    }
  })

  it('keeps link reference definitions inside containers by keeping the container raw', () => {
    const text = '> [a]: https://x\n>\n> quote\n'
    expect(roundTrip(text)).toBe(text)
    expect(parseMarkdown(text).child(0).type.name).toBe('raw_block')
  })

  it('maps each top-level node to its source lines', () => {
    const text = '# A\n\n* b\n* c\n\n\npara\ntwo\n'
    const { doc, spans } = parseMarkdownWithSpans(text)
    expect(spans.map((span) => text.slice(span.from, span.to))).toEqual(['# A', '* b\n* c', 'para\ntwo'])
    expect(doc.childCount).toBe(3)
    expect(parseMarkdownWithSpans('').spans).toEqual([{ from: 0, to: 0 }])
  })

  it('writes an empty document as nothing and skips empty paragraphs', () => {
    expect(serializeMarkdown(parseMarkdown(''))).toBe('')
    const p = markdownSchema.nodes['paragraph']!
    const doc = markdownSchema.topNodeType.create(null, [p.create(null, markdownSchema.text('a')), p.create(), p.create(null, markdownSchema.text('b'))])
    expect(serializeMarkdown(doc)).toBe('a\n\nb\n')
  })

  it('serializes 100 KB back to its canonical text (speed is for bench/, not asserted here)', () => {
    let big = ''
    for (let i = 0; big.length < 100_000; i++) big += `## Heading ${i}\n\nSome *text* with **bold** and a [link](http://x/${i}).\n\n- a\n- b\n\n`
    const doc = parseMarkdown(big)
    expect(serializeMarkdown(doc)).toBe(big.trimEnd() + '\n')
  })
})
