import { z } from 'zod'

/**
 * The user's CJK formatting settings (`settings.cjkFormatting` in VMark), which drive `cjk-format`
 * (DOC.TRANSFORM.3). Names, types and defaults are VMark's; the one addition is `preserveTwoSpaceHardBreaks`, which
 * VMark passes next to these settings (from its Markdown settings) and which is folded in here so one object carries
 * everything the transform reads.
 */
export const cjkFormattingSchema = z.object({
  // Group 1: universal normalisation
  ellipsisNormalization: z.boolean(),
  newlineCollapsing: z.boolean(),
  // Group 2: full-width normalisation
  fullwidthAlphanumeric: z.boolean(),
  fullwidthPunctuation: z.boolean(),
  fullwidthParentheses: z.boolean(),
  fullwidthBrackets: z.boolean(),
  // Group 3: spacing
  cjkEnglishSpacing: z.boolean(),
  cjkParenthesisSpacing: z.boolean(),
  currencySpacing: z.boolean(),
  slashSpacing: z.boolean(),
  spaceCollapsing: z.boolean(),
  // Group 4: dashes and quotes
  dashConversion: z.boolean(),
  emdashSpacing: z.boolean(),
  smartQuoteConversion: z.boolean(),
  quoteStyle: z.enum(['curly', 'corner', 'guillemets']),
  contextualQuotes: z.boolean(),
  quoteSpacing: z.boolean(),
  singleQuoteSpacing: z.boolean(),
  cjkCornerQuotes: z.boolean(),
  cjkNestedQuotes: z.boolean(),
  /** How VMark's editor command toggles quotes under the cursor; no effect on a whole-document transform. */
  quoteToggleMode: z.enum(['simple', 'full-cycle']),
  // Group 5: clean-up
  /** 0 = off; 1 or 2 = the longest run of one repeated full-width `！` or `？` kept. */
  consecutivePunctuationLimit: z.union([z.literal(0), z.literal(1), z.literal(2)]),
  trailingSpaceRemoval: z.boolean(),
  /** Keep two or more trailing spaces that end a non-blank line followed by another line (a Markdown hard break). */
  preserveTwoSpaceHardBreaks: z.boolean(),
  // Group 6: sections
  /** Leave "References" / "参考文献" sections (bibliographies) untouched. */
  skipReferenceSections: z.boolean(),
})

export type CjkFormattingSettings = z.infer<typeof cjkFormattingSchema>

/** VMark's `DEFAULT_CJK_FORMATTING` (plus hard breaks preserved, VMark's Markdown default). */
export const DEFAULT_CJK_FORMATTING: CjkFormattingSettings = Object.freeze({
  ellipsisNormalization: true,
  newlineCollapsing: false,
  fullwidthAlphanumeric: true,
  fullwidthPunctuation: true,
  fullwidthParentheses: true,
  fullwidthBrackets: false,
  cjkEnglishSpacing: true,
  cjkParenthesisSpacing: true,
  currencySpacing: true,
  slashSpacing: true,
  spaceCollapsing: true,
  dashConversion: true,
  emdashSpacing: true,
  smartQuoteConversion: true,
  quoteStyle: 'curly',
  contextualQuotes: true,
  quoteSpacing: true,
  singleQuoteSpacing: true,
  cjkCornerQuotes: false,
  cjkNestedQuotes: false,
  quoteToggleMode: 'simple',
  consecutivePunctuationLimit: 0,
  trailingSpaceRemoval: true,
  preserveTwoSpaceHardBreaks: true,
  skipReferenceSections: false,
})
