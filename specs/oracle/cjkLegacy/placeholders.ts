/**
 * The characters that stand in for protected regions while the prose around them is rewritten. They come from the
 * Private Use Area, which no rule matches, so a rule can look at a placeholder (e.g. "a code span follows this CJK
 * character") but never changes or moves it. A Private Use character already in the input is itself protected
 * (masked as {@link OPAQUE}), so placeholders are unambiguous whatever the document contains.
 */

/** An inline region that reads as one Latin word: a code span, inline math, a URL, an autolink, an email address. */
export const WORD = '\uE000'
/** An inline region with no typographic meaning: an HTML tag or comment, a backslash escape. */
export const OPAQUE = '\uE001'
/** The `[` or `![` that opens a link or image; spacing looks through it (the space goes outside the link). */
export const LINK_OPEN = '\uE002'
/** The `](target "title")`, `][label]` or `]` that closes a link or image; spacing looks through it too. */
export const LINK_CLOSE = '\uE003'
/** A block region: front matter, fenced or indented code, an HTML block, a math block, a reference definition. */
export const BLOCK = '\uE004'

export type Placeholder = typeof WORD | typeof OPAQUE | typeof LINK_OPEN | typeof LINK_CLOSE | typeof BLOCK
