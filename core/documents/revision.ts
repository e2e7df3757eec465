/**
 * Revision tokens: `rev-` + the base-36 log position of the last event that changed a document's content. A
 * revision therefore changes exactly when the content does, and two tabs on one document share it. Clients must
 * treat it as opaque; only this module reads it back.
 */
const PATTERN = /^rev-([0-9a-z]{1,11})$/

export function revisionToken(position: number): string {
  return `rev-${position.toString(36)}`
}

/** The position a token names, or undefined for anything that is not a token this server could have issued. */
export function positionOfRevision(token: string): number | undefined {
  const match = PATTERN.exec(token)
  if (!match) return undefined
  const position = Number.parseInt(match[1]!, 36)
  return Number.isSafeInteger(position) && position > 0 ? position : undefined
}
