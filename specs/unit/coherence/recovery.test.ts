/**
 * A crash between the ledger's write and the log's (DESIGN §9: ledger first, then the event) leaves lines of ours the
 * log lacks; the workspace's next use logs them (`recovered`). Only lines the data directory's append intents name are
 * Quire's to take back: a line another program put in Quire's segment is never logged as Quire's, `quire verify`
 * names it, and a recovered delegation is not the person's event, so it authorizes nothing (issue 25 item 1).
 */
import { appendFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { composeEntry } from '../../../core/coherence/compose.js'
import { CoherenceLinesAppended } from '../../../core/coherence/events.js'
import { verifyLedgers } from '../../../core/coherence/verifyLedgers.js'
import { WorkspaceLedger } from '../../../core/coherence/workspaceLedger.js'
import { USER } from '../../../core/events/actor.js'
import { createEventRegistry } from '../../../core/eventRegistry.js'
import type { EventLog } from '../../../core/log/eventLog.js'
import { EventStore } from '../../../adapters/leveldb/eventStore.js'
import { OUR_WRITER, transformation } from './support.js'

let base: string
let root: string
let home: string
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'quire-coherence-recovery-'))
  root = join(base, 'workspace')
  home = join(base, 'home')
  await mkdir(root)
  await mkdir(home)
})
afterEach(async () => {
  await rm(base, { recursive: true, force: true })
})

/** The log of `home`, whose appends fail while `failing` says so (a disk that stopped taking them: a crash, for the log). */
async function openLog(failing: () => boolean = () => false): Promise<{ log: EventLog; close(): Promise<void> }> {
  const store = await EventStore.open(home, { registry: createEventRegistry() })
  const log = new Proxy(store, {
    get: (target, property) => {
      if (property === 'append') return (appends: Parameters<EventLog['append']>[0]) => (failing() ? Promise.reject(new Error('the log stopped')) : target.append(appends))
      const value: unknown = Reflect.get(target, property, target)
      return typeof value === 'function' ? value.bind(target) : value
    },
  }) as EventLog
  return { log, close: () => store.close() }
}

const segment = () => join(root, '.vmark', 'ledger', `${OUR_WRITER}.jsonl`)

async function recoveredLines(log: EventLog): Promise<string[]> {
  const lines: string[] = []
  for await (const event of log.readStream(`coherence:${root}`)) {
    const data = event.data as { lines: string[]; recovered?: boolean }
    if (event.type === CoherenceLinesAppended.type && data.recovered === true) lines.push(...data.lines)
  }
  return lines
}

describe('lines a crash left unlogged', () => {
  it('only the lines Quire was appending are logged as recovered, exactly as in the segment; a stranger\'s line in our segment is named by verify', async () => {
    let stopped = false
    const first = await openLog(() => stopped)
    const ledger = new WorkspaceLedger(root, OUR_WRITER, first.log, {}, home)
    await ledger.append([transformation(OUR_WRITER, 1)], USER)
    stopped = true
    const grant = composeEntry(
      'delegation',
      { delegation: '0198c0de-0000-7000-8000-0000000000d1', actor: { type: 'human', id: 'Ana' }, delegate: { type: 'external', id: 'claude' }, scope: ['resolve.waive'], expires: '2099-01-01T00:00:00.000Z', supersedes: null },
      { writer: OUR_WRITER },
    )
    await expect(ledger.append([grant], USER)).rejects.toThrow(/the log stopped/)
    await first.close()
    // Another program (a git pull, say) adds a line under Quire's writer while Quire is stopped.
    const stranger = transformation(OUR_WRITER, 9)
    await appendFile(segment(), `${JSON.stringify(stranger)}\n`)

    const second = await openLog()
    try {
      const before = await verifyLedgers(second.log, home)
      expect(before.pending).toEqual([expect.stringContaining(`(delegation ${grant.id}) was being appended when Quire stopped`)])
      expect(before.problems).toEqual([expect.stringMatching(new RegExp(`line 3 of ${OUR_WRITER}\\.jsonl \\(transformation ${stranger.id}\\) is in Quire's own segment but was not written by Quire`))])

      const restarted = new WorkspaceLedger(root, OUR_WRITER, second.log, {}, home)
      const view = await restarted.view()
      const grantLine = (await readFile(segment(), 'utf8')).split('\n')[1]!
      expect(await recoveredLines(second.log)).toEqual([grantLine])
      // Recovered by the system, not appended by the person: it authorizes nothing.
      expect(view.delegations(new Set()).all()).toEqual([])
      expect(view.unhonoured(new Set()).map((entry) => entry.id)).toEqual([grant.id])

      const after = await verifyLedgers(second.log, home)
      expect(after.pending).toEqual([])
      expect(after.problems).toEqual(before.problems)
    } finally {
      await second.close()
    }
  })
})
