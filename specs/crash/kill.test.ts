import { spawn } from 'node:child_process'
import { createHash, randomInt } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { openEmbeddedEngine } from '../../adapters/leveldb/embeddedEngine.js'
import { positionOfRevision } from '../../core/documents/revision.js'
import type { RecordedEvent } from '../../core/log/eventLog.js'
import { onStdoutLines, runCli, supportScript } from '../support/cli.js'
import { useTempHomes } from '../support/tempHome.js'

/**
 * The crash test: a child process (specs/support/crashWriter.ts) appends durably from many concurrent loops and
 * prints an acknowledgement after each append resolves; we SIGKILL it at a random moment, again and again on the
 * same data directory, and then prove that nothing acknowledged was lost or changed and the log is sound.
 */

const CYCLES = 22
/** Extra lives killed at a random moment after spawning, ready or not: during start-up and LevelDB recovery. */
const EARLY_KILLS = 5
const RAW_LOOPS = 32
const DOC_LOOPS = 3
const RAW_ACTOR = { kind: 'peer', peer: 'crash' }

type Message =
  | { kind: 'ready'; pid: number; heads: Record<string, number>; docs: Record<string, string> }
  | { kind: 'append'; stream: string; versions: number[]; positions: number[]; hashes: string[] }
  | { kind: 'created'; loop: number; docId: string; revision: string; hash: string }
  | { kind: 'doc'; loop: number; docId: string; op: 'write' | 'peer'; revision: string; hash: string; live: boolean }
  | { kind: 'error'; message: string }

interface Cycle {
  readonly messages: Message[]
  readonly ready: Extract<Message, { kind: 'ready' }> | undefined
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stderr: string
  readonly delay: number
}

const sha = (bytes: Uint8Array | string): string => createHash('sha256').update(bytes).digest('hex')

/**
 * One life of the writer: spawn it, let it run 20–400 ms after it reports ready, SIGKILL it. An early life is
 * killed 30–400 ms after it was spawned instead, whether or not it got as far as opening the store.
 */
function runCycle(home: string, docs: Record<number, string>, early = false): Promise<Cycle> {
  const config = JSON.stringify({ rawLoops: RAW_LOOPS, docLoops: DOC_LOOPS, docs })
  const child = spawn(process.execPath, [supportScript('crashWriter'), home, config], { stdio: ['ignore', 'pipe', 'pipe'] })
  const messages: Message[] = []
  let ready: Cycle['ready']
  let stderr = ''
  const delay = early ? randomInt(30, 401) : randomInt(20, 401)
  if (early) setTimeout(() => child.kill('SIGKILL'), delay)
  child.stderr.setEncoding('utf8')
  child.stderr.on('data', (text: string) => void (stderr += text))
  // A writer that never gets ready (or hangs) must not hang the test.
  const watchdog = setTimeout(() => child.kill('SIGKILL'), 20_000)
  onStdoutLines(child, (line) => {
    const message = JSON.parse(line) as Message
    messages.push(message)
    if (message.kind === 'ready') {
      ready = message
      if (!early) setTimeout(() => child.kill('SIGKILL'), delay)
    }
  })
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(watchdog)
      resolve({ messages, ready, code, signal, stderr, delay })
    })
  })
}

const newHome = useTempHomes()

