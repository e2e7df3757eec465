import { readFileSync } from 'node:fs'
import { diffMain } from 'diff-match-patch-es'
import fc from 'fast-check'
import { pangu as panguInstance } from 'pangu'
import { describe, expect, it } from 'vitest'
import { charAt, charBefore } from '../../core/text/cjk/neighbours.js'
import { findProtectedRegions } from '../../core/text/cjk/protectedRegions.js'
import { transformText } from '../../core/text/cjk/transform.js'
import { PANGU_DIFFERENCES, type DifferenceCategory, type Hunk } from '../fixtures/cjk/pangu-differences.js'
import { CHINESE_REFERENCE_TEXT } from '../support/dataFiles.js'
import { fuzzParameters } from '../support/fuzz.js'

/**
 * Oracle: our `cjk-spacing` against `pangu.spacingText` (pangu 7.2.1). Per line, the two outputs are diffed; every
 * disagreement must be claimed by one of the deliberate differences listed (with reasons) in
 * specs/fixtures/cjk/pangu-differences.ts, and each listed difference's example must still differ as stated.
 * Everything else must be byte-identical to pangu.
 */

const ZH_SEED = CHINESE_REFERENCE_TEXT

const ours = (text: string) => transformText('cjk-spacing', text)

/** pangu 7.2.1's Node typings reference a shared declaration file the package does not ship; this is its real API. */
const pangu = panguInstance as unknown as { spacingText(text: string): string }

/** An output as edits of its input: what was inserted at each gap, and what became of each character (undefined: kept). */
interface Edits {
  readonly inserted: string[]
  readonly replaced: (string | undefined)[]
}

function editsOf(input: string, output: string): Edits {
  const inserted: string[] = Array.from({ length: input.length + 1 }, () => '')
  const replaced: (string | undefined)[] = Array.from({ length: input.length }, () => undefined)
  let at = 0
  for (const [operation, text] of diffMain(input, output, { diffTimeout: 0 })) {
    if (operation === 0) at += text.length
    else if (operation === -1) for (let index = 0; index < text.length; index++) replaced[at++] = ''
    else inserted[at] += text
  }
  return { inserted, replaced }
}

function nearestBefore(text: string, at: number): string {
  let index = at
  while (index > 0 && text[index - 1] === ' ') index--
  return charBefore(text, index)
}

function nearestAfter(text: string, at: number): string {
  let index = at
  while (index < text.length && text[index] === ' ') index++
  return charAt(text, index)
}

/** A text as its non-space characters (whole code points, with input offsets) and the space runs between them. */
interface Skeleton {
  readonly chars: string[]
  readonly offsets: number[]
  readonly gaps: string[]
}

function skeletonOf(text: string): Skeleton {
  const chars: string[] = []
  const offsets: number[] = []
  const gaps: string[] = ['']
  let at = 0
  for (const char of text) {
    if (char === ' ') gaps[gaps.length - 1] += ' '
    else {
      chars.push(char)
      offsets.push(at)
      gaps.push('')
    }
    at += char.length
  }
  return { chars, offsets, gaps }
}

/**
 * The places where our output and pangu's differ. Both keep the input's non-space characters in order (pangu
 * replaces a few, e.g. `·` → `・`), so they are compared character by character and space run by space run: a moved
 * space is then one clear difference between two known characters, whatever a text diff would make of it. When
 * pangu's skeleton does not line up with the input's, a character diff of each output against the input is used.
 */
function disagreements(input: string, mine: string, theirs: string): Hunk[] {
  const regions = findProtectedRegions(input)
  const inRegion = (at: number) => regions.some((region) => region.start <= at && at <= region.end)
  const base = skeletonOf(input)
  const ourSkeleton = skeletonOf(mine)
  const theirSkeleton = skeletonOf(theirs)
  if (ourSkeleton.chars.length !== base.chars.length || theirSkeleton.chars.length !== base.chars.length) {
    return diffDisagreements(input, mine, theirs, inRegion)
  }
  const hunks: Hunk[] = []
  for (let index = 0; index <= base.chars.length; index++) {
    const before = base.chars[index - 1] ?? ''
    const after = base.chars[index] ?? ''
    const at = base.offsets[index] ?? input.length
    if (ourSkeleton.gaps[index] !== theirSkeleton.gaps[index]) {
      hunks.push({ ours: ourSkeleton.gaps[index]!, pangu: theirSkeleton.gaps[index]!, before, after, inProtectedRegion: inRegion(at) })
    }
    if (index < base.chars.length && ourSkeleton.chars[index] !== theirSkeleton.chars[index]) {
      hunks.push({
        ours: ourSkeleton.chars[index]!, pangu: theirSkeleton.chars[index]!, before, after: base.chars[index + 1] ?? '', inProtectedRegion: inRegion(at),
      })
    }
  }
  return hunks
}

