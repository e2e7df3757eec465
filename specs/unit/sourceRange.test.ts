import { describe, expect, it } from 'vitest'
import { parseMarkdown } from '../../core/markdown/parse.js'
import { sourceRangeOf } from '../../core/markdown/sourceRange.js'

/** Comments made in WYSIWYG mode anchor to `source`: a ProseMirror selection's place in the Markdown. */
describe('sourceRangeOf', () => {
  const source = '# Plan\n\nShip by *Friday*, after QA.\n\n- one\n- two\n'
  const doc = parseMarkdown(source)
  /** ProseMirror positions of `text` inside the document's text, found by walking the text nodes. */
  const find = (text: string): [number, number] => {
    let found: [number, number] | undefined
    doc.descendants((node, pos) => {
      if (found || !node.isText) return !found
      const at = node.text!.indexOf(text)
      if (at >= 0) found = [pos + at, pos + at + text.length]
      return !found
    })
    if (!found) throw new Error(`no ${text}`)
    return found
  }

  it('maps plain selected text exactly', () => {
    const [from, to] = find('after QA')
    const range = sourceRangeOf(source, doc, from, to)!
    expect(source.slice(range.from, range.to)).toBe('after QA')
  })

  it('maps a word inside formatting to the word in the Markdown', () => {
    const [from, to] = find('Friday')
    const range = sourceRangeOf(source, doc, from, to)!
    expect(source.slice(range.from, range.to)).toBe('Friday')
  })

  it('a selection across markup widens to its block, which still holds the selected words', () => {
    const [from] = find('Ship by ')
    const [, to] = find(', after')
    const range = sourceRangeOf(source, doc, from, to)!
    expect(source.slice(range.from, range.to)).toContain('Ship by *Friday*, after')
  })

  it('a selection across blocks covers them, from the first selected word to the last', () => {
    const [from] = find('Plan')
    const [, to] = find('Ship')
    const range = sourceRangeOf(source, doc, from, to)!
    expect(source.slice(range.from, range.to)).toBe('Plan\n\nShip')
  })

  it('null when the editor and the source disagree on the blocks (mid-sync)', () => {
    expect(sourceRangeOf('# Plan\n', doc, 1, 3)).toBeNull()
  })
})