describe('crash safety under SIGKILL', () => {
  it(
    `keeps every acknowledged append, byte for byte and at its position, across ${CYCLES + EARLY_KILLS} kills mid-write or mid-start-up`,
    async () => {
      const home = await newHome()
      const docsByLoop: Record<number, string> = {}
      const appends: Extract<Message, { kind: 'append' }>[] = []
      const docAcks: (Extract<Message, { kind: 'doc' | 'created' }> & { cycle: number })[] = []
      /** Highest acknowledged version per raw stream and revision position per document, so far. */
      const ackedVersion = new Map<string, number>()
      const ackedRevision = new Map<string, number>()
      const lostAcrossKill: string[] = []
      let cyclesWithAcks = 0
      let cyclesWithUnackedDurable = 0

      let earlyKillsBeforeReady = 0
      for (let cycle = 0; cycle < CYCLES + EARLY_KILLS; cycle++) {
        // Every fifth life (after the first) is killed early.
        const early = cycle % 5 === 1 && cycle < 5 * EARLY_KILLS
        const result = await runCycle(home, { ...docsByLoop }, early)
        const errors = result.messages.filter((message) => message.kind === 'error')
        expect(errors, `writer errors in cycle ${cycle}`).toEqual([])
        // It was killed by us, not by a crash of its own, and (unless killed early) it opened the data directory.
        expect({ signal: result.signal, code: result.code, ready: early || result.ready !== undefined, stderr: result.stderr }).toEqual({
          signal: 'SIGKILL', code: null, ready: true, stderr: '',
        })
        if (!result.ready) {
          earlyKillsBeforeReady++
          continue
        }

        // What this life found on opening must include everything acknowledged by the lives before it.
        const ready = result.ready
        let unackedDurable = false
        for (const [stream, version] of ackedVersion) {
          const found = ready.heads[stream] ?? 0
          if (found < version) lostAcrossKill.push(`cycle ${cycle}: ${stream} reopened at version ${found}, ${version} was acknowledged`)
          if (found > version) unackedDurable = true
        }
        for (const [docId, position] of ackedRevision) {
          const found = ready.docs[docId] === undefined ? 0 : positionOfRevision(ready.docs[docId]!)!
          if (found < position) lostAcrossKill.push(`cycle ${cycle}: ${docId} reopened at ${ready.docs[docId]}, position ${position} was acknowledged`)
        }
        if (unackedDurable) cyclesWithUnackedDurable++

        let acked = 0
        for (const message of result.messages) {
          if (message.kind === 'append') {
            appends.push(message)
            acked++
            ackedVersion.set(message.stream, Math.max(ackedVersion.get(message.stream) ?? 0, ...message.versions))
          } else if (message.kind === 'created' || message.kind === 'doc') {
            docAcks.push({ ...message, cycle })
            if (message.kind === 'created') docsByLoop[message.loop] = message.docId
            const position = positionOfRevision(message.revision)!
            ackedRevision.set(message.docId, Math.max(ackedRevision.get(message.docId) ?? 0, position))
          }
        }
        if (acked > 0) cyclesWithAcks++
      }

      expect(lostAcrossKill).toEqual([])
      // The kills must have landed while the writer was busy, or this test proves nothing.
      expect(cyclesWithAcks).toBeGreaterThanOrEqual(CYCLES / 3)
      expect(appends.length).toBeGreaterThan(CYCLES * 10)
      expect(docAcks.filter((ack) => ack.kind === 'doc').length).toBeGreaterThan(CYCLES)
      expect(docAcks.filter((ack) => ack.kind === 'doc' && !ack.live)).toEqual([])

      const engine = await openEmbeddedEngine(home)
      let docIds: string[]
      const contents = new Map<string, string>()
      try {
        // Positions are gap-free from 1 to the head.
        const byPosition = new Map<number, RecordedEvent>()
        let expectedPosition = 1
        const gaps: string[] = []
        for await (const event of engine.store.readAll(0)) {
          if (event.position !== expectedPosition) gaps.push(`expected position ${expectedPosition}, read ${event.position}`)
          expectedPosition = event.position + 1
          byPosition.set(event.position, event)
        }
        expect(gaps.slice(0, 5)).toEqual([])
        expect(byPosition.size).toBe(engine.store.headPosition)
        expect(engine.store.headPosition).toBeGreaterThanOrEqual(Math.max(...appends.flatMap((ack) => ack.positions)))

        // Every acknowledged event is at its acknowledged position with the same stream, version and payload.
        const wrong: string[] = []
        for (const ack of appends) {
          ack.positions.forEach((position, index) => {
            const event = byPosition.get(position)
            const found = event && {
              stream: event.stream,
              version: event.streamVersion,
              type: event.type,
              actor: event.actor,
              hash: sha((event.data as { update: Uint8Array }).update),
            }
            const expected = { stream: ack.stream, version: ack.versions[index], type: 'document.changed', actor: RAW_ACTOR, hash: ack.hashes[index] }
            if (JSON.stringify(found) !== JSON.stringify(expected)) {
              wrong.push(`position ${position}: acknowledged ${JSON.stringify(expected)}, found ${JSON.stringify(found)}`)
            }
          })
        }
        expect(wrong.slice(0, 5)).toEqual([])

        // Every stream's versions run 1..n in position order, and its head names the last one.
        for (let i = 0; i < RAW_LOOPS; i++) {
          const stream = `doc:crash-${i}`
          const events = [...byPosition.values()].filter((event) => event.stream === stream)
          expect(events.map((event) => event.streamVersion)).toEqual(events.map((_, index) => index + 1))
          expect(await engine.store.streamHead(stream)).toEqual({
            version: events.length,
            position: events.at(-1)?.position ?? 0,
          })
        }

        const integrity = await engine.store.checkIntegrity()
        expect(integrity.problems).toEqual([])
        expect(integrity.quarantined).toEqual([])
        expect(integrity.events).toBe(byPosition.size)
        expect(engine.store.quarantinedRecords()).toEqual([])

        // Every acknowledged document revision rebuilds to exactly the content acknowledged with it.
        const wrongContent: string[] = []
        for (const ack of docAcks) {
          const state = await engine.documents.rebuild(ack.docId, positionOfRevision(ack.revision)!)
          const found = state === undefined ? undefined : { revision: state.revision, hash: sha(state.content) }
          if (found?.revision !== ack.revision || found.hash !== ack.hash) {
            wrongContent.push(`${ack.docId} (${ack.kind} ${'op' in ack ? ack.op : ''}, cycle ${ack.cycle}) at ${ack.revision}: ${JSON.stringify(found)}`)
          }
          state?.destroy()
        }
        expect(wrongContent.slice(0, 5)).toEqual([])

        docIds = (await engine.documents.ids()).filter((id) => !id.startsWith('crash-'))
        expect(docIds.length).toBeGreaterThanOrEqual(DOC_LOOPS)
        for (const docId of [...docIds, 'crash-0']) contents.set(docId, (await engine.documents.get(docId))!.content)
      } finally {
        await engine.close()
      }

      const verified = await runCli(['verify'], { home })
      expect({ code: verified.code, stderr: verified.stderr }).toEqual({ code: 0, stderr: '' })
      expect(verified.stdout).toContain('ok: the live state equals the state rebuilt from the log')

      for (const [docId, content] of contents) {
        const replayed = await runCli(['replay', '--doc', docId], { home })
        expect({ docId, code: replayed.code, stderr: replayed.stderr }).toEqual({ docId, code: 0, stderr: '' })
        expect(replayed.stdout).toBe(content)
      }

      console.info(
        `crash test: ${CYCLES + EARLY_KILLS} kills (${earlyKillsBeforeReady} before the store was open), ${appends.length} acknowledged appends, ${docAcks.length} acknowledged document ` +
          `operations on ${docIds.length} documents, ${cyclesWithUnackedDurable} kills left durable but unacknowledged appends`,
      )
    },
    120_000,
  )
})
