/**
 * `ellipsisNormalization`: spaced dots `. . .` (three or more), with the spaces before them, become `...` (VMark:
 * `等等. . .` → `等等...`). The match starts only at the start of a space run, so long runs of spaces stay linear.
 */
export const normaliseEllipsis = (text: string): string =>
  text.includes('. .') || text.includes('.\t.') ? text.replace(/(?<![ \t])[ \t]*\.(?:[ \t]\.){2,}/g, '...') : text

/** `fullwidthAlphanumeric`: full-width digits and letters (U+FF10–FF19, FF21–FF3A, FF41–FF5A) become ASCII. */
export const normaliseFullwidthAlphanumeric = (text: string): string =>
  text.replace(/[\uFF10-\uFF19\uFF21-\uFF3A\uFF41-\uFF5A]/g, (char) => String.fromCharCode(char.charCodeAt(0) - 0xfee0))
