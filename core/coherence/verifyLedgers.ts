import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { EventLog } from '../log/eventLog.js'
import { CoherenceLinesAppended } from './events.js'
import { isSegmentFileName, workspaceLayout } from './layout.js'

/** What `quire verify` found of the coherence ledgers the log says we wrote. */
export interface LedgerVerification {
  /** Workspaces whose log stream was compared with their ledger files. */
  readonly workspaces: number
  /** Lines compared. */
  readonly lines: number
  /** Each line the log holds that its workspace's segment does not, in words. */
  readonly problems: readonly string[]
}

const PREFIX = 'coherence:'

/**
 * Checks that every ledger line the log says we appended (`coherence.appended` on `coherence:<root>`) is in that
 * workspace's own segment files byte for byte (DESIGN §9: every line we append is also an event; spec §5.2: appends
 * are never rewritten or truncated). A workspace whose folder no longer exists is reported, not failed: it may have
 * been moved or deleted by the person. Lines other writers appended are not in the log and are not looked at.
 */
export async function verifyLedgers(log: EventLog): Promise<LedgerVerification & { missingWorkspaces: readonly string[] }> {
  const problems: string[] = []
  const missingWorkspaces: string[] = []
  let workspaces = 0
  let lines = 0
  for await (const { stream } of log.streams(PREFIX)) {
    const root = stream.slice(PREFIX.length)
    const present = await segmentLines(root)
    if (present === undefined) {
      missingWorkspaces.push(root)
      continue
    }
    workspaces += 1
    for await (const event of log.readStream(stream)) {
      if (event.type !== CoherenceLinesAppended.type) continue
      const data = event.data as { segment: string; lines: readonly string[] }
      for (const line of data.lines) {
        lines += 1
        if (!present.has(line)) problems.push(`${root}: the line logged at position ${event.position} is not in any of its segments (${data.segment})`)
      }
    }
  }
  return { workspaces, lines, problems, missingWorkspaces }
}

/** Every line of every segment of a workspace, or undefined when the workspace folder is gone. */
async function segmentLines(root: string): Promise<Set<string> | undefined> {
  const folder = workspaceLayout(root).ledger
  let names: string[]
  try {
    names = await readdir(folder)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    try {
      await readdir(root)
      return new Set()
    } catch {
      return undefined
    }
  }
  const lines = new Set<string>()
  for (const name of names.filter(isSegmentFileName)) {
    for (const line of (await readFile(join(folder, name), 'utf8')).split('\n')) if (line !== '') lines.add(line)
  }
  return lines
}
