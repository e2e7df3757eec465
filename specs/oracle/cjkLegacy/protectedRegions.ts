import { scanBlocks, type Region } from './blockRegions.js'
import { scanInline } from './inlineRegions.js'

export type { Region } from './blockRegions.js'

export interface ProtectedRegionOptions {
  /** Also protect "References" / "参考文献" sections (cjk-format's `skipReferenceSections`). */
  readonly skipReferenceSections?: boolean
}

/**
 * Every region of a Markdown document that no CJK transform may change, sorted and non-overlapping: front matter,
 * fenced and indented code, HTML and math blocks, reference definitions (block scan), then, in the prose between
 * them, code spans, autolinks, bare URLs and emails, raw HTML, inline math, backslash escapes, and link brackets and
 * targets (inline scan). What lies outside them is the formattable prose.
 */
export function findProtectedRegions(text: string, options: ProtectedRegionOptions = {}): Region[] {
  const { regions: blocks, labels } = scanBlocks(text, options.skipReferenceSections ?? false)
  const regions: Region[] = [...blocks]
  let at = 0
  for (const block of blocks) {
    if (block.start > at) scanInline(text, at, block.start, labels, regions)
    at = block.end
  }
  if (at < text.length) scanInline(text, at, text.length, labels, regions)
  // Only link openers are recorded out of order (when their `]` is found); skip the sort when nothing needs it.
  for (let index = 1; index < regions.length; index++) {
    if (regions[index]!.start < regions[index - 1]!.start) return regions.sort((a, b) => a.start - b.start)
  }
  return regions
}
