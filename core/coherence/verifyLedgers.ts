import { readdir } from 'node:fs/promises'
import type { EventLog } from '../log/eventLog.js'
import { readIntents } from './appendIntents.js'
import { isUnsafeLedgerPath } from './confined.js'
import { parseLedgerLine } from './entries.js'
import { CoherenceLinesAppended } from './events.js'
import { segmentNumberOf } from './layout.js'
import { readSegmentLines, type RawSegmentLine } from './segmentLines.js'

/** What `quire verify` found of the coherence ledgers the log says we wrote. */
export interface LedgerVerification {
  /** Workspaces whose log stream was compared with their ledger files. */
  readonly workspaces: number
  /** Lines compared. */
  readonly lines: number
  /**
   * In words: each line the log holds that its workspace's segment does not; each line of Quire's own segment that
   * Quire did not write (not in its log, nor one it was appending when it stopped); a ledger reached through a link.
   */
  readonly problems: readonly string[]
  /** Lines of ours a stop left unlogged, which the workspace's next use logs (`recovered`): not problems. */
  readonly pending: readonly string[]
}

const PREFIX = 'coherence:'

/**
 * Checks every workspace whose ledger the log says we appended to (`coherence.appended` on `coherence:<root>`):
 * every line we logged is in that workspace's segments byte for byte (DESIGN §9: every line we append is also an
 * event; spec §5.2: appends are never rewritten or truncated), and every line in our own segments is one we logged —
 * or one the data directory's intents name (`home`: appendIntents.ts), written just before a stop. Any other line
 * there was put by another program: a grant for an assistant, say, which Quire never honours (delegationAuthority.ts)
 * and reports here. A workspace whose folder no longer exists is reported, not failed: it may have been moved or
 * deleted by the person. Other writers' segments are theirs: only our lines in them are looked for.
 */
export async function verifyLedgers(log: EventLog, home?: string): Promise<LedgerVerification & { missingWorkspaces: readonly string[] }> {
  const problems: string[] = []
  const pending: string[] = []
  const missingWorkspaces: string[] = []
  let workspaces = 0
  let lines = 0
  for await (const { stream } of log.streams(PREFIX)) {
    const root = stream.slice(PREFIX.length)
    let segments: RawSegmentLine[] | undefined
    try {
      segments = await readSegmentLines(root)
    } catch (error) {
      if (!isUnsafeLedgerPath(error)) throw error
      problems.push(`${root}: ${error.message}; its lines were not checked`)
      continue
    }
    if (segments === undefined && !(await isFolder(root))) {
      missingWorkspaces.push(root)
      continue
    }
    workspaces += 1
    const present = new Set((segments ?? []).map((line) => line.text))
    const logged = new Set<string>()
    const writers = new Set<string>()
    for await (const event of log.readStream(stream)) {
      if (event.type !== CoherenceLinesAppended.type) continue
      const data = event.data as { segment: string; lines: readonly string[] }
      writers.add(data.segment.replace(/(-\d+)?\.jsonl$/, ''))
      for (const line of data.lines) {
        lines += 1
        logged.add(line)
        if (!present.has(line)) problems.push(`${root}: the line logged at position ${event.position} is not in any of its segments (${data.segment})`)
      }
    }
    const intended = home === undefined ? new Set<string>() : await readIntents(home, root)
    for (const line of segments ?? []) {
      if (logged.has(line.text) || ![...writers].some((writer) => segmentNumberOf(line.segment, writer) !== undefined)) continue
      const verdict = parseLedgerLine(line.text)
      // A torn or malformed line is the reader's to quarantine (spec §5.6), not a line anyone wrote whole.
      if (verdict.status !== 'entry') continue
      const what = `line ${line.number} of ${line.segment} (${verdict.entry.kind} ${verdict.entry.id})`
      if (intended.has(verdict.entry.id)) pending.push(`${root}: ${what} was being appended when Quire stopped; its next use logs it`)
      else problems.push(`${root}: ${what} is in Quire's own segment but was not written by Quire (its log does not hold it)`)
    }
  }
  return { workspaces, lines, problems, pending, missingWorkspaces }
}

async function isFolder(path: string): Promise<boolean> {
  try {
    await readdir(path)
    return true
  } catch {
    return false
  }
}
