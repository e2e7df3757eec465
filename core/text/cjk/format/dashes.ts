import { CJK, LATIN_WORD } from './context.js'

const SIDE = `(?:${CJK}|${LATIN_WORD}|[”’」』）》】])`
const DOUBLE_HYPHEN = new RegExp(`(?<=${SIDE})[ \\t]*--[ \\t]*(?=${SIDE})`, 'gu')
const EM_DASH_PAIR = new RegExp(`(?<=${SIDE})[ \\t]*——[ \\t]*(?=${SIDE})`, 'gu')
const HAS_CJK_NEAR = new RegExp(CJK, 'u')

/** Each rule first asks whether the text holds its dash at all: a lookbehind-led regex costs a pass per rule. */

/**
 * `dashConversion`: a double hyphen between words, with CJK on at least one side, becomes a spaced Chinese dash
 * (`原因--结果` → `原因 —— 结果`). Exactly two hyphens: `---` (rules, tables) and `--flag` (no word before) stay.
 */
export function convertDashes(text: string): string {
  if (!text.includes('--')) return text
  return text.replace(DOUBLE_HYPHEN, (dash: string, offset: number) => {
    const around = text.slice(Math.max(0, offset - 2), offset + dash.length + 2)
    if (text[offset - 1] === '-' || text[offset + dash.length] === '-') return dash
    return HAS_CJK_NEAR.test(around) ? ' —— ' : dash
  })
}

/** `emdashSpacing`: exactly one space on each side of `——` between words when CJK is next to it. */
export function spaceEmDashes(text: string): string {
  if (!text.includes('——')) return text
  return text.replace(EM_DASH_PAIR, (dash: string, offset: number) => {
    const around = text.slice(Math.max(0, offset - 2), offset + dash.length + 2)
    return HAS_CJK_NEAR.test(around) ? ' —— ' : dash
  })
}
