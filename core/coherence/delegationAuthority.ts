/**
 * Which delegation entries count (TOOLS.md COHR.RESOLVE.3, COHR.RESOLVE.8; DESIGN §8: delegations are the person's
 * alone). A line in a segment is not enough: anyone who can write a file of the workspace could write one. Quire
 * honours a delegation
 *
 * - that the person appended through Quire: an event of the person (actor `user`) in Quire's log holds its line, and
 *   that logged line is what counts, whatever a segment holds under its id now (on a log several nodes share, another
 *   node's writer appended it: the log is the same);
 * - in another writer's segment (VMark's), when the person chose to trust that writer (the setting
 *   `coherenceTrustedWriters`, `quire coherence trust WRITER`, an event of theirs in the settings stream). Quire's own
 *   writer is never trusted so: a line in its segment that the log does not hold is not one it wrote.
 *
 * Every other delegation line is left out of the grants, and so authorizes nothing, fail-closed.
 */
import { parseLedgerLine, type DelegationEntry, type LedgerEntry } from './entries.js'
import { isDelegation } from './model/entries.js'

/** The person's grants and revocations as Quire logged them, by entry id: kept by the workspace's log fold. */
export type PersonDelegations = Map<string, DelegationEntry>

/** The delegation entries one logged line holds, if the person appended it (cheap for the lines that are not). */
export function personDelegationOf(line: string): DelegationEntry | undefined {
  if (!line.includes('"delegation"')) return undefined
  const verdict = parseLedgerLine(line)
  return verdict.status === 'entry' && isDelegation(verdict.entry) ? verdict.entry : undefined
}

/** The writers the person trusts, from the setting (comma-separated lower-case UUIDs). */
export function trustedWriters(setting: string): ReadonlySet<string> {
  return new Set(setting.split(',').map((id) => id.trim()).filter((id) => id !== ''))
}

/**
 * `entries` with each delegation replaced by the one Quire honours for it (the person's logged line) or left out;
 * `unhonoured` lists those left out.
 */
export function honouredEntries(
  entries: readonly LedgerEntry[],
  ourWriter: string,
  person: ReadonlyMap<string, DelegationEntry>,
  trusted: ReadonlySet<string>,
): { entries: LedgerEntry[]; unhonoured: DelegationEntry[] } {
  const kept: LedgerEntry[] = []
  const unhonoured: DelegationEntry[] = []
  for (const entry of entries) {
    if (!isDelegation(entry)) {
      kept.push(entry)
      continue
    }
    const logged = person.get(entry.id)
    if (logged !== undefined) kept.push(logged)
    else if (entry.writer !== ourWriter && trusted.has(entry.writer)) kept.push(entry)
    else unhonoured.push(entry)
  }
  return { entries: kept, unhonoured }
}
