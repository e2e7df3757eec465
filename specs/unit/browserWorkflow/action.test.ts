import { describe, expect, it } from 'vitest'
import { ActionPrintError, parseAction, printAction, printActionLine, type Action } from '../../../core/browser/workflow/action.js'
import { scanQuoted } from '../../../core/browser/workflow/quoted.js'

/** The `action:` grammar (vmark.md §9.5): the three productions, the three failure classes, and the printer. */

const failureOf = (text: string) => {
  const result = parseAction(text)
  if (!('failure' in result)) throw new Error(`expected a failure, got ${JSON.stringify(result)}`)
  return result.failure
}

describe('click', () => {
  it.each<[string, Action]>([
    ['click "Publish" (button)', { kind: 'click', name: 'Publish', role: 'button' }],
    ['click "More"', { kind: 'click', name: 'More' }],
    ['  click   "回复 & 提交"(button)  ', { kind: 'click', name: '回复 & 提交', role: 'button' }],
    ['click "Say \\"hi\\"" (doc-page-break)', { kind: 'click', name: 'Say "hi"', role: 'doc-page-break' }],
    ['click "a\\nb\\u00e9\\/\\\\"', { kind: 'click', name: 'a\nbé/\\' }],
    ['click " padded "', { kind: 'click', name: ' padded ' }],
  ])('%s', (text, action) => {
    expect(parseAction(text)).toStrictEqual(action)
  })
})

describe('type', () => {
  it.each<[string, Action]>([
    ['type "hello world" into "Title" (textbox)', { kind: 'type', value: { literal: 'hello world' }, name: 'Title', role: 'textbox' }],
    ['type {article_path} into "Path"', { kind: 'type', value: { input: 'article_path' }, name: 'Path' }],
    ['type {my-title} into "Path"', { kind: 'type', value: { input: 'my-title' }, name: 'Path' }],
    ['type "" into "Search" (searchbox)', { kind: 'type', value: { literal: '' }, name: 'Search', role: 'searchbox' }],
    ['type "go into town" into "Field" (textbox)', { kind: 'type', value: { literal: 'go into town' }, name: 'Field', role: 'textbox' }],
    ['type "\\"" into "\\""', { kind: 'type', value: { literal: '"' }, name: '"' }],
  ])('%s', (text, action) => {
    expect(parseAction(text)).toStrictEqual(action)
  })
})

describe('navigate', () => {
  it('takes the rest of the text, trimmed, as the URL', () => {
    expect(parseAction('navigate to https://x.example.com/a?b=c')).toStrictEqual({ kind: 'navigate', url: 'https://x.example.com/a?b=c' })
    expect(parseAction('navigate  to   https://x.test/{slug}  ')).toStrictEqual({ kind: 'navigate', url: 'https://x.test/{slug}' })
  })
})

