const DIGIT = /^[0-9]$/

/**
 * Whether the `.` at `at` ends an ordered-list marker (`1.` at a line's start, after indentation or `>`): only
 * indentation, `>` and at most nine digits before it. Such a dot is Markdown syntax, never sentence punctuation, so
 * no rule may turn it into `。`.
 */
export function isListMarker(text: string, at: number): boolean {
  let index = at - 1
  let digits = 0
  while (index >= 0 && DIGIT.test(text[index]!)) index--, digits++
  if (digits === 0 || digits > 9) return false
  while (index >= 0 && ' \t>'.includes(text[index]!)) index--
  return index < 0 || text[index] === '\n'
}
