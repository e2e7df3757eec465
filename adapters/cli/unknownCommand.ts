/**
 * A command name quire does not have. Answered with one line naming the closest command, if one is close enough to
 * be a slip of the fingers, rather than the whole usage.
 */
export class UnknownCommandError extends Error {
  override name = 'UnknownCommandError'

  constructor(typed: string, commands: readonly string[]) {
    const guess = closestCommand(typed, commands)
    super(`unknown command ${JSON.stringify(typed)}${guess === undefined ? '' : `; did you mean ${JSON.stringify(guess)}?`} (quire help lists them)`)
  }
}

/**
 * The command `typed` most likely meant: the nearest by edits (a swap of two neighbours counts as one), within one
 * edit for short names and two for longer ones; else the only command it begins.
 */
export function closestCommand(typed: string, commands: readonly string[]): string | undefined {
  const limit = typed.length <= 4 ? 1 : 2
  let best: { command: string; distance: number } | undefined
  for (const command of commands) {
    const distance = editDistance(typed, command)
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { command, distance }
  }
  if (best) return best.command
  const begun = typed.length >= 3 ? commands.filter((command) => command.startsWith(typed)) : []
  return begun.length === 1 ? begun[0] : undefined
}

/** Insertions, deletions, substitutions and swaps of adjacent characters (optimal string alignment). */
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
