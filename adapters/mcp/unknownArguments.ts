/**
 * The refusal of arguments a tool does not define. Dropping them silently would be worse than useless: a misspelled
 * `tabid` would leave `tabId` unset, and the call would act on whichever tab the person has focused.
 */

/** At most this many unknown names are spelled out; a call sending thousands gets a bounded message. */
const NAMES_SHOWN = 20

/** The names in `given` that are not in `accepted`, in the order the call gave them. */
export function unknownArguments(given: Record<string, unknown>, accepted: readonly string[]): string[] {
  const known = new Set(accepted)
  return Object.keys(given).filter((name) => !known.has(name))
}

/** `unknown argument tabid; did you mean tabId? document accepts: action, tabId, …` */
export function unknownArgumentsMessage(tool: string, unknown: readonly string[], accepted: readonly string[]): string {
  const clauses = unknown.slice(0, NAMES_SHOWN).map((name) => {
    const suggestion = closestName(name, accepted)
    return `unknown argument ${spelled(name)}${suggestion === undefined ? '.' : `; did you mean ${suggestion}?`}`
  })
  if (unknown.length > NAMES_SHOWN) clauses.push(`(and ${unknown.length - NAMES_SHOWN} more unknown arguments)`)
  return `${clauses.join(' ')} ${tool} accepts: ${accepted.join(', ')}.`
}

/**
 * The accepted name the caller most likely meant: the same name up to case and `_`/`-` (`tabid`, `tab_id`,
 * `expectedRevision`), else one within two edits that is not a different word (the distance under half the name's
 * length: `contnet`, `filepth`), else the only one it abbreviates (`expected_rev`). Undefined when nothing is close.
 */
export function closestName(name: string, accepted: readonly string[]): string | undefined {
  const wanted = folded(name)
  if (wanted.length === 0) return undefined
  const same = accepted.find((candidate) => folded(candidate) === wanted)
  if (same !== undefined) return same
  let best: { name: string; distance: number } | undefined
  for (const candidate of accepted) {
    const distance = editDistance(wanted, folded(candidate))
    if (distance <= 2 && distance * 2 < wanted.length && (best === undefined || distance < best.distance)) best = { name: candidate, distance }
  }
  if (best !== undefined) return best.name
  const abbreviated = wanted.length >= 3 ? accepted.filter((candidate) => folded(candidate).startsWith(wanted)) : []
  return abbreviated.length === 1 ? abbreviated[0] : undefined
}

const folded = (name: string): string => name.toLowerCase().replace(/[_-]/g, '')

/** A name as the message shows it: bare when it reads as an identifier, quoted JSON otherwise (`""`, `"tab id"`). */
const spelled = (name: string): string => (/^[A-Za-z_$][\w$-]*$/.test(name) ? name : JSON.stringify(name))

/** Levenshtein distance, with a swap of two neighbours counting as one edit (`tabdI`). */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)))
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let distance = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) distance = Math.min(distance, rows[i - 2]![j - 2]! + 1)
      rows[i]![j] = distance
    }
  }
  return rows[a.length]![b.length]!
}