describe('failures', () => {
  it.each([
    ['navigate', 'a bare navigate'],
    ['navigate to', 'no URL'],
    ['navigate https://x.test', 'no "to"'],
    ['click', 'no target'],
    ['clicks "a"', 'not the keyword'],
    ['type into "Name"', 'no value'],
    ['type {1x} into "Name"', 'not an input name'],
    ['type {x into "Name"', 'an unclosed brace'],
    ['scroll down a bit', 'prose'],
    ['click Publish', 'an unquoted name'],
    ['type {x} into Name', 'an unquoted type target'],
    ['', 'nothing'],
  ])('not-executable: %j (%s)', (text) => {
    expect(failureOf(text)).toBe('not-executable')
  })

  it.each([
    ['click ""', 'an empty name'],
    ['click "   "', 'a blank name'],
    ['click "a"b"', 'an unescaped inner quote'],
    ['click "unterminated', 'no closing quote'],
    ['click "ends in a backslash\\', 'a lone trailing backslash'],
    ['click "a\\x"', 'an escape JSON does not know'],
    ['click "\\u12"', 'a short \\u escape'],
    ['click "\\u12g4"', 'a \\u escape with a non-hex digit'],
    ['click "tab\there"', 'a raw control character'],
    ['click "a" (Button)', 'a role that is not lowercase'],
    ['click "a" (doc--x)', 'a role with an empty word'],
    ['click "a" (button', 'an unclosed role'],
    ['click "a" (button) x', 'junk after the role'],
    ['click "a" trailing', 'junk after the name'],
    ['type {x} into ""', 'an empty type target'],
    ['type "v" into "a"b" (textbox)', 'an unescaped quote in a type target'],
  ])('malformed-target: %j (%s)', (text) => {
    expect(failureOf(text)).toBe('malformed-target')
  })

  it.each([
    ['type "unterminated into "F"', 'the value closes at the next quote and no into follows'],
    ['type "x"', 'no target'],
    ['type "x" "F"', 'no into'],
    ['type {x}into "F"', 'no space before into'],
    ['type "a\\q" into "F"', 'a bad escape in the value'],
    ['type "never closed', 'an unterminated value'],
  ])('malformed-value: %j (%s)', (text) => {
    expect(failureOf(text)).toBe('malformed-value')
  })

  it('a failure carries a message saying why', () => {
    expect(parseAction('click "a\\x"')).toEqual({ failure: 'malformed-target', message: expect.stringMatching(/escape/) })
  })
})

describe('the quoted-string scanner reads JSON strings as JSON.parse does', () => {
  it.each(['plain', 'q\\"uote', '\\\\', '\\/', '\\b\\f\\n\\r\\t', '\\u0041\\u00e9\\uD83D\\uDE00', '\\ud800', '\u2028', '𠀀'])('%s', (inner) => {
    const scanned = scanQuoted(`"${inner}" rest`, 0)
    expect(scanned).toEqual({ ok: true, value: JSON.parse(`"${inner}"`), end: inner.length + 2 })
  })

  it.each(['\\x', '\\u00', '\x01', '\\'])('refuses %j as JSON.parse does', (inner) => {
    expect(() => JSON.parse(`"${inner}"`)).toThrow()
    expect(scanQuoted(`"${inner}"`, 0).ok).toBe(false)
  })
})

describe('printAction: the recorder format, read back as the same action', () => {
  it.each<[Action, string]>([
    [{ kind: 'click', name: 'Publish', role: 'button' }, 'click "Publish" (button)'],
    [{ kind: 'click', name: 'Say "hi"\nthen \\ go' }, 'click "Say \\"hi\\"\\nthen \\\\ go"'],
    [{ kind: 'type', value: { input: 'title' }, name: 'Title', role: 'textbox' }, 'type {title} into "Title" (textbox)'],
    [{ kind: 'type', value: { literal: 'a" into "b' }, name: 'F' }, 'type "a\\" into \\"b" into "F"'],
    [{ kind: 'navigate', url: 'https://x.test/a b' }, 'navigate to https://x.test/a b'],
  ])('%j', (action, text) => {
    expect(printAction(action)).toBe(text)
    expect(parseAction(text)).toStrictEqual(action)
  })

  it('the recorder line is `N. action: <text>`', () => {
    expect(printActionLine(3, { kind: 'click', name: 'Publish', role: 'button' })).toBe('3. action: click "Publish" (button)')
  })

  it.each<[Action, RegExp]>([
    [{ kind: 'click', name: ' ' }, /blank/],
    [{ kind: 'click', name: 'a', role: 'Button' }, /role/],
    [{ kind: 'click', name: 'a', role: 'a)' }, /role/],
    [{ kind: 'type', value: { input: 'no space' }, name: 'a' }, /input name/],
    [{ kind: 'navigate', url: '' }, /URL/],
    [{ kind: 'navigate', url: ' https://x.test' }, /URL/],
    [{ kind: 'navigate', url: 'https://x.test/\nforged' }, /URL/],
  ])('refuses what text cannot carry: %j', (action, message) => {
    expect(() => printAction(action)).toThrow(ActionPrintError)
    expect(() => printAction(action)).toThrow(message)
  })
})
