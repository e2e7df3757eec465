import { ANY_CJK_RE } from '../../../core/text/cjk/characters.js'
import { formatProse } from './format/pipeline.js'
import { mask, unmask } from './mask.js'
import { findProtectedRegions } from './protectedRegions.js'
import { fullwidthPunctuation } from '../../../core/text/cjk/punctuation.js'
import { DEFAULT_CJK_FORMATTING, type CjkFormattingSettings } from '../../../core/text/cjk/settings.js'
import { spaceCjkLatin } from './spacing.js'

/** The kinds `document.transform` accepts (DOC.TRANSFORM.1). */
export const CJK_TRANSFORM_KINDS = ['cjk-format', 'cjk-spacing', 'cjk-punctuation'] as const

export type CjkTransformKind = (typeof CJK_TRANSFORM_KINDS)[number]

/**
 * Rewrites a Markdown document's prose (DOC.TRANSFORM.2–5): pure, synchronous and deterministic. Protected regions
 * (code, front matter, URLs, link targets, HTML, math, escapes) are masked first and restored byte for byte, so only
 * the formattable segments change, with line endings and everything else kept. A document without any CJK
 * character comes back identical, whatever the kind.
 */
export function transformText(kind: CjkTransformKind, text: string, settings: CjkFormattingSettings = DEFAULT_CJK_FORMATTING): string {
  if (!ANY_CJK_RE.test(text)) return text
  // Spacing only inserts spaces between units, so it runs on the text itself, stepping over protected regions.
  if (kind === 'cjk-spacing') return spaceCjkLatin(text, findProtectedRegions(text))
  const { masked, atoms } = mask(text, { skipReferenceSections: kind === 'cjk-format' && settings.skipReferenceSections })
  const rewritten =
    kind === 'cjk-punctuation' ? fullwidthPunctuation(masked)
    : formatProse(masked, settings)
  return rewritten === masked ? text : unmask(rewritten, atoms)
}
