/**
 * The outline and the search behind `document.read {outline}` / `{search}` (issue 27, item 2), on their own: sections
 * as the project's Markdown parser reads headings, matches and their context in UTF-16 offsets, a runaway regular
 * expression stopped within its time limit.
 */
import { describe, expect, it } from 'vitest'
import { outlineOf, outlineTree } from '../../core/markdown/outline.js'
import { findPattern } from '../../core/text/search/regexSearch.js'
import { contextOf, findLiteral, linesOf } from '../../core/text/search/textSearch.js'

describe('outlineOf', () => {
  it('ISSUE27.2 reads ATX and setext headings, skips front matter, fences, indented code, HTML blocks, quotes and lists; sections end at the next heading of their rank or higher', () => {
    const text = '---\n# fm\n---\n# One\n\n```\n# code\n```\n\n    # indented\n\n<div>\n# html\n</div>\n\n- # in a list\n\nTwo\n===\n## Two.a\n### Two.a.i\n## Two.b\n'
    const headings = outlineOf(text)
    expect(headings.map(({ level, title }) => [level, title])).toEqual([[1, 'One'], [1, 'Two'], [2, 'Two.a'], [3, 'Two.a.i'], [2, 'Two.b']])
    const [one, two, twoA, twoAi, twoB] = headings
    expect(text.slice(one!.offset, one!.offset + one!.length)).toMatch(/^# One\n[\s\S]*- # in a list\n\n$/)
    expect(two!.offset + two!.length).toBe(text.length)
    expect(twoA!.offset + twoA!.length).toBe(twoB!.offset)
    expect(twoAi!.offset + twoAi!.length).toBe(twoB!.offset)
    expect(headings.map((heading) => heading.line)).toEqual([4, 18, 20, 21, 22])
  })

  it('ISSUE27.2 a setext heading of several lines is one title; a document without headings has none', () => {
    expect(outlineOf('first line\nsecond line\n---\n').map((heading) => heading.title)).toEqual(['first line second line'])
    expect(outlineOf('just text\n')).toEqual([])
    expect(outlineOf('')).toEqual([])
  })

  it('ISSUE27.2 outlineTree nests each heading under the nearest earlier one of higher rank, and a page may start deep', () => {
    const headings = outlineOf('### deep\n# top\n## mid\n#### deeper\n## mid2\n')
    const tree = outlineTree(headings)
    expect(tree.map((node) => node.title)).toEqual(['deep', 'top'])
    expect(tree[1]!.children!.map((node) => node.title)).toEqual(['mid', 'mid2'])
    expect(tree[1]!.children![0]!.children!.map((node) => node.title)).toEqual(['deeper'])
    expect(tree[0]!.children).toBeUndefined()
  })
})

describe('search', () => {
  const text = 'alpha 😀 beta\n中文 beta beta\n'

  it('ISSUE27.2 literal matches in UTF-16 offsets, one after another, within the range, at most the limit', () => {
    expect(findLiteral(text, 'beta', 0, text.length, 10).map((match) => match.offset)).toEqual([9, 17, 22])
    expect(findLiteral('aaaa', 'aa', 0, 4, 10).map((match) => match.offset)).toEqual([0, 2])
    expect(findLiteral(text, 'beta', 10, 20, 10).map((match) => match.offset)).toEqual([17])
    expect(findLiteral(text, 'beta', 0, text.length, 2)).toHaveLength(2)
    expect(findLiteral('a\nb', 'a\r\nb', 0, 3, 10)).toEqual([{ offset: 0, length: 3 }])
    expect(linesOf(text, [9, 17, 22])).toEqual([1, 2, 2])
  })

  it('ISSUE27.2 context is the line around the match, marked where cut, never half a surrogate pair', () => {
    expect(contextOf(text, { offset: 17, length: 4 })).toBe('中文 beta beta')
    const long = `${'😀'.repeat(30)}needle${'x'.repeat(60)}`
    const context = contextOf(long, { offset: long.indexOf('needle'), length: 6 })
    expect(context.startsWith('…')).toBe(true)
    expect(context.endsWith('…')).toBe(true)
    expect(context.isWellFormed()).toBe(true)
    expect(context).toContain('needle')
  })

  it('ISSUE27.2 a regular expression runs with g and m, Unicode-aware when it can be; a runaway one is stopped at its time limit', async () => {
    expect((await findPattern(text, '^\\S+', 0, text.length, 10)).map((match) => text.slice(match.offset, match.offset + match.length))).toEqual(['alpha', '中文'])
    expect(await findPattern(text, '.', 6, 7, 10)).toEqual([{ offset: 6, length: 2 }])
    expect((await findPattern('a#b', '\\#', 0, 3, 10)).map((match) => match.offset)).toEqual([1])
    await expect(findPattern(`${'a'.repeat(40)}!`, '^(a+)+$', 0, 41, 10, 200)).rejects.toMatchObject({ code: 'TIMEOUT' })
    // The next search gets a fresh worker.
    expect(await findPattern('abc', 'b', 0, 3, 10)).toEqual([{ offset: 1, length: 1 }])
    await expect(findPattern('abc', '(', 0, 3, 10)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' })
  })
})
