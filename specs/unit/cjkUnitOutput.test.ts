import { describe, expect, it } from 'vitest'
import { Rewrite, UnitOutput } from '../../core/text/cjk/unitOutput.js'

/** The CJK scanners' output builders: every path keeps the text's code units exactly, lone surrogates included. */
const LONE = 'a\uD800b\uDC00中😀'
const long = (repeat: number) => (LONE + '文字English ').repeat(repeat)

describe('UnitOutput', () => {
  it('copies short and long stretches (unit by unit and natively) and pushes units, lone surrogates kept', () => {
    const text = long(200)
    const output = new UnitOutput(4)
    output.copy(text, 0, 5)
    output.push(0x20)
    output.copy(text, 5, text.length)
    output.copy(text, 1, 2)
    expect(output.toString()).toBe(text.slice(0, 5) + ' ' + text.slice(5) + text.slice(1, 2))
    expect(output.toString().isWellFormed()).toBe(false)
  })
  it('a shared output starts empty each time and is big enough', () => {
    const first = UnitOutput.shared(10)
    first.copy('abc', 0, 3)
    const second = UnitOutput.shared(100_000)
    expect(second.length).toBe(0)
    expect(second.units.length).toBeGreaterThanOrEqual(100_000)
    second.copy('xyz', 0, 3)
    expect(second.toString()).toBe('xyz')
  })
})

describe('Rewrite', () => {
  it('returns the text itself when nothing changed', () => {
    const text = long(3)
    expect(new Rewrite(text).result()).toBe(text)
  })
  it('gives the same text whether it joins slices (few changes) or writes units (many)', () => {
    const text = long(300)
    const expected = (every: number) => {
      let out = ''
      for (let at = 0; at < text.length; at++) out += (at % every === 0 ? '|' : '') + (at % every === 1 ? '' : text[at])
      return out
    }
    for (const every of [7, 997]) {
      const rewrite = new Rewrite(text)
      for (let at = 0; at < text.length; at += every) {
        rewrite.insert(at, 0x7c)
        if (at + 1 < text.length) rewrite.replace(at + 1, at + 2, -1)
      }
      expect(rewrite.result()).toBe(expected(every))
    }
  })
  it('maps a stretch through a table and replaces one with a character', () => {
    const table = new Uint16Array(0x10000)
    table[0x2c] = 0xff0c
    const rewrite = new Rewrite('a,b,c')
    rewrite.map(1, 4, table)
    rewrite.replace(4, 5, 0x2f)
    expect(rewrite.result()).toBe('a，b，/')
  })
})
