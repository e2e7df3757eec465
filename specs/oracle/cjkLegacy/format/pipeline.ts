import type { CjkFormattingSettings } from '../../../../core/text/cjk/settings.js'
import { spaceCjkEnglish } from '../spacing.js'
import { ANY_CJK_RE } from '../../../../core/text/cjk/characters.js'
import { convertDashes, spaceEmDashes } from './dashes.js'
import { normaliseEllipsis, normaliseFullwidthAlphanumeric } from './normalise.js'
import {
  convertFullwidthBrackets, convertFullwidthParentheses, convertFullwidthPunctuation, limitConsecutivePunctuation,
} from './punctuationRules.js'
import { convertNestedCornerQuotes, convertSmartQuotes, convertToCornerQuotes, spaceQuotes } from './quotes.js'
import { fixCurrencySpacing, fixSlashSpacing, spaceCjkParentheses } from './spacingRules.js'
import { collapseNewlines, collapseSpaces, removeTrailingSpaces } from './whitespace.js'

type Rule = (text: string) => string

/**
 * The `cjk-format` rules in VMark's order (`rules/applyRules.ts`), each present only when its switch is on:
 * ellipsis → [CJK rules] full-width alphanumerics → full-width punctuation → full-width brackets → dashes → em-dash
 * spacing → smart quotes → corner quotes → nested corner quotes → quote spacing → single-quote spacing → CJK–English
 * spacing → CJK parenthesis spacing → full-width parentheses → currency → slash → consecutive punctuation →
 * [universal] space collapsing → trailing spaces → newline collapsing.
 */
function rules(settings: CjkFormattingSettings): Rule[] {
  const list: Rule[] = []
  const when = (on: boolean, rule: Rule) => on && list.push(rule)
  when(settings.ellipsisNormalization, normaliseEllipsis)
  when(settings.fullwidthAlphanumeric, normaliseFullwidthAlphanumeric)
  when(settings.fullwidthPunctuation, convertFullwidthPunctuation)
  when(settings.fullwidthBrackets, convertFullwidthBrackets)
  when(settings.dashConversion, convertDashes)
  when(settings.emdashSpacing, spaceEmDashes)
  when(settings.smartQuoteConversion, (text) => convertSmartQuotes(text, settings.quoteStyle, settings.contextualQuotes))
  when(settings.cjkCornerQuotes, convertToCornerQuotes)
  when(settings.cjkNestedQuotes, convertNestedCornerQuotes)
  when(settings.quoteSpacing, (text) => spaceQuotes(text, '“', '”'))
  when(settings.singleQuoteSpacing, (text) => spaceQuotes(text, '‘', '’'))
  when(settings.cjkEnglishSpacing, spaceCjkEnglish)
  when(settings.cjkParenthesisSpacing, spaceCjkParentheses)
  when(settings.fullwidthParentheses, convertFullwidthParentheses)
  when(settings.currencySpacing, fixCurrencySpacing)
  when(settings.slashSpacing, fixSlashSpacing)
  when(settings.consecutivePunctuationLimit !== 0, (text) => limitConsecutivePunctuation(text, settings.consecutivePunctuationLimit))
  when(settings.spaceCollapsing, collapseSpaces)
  when(settings.trailingSpaceRemoval, (text) => removeTrailingSpaces(text, settings.preserveTwoSpaceHardBreaks))
  when(settings.newlineCollapsing, collapseNewlines)
  return list
}

/** Passes after which a still-changing text is returned as it is (every rule set tested converges in two or three). */
const MAX_PASSES = 6

/**
 * `cjk-format` on masked prose: the rules in order, repeated until a pass changes nothing, so the result is a fixed
 * point and the transform idempotent (rules interact: a space added by one can enable another). Text without CJK is
 * returned unchanged — the "never changes a document with no CJK" — which also keeps VMark's universal rules
 * (ellipsis, whitespace) from touching non-CJK documents.
 */
export function formatProse(masked: string, settings: CjkFormattingSettings): string {
  if (!ANY_CJK_RE.test(masked)) return masked
  const list = rules(settings)
  let text = masked
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    let next = text
    for (const rule of list) next = rule(next)
    if (next === text) return text
    text = next
  }
  return text
}
