/** Code-point-aware neighbours: an astral character (𠀀 U+20000) is one neighbour, not a lone surrogate. */

/** The whole character that ends just before `at`, or '' at the start. */
export function charBefore(text: string, at: number): string {
  if (at <= 0) return ''
  const low = text.charCodeAt(at - 1)
  if (low >= 0xdc00 && low <= 0xdfff && at >= 2) {
    const high = text.charCodeAt(at - 2)
    if (high >= 0xd800 && high <= 0xdbff) return text.slice(at - 2, at)
  }
  return text[at - 1]!
}

/** The whole character that starts at `at`, or '' at the end. */
export function charAt(text: string, at: number): string {
  if (at >= text.length) return ''
  const code = text.codePointAt(at)!
  return String.fromCodePoint(code)
}
