import { FULLWIDTH_SPACED_PUNCTUATION, classEscape } from '../../../../core/text/cjk/characters.js'

const FULLWIDTH = `[${classEscape(FULLWIDTH_SPACED_PUNCTUATION)}]`
/** Spaces inside a line: not indentation (nothing but spaces before), not trailing (only spaces after). */
const INNER_RUN = /(?<=[^ \t\r\n])[ \t]{2,}(?=[^ \t\r\n])/g
const AROUND_FULLWIDTH = new RegExp(`(?<=[^ \\t\\r\\n])[ \\t]+(?=${FULLWIDTH})|(?<=${FULLWIDTH})[ \\t]+(?=[^ \\t\\r\\n])`, 'gu')

/**
 * `spaceCollapsing`: runs of spaces inside a line become one, and spaces touching full-width punctuation go (it
 * carries its own space: `中文， English` → `中文，English`). Indentation and trailing spaces are left alone: the
 * first is Markdown structure, the second is `trailingSpaceRemoval`'s (hard breaks).
 */
export const collapseSpaces = (text: string): string => text.replace(INNER_RUN, ' ').replace(AROUND_FULLWIDTH, '')

/**
 * `trailingSpaceRemoval`: trailing spaces and tabs go; with `preserveTwoSpaceHardBreaks`, two or more spaces ending a
 * non-blank line that another line follows stay (a Markdown hard break). Line endings (`\n`, `\r\n`) are kept.
 */
export function removeTrailingSpaces(text: string, preserveHardBreaks: boolean): string {
  return text.replace(/(?<![ \t])[ \t]+(?=\r?\n|$)/g, (run: string, offset: number, source: string) => {
    if (!preserveHardBreaks || !/^ {2,}$/.test(run)) return ''
    const end = offset + run.length
    if (end === source.length) return ''
    const lineStart = source.lastIndexOf('\n', offset - 1) + 1
    return offset > lineStart ? run : ''
  })
}

/** `newlineCollapsing`: at most one blank line in a row (whitespace-only lines count as blank); line endings kept. */
export const collapseNewlines = (text: string): string =>
  text.replace(/(\r?\n)(?:[ \t]*\r?\n){2,}/g, (_run: string, first: string) => first + first)
