/**
 * Link and image destinations and titles as Markdown writes them. Shared by the parser (which rebuilds the source
 * of a text-less link) and the serializer, so both spell a destination the same way.
 */

/** A destination: bare when it is safe bare, else in angle brackets (spaces, parentheses, an empty one). */
export function formatDestination(href: string): string {
  if (href.length > 0 && /^[^\s()<>\\\x00-\x1f]+$/.test(href)) return href
  return '<' + href.replace(/[<>\\]/g, '\\$&').replace(/\n/g, ' ') + '>'
}

/** A title, in double quotes, or nothing. */
export function formatTitle(title: unknown): string {
  if (typeof title !== 'string' || title.length === 0) return ''
  return ' "' + title.replace(/[\\"]/g, '\\$&') + '"'
}
