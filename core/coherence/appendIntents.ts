/**
 * The ids of the ledger lines Quire is about to append to one workspace, kept in its data directory (which no
 * assistant reaches) before each append. The ledger is written first and the log second, so a crash between them
 * leaves lines in Quire's segment that its log lacks; only those named here are Quire's own to take back into the
 * log. A line another program put in Quire's segment is never named here, so it is never logged as Quire's and
 * `quire verify` names it.
 *
 * The file holds the batches not yet logged (normally the one being appended), replaced whole before each append
 * (temp and rename: a kill leaves the old list or the new one) and removed once their event is in the log. It is not
 * fsync'd: a kill keeps it (the page cache survives the process), and a power cut that loses it can only make verify
 * name a line whose append was never acknowledged.
 */
import { createHash } from 'node:crypto'
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

const FOLDER = 'coherence-intents'

/** The intents file of the workspace `root` in the data directory `home`. */
export function intentsPath(home: string, root: string): string {
  return join(home, FOLDER, `${createHash('sha256').update(root).digest('hex').slice(0, 32)}.json`)
}

/** The entry ids the intents file names (none when it is missing or unreadable). */
export async function readIntents(home: string, root: string): Promise<Set<string>> {
  try {
    const value = JSON.parse(await readFile(intentsPath(home, root), 'utf8')) as { root?: unknown; entries?: unknown }
    return value.root === root && Array.isArray(value.entries) ? new Set(value.entries.filter((id): id is string => typeof id === 'string')) : new Set()
  } catch {
    return new Set()
  }
}

export class AppendIntents {
  private readonly pending = new Set<string>()

  constructor(
    private readonly home: string,
    private readonly root: string,
  ) {}

  /** Before an append: the file names these entries (and any earlier ones whose log event has not landed). */
  async record(ids: readonly string[]): Promise<void> {
    for (const id of ids) this.pending.add(id)
    const path = intentsPath(this.home, this.root)
    await mkdir(join(this.home, FOLDER), { recursive: true, mode: 0o700 })
    const temp = `${path}.${process.pid}.tmp`
    await writeFile(temp, JSON.stringify({ root: this.root, entries: [...this.pending] }), { mode: 0o600 })
    await rename(temp, path)
  }

  /** After their log event (or a refusal that wrote nothing): these entries need no recovery. */
  async logged(ids: readonly string[]): Promise<void> {
    for (const id of ids) this.pending.delete(id)
    if (this.pending.size === 0) await rm(intentsPath(this.home, this.root), { force: true })
  }

  /** What the file names now: read once, when the workspace's ledger is first used after a start. */
  read(): Promise<Set<string>> {
    return readIntents(this.home, this.root)
  }
}