function diffDisagreements(input: string, mine: string, theirs: string, inRegion: (at: number) => boolean): Hunk[] {
  const ourEdits = editsOf(input, mine)
  const theirEdits = editsOf(input, theirs)
  const hunks: Hunk[] = []
  for (let at = 0; at <= input.length; at++) {
    const ourInsert = ourEdits.inserted[at]!
    const theirInsert = theirEdits.inserted[at]!
    if (ourInsert !== theirInsert) {
      hunks.push({ ours: ourInsert, pangu: theirInsert, before: nearestBefore(input, at), after: nearestAfter(input, at), inProtectedRegion: inRegion(at) })
    }
    if (at === input.length) break
    const ourChar = ourEdits.replaced[at] ?? input[at]!
    const theirChar = theirEdits.replaced[at] ?? input[at]!
    if (ourChar !== theirChar) {
      hunks.push({ ours: ourChar, pangu: theirChar, before: nearestBefore(input, at), after: nearestAfter(input, at + 1), inProtectedRegion: inRegion(at) })
    }
  }
  return hunks
}

const classify = (hunk: Hunk): DifferenceCategory | undefined => PANGU_DIFFERENCES.find((category) => category.claims(hunk))

/** Compares one line; returns a failure message, or undefined when the line agrees or every difference is listed. */
function compare(line: string, used: Map<string, number>): string | undefined {
  const mine = ours(line)
  const theirs = pangu.spacingText(line)
  if (mine === theirs) return undefined
  for (const hunk of disagreements(line, mine, theirs)) {
    const category = classify(hunk)
    if (!category) return `unlisted difference ${JSON.stringify(hunk)}\n  line:  ${JSON.stringify(line)}\n  ours:  ${JSON.stringify(mine)}\n  pangu: ${JSON.stringify(theirs)}`
    used.set(category.id, (used.get(category.id) ?? 0) + 1)
  }
  return undefined
}

describe('pangu oracle', () => {
  it('DOC.TRANSFORM.4 each listed difference still differs exactly as stated', () => {
    for (const category of PANGU_DIFFERENCES) {
      const { input, pangu: expectedPangu, ours: expectedOurs } = category.example
      expect(pangu.spacingText(input), category.id).toBe(expectedPangu)
      expect(ours(input), category.id).toBe(expectedOurs)
      expect(expectedOurs, category.id).not.toBe(expectedPangu)
      const hunks = disagreements(input, expectedOurs, expectedPangu)
      expect(hunks.length, category.id).toBeGreaterThan(0)
      for (const hunk of hunks) expect(classify(hunk)?.id, `${category.id}: ${JSON.stringify(hunk)}`).toBe(category.id)
    }
  })

  it('DOC.TRANSFORM.4 agrees with pangu on every line of the Chinese reference, except listed differences', () => {
    const lines = readFileSync(ZH_SEED, 'utf8').split(/\r?\n/)
    expect(lines.length).toBeGreaterThan(100)
    const used = new Map<string, number>()
    const failures = lines.map((line) => compare(line, used)).filter((failure) => failure !== undefined)
    expect(failures.slice(0, 5)).toEqual([])
    if (process.env.CJK_ORACLE_STATS) console.log(used)
    const agreeing = lines.filter((line) => ours(line) === pangu.spacingText(line)).length
    // Most lines need no exemption at all: the reference is ordinary mixed Chinese/English prose.
    expect(agreeing / lines.length).toBeGreaterThan(0.8)
  })

  it('DOC.TRANSFORM.4 equals pangu exactly on CJK, Latin letters, digits and spaces', () => {
    const text = fc.string({ unit: fc.constantFrom('中', '文', 'の', 'カ', 'ㄅ', 'a', 'Z', 'é', '5', '0', ' ', '。', '，'), maxLength: 40 })
    fc.assert(
      fc.property(text, (line) => {
        expect(ours(line)).toBe(pangu.spacingText(line))
      }),
      fuzzParameters({ numRuns: 300 }),
    )
  })

  it('DOC.TRANSFORM.4 differs from pangu only in listed ways on generated mixes with punctuation and symbols', () => {
    const text = fc.string({
      unit: fc.constantFrom(
        '中', '文', 'の', 'カ', '한', '𠀀', 'a', 'Z', 'é', 'ā', 'α', '5', '0', ' ', ' ',
        ',', '.', '!', '?', ':', ';', '(', ')', '[', ']', '"', "'", '-', '+', '*', '/', '#', '@', '%', '&', '=', '_', '~',
        '...', '…', '—', '·', '©', '，', '。', '（', '）', '`', '$',
      ),
      maxLength: 30,
    })
    const used = new Map<string, number>()
    fc.assert(
      fc.property(text, (line) => {
        expect(compare(line, used)).toBeUndefined()
      }),
      fuzzParameters({ numRuns: Number(process.env.CJK_ORACLE_RUNS ?? 300) }),
    )
  })
})
