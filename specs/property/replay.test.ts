import type { EventStore } from '../../adapters/leveldb/eventStore.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import type { Engine } from '../../core/engine.js'
import { openEmbeddedEngine } from '../../adapters/leveldb/embeddedEngine.js'
import type { Actor } from '../../core/events/actor.js'
import { positionOfRevision } from '../../core/documents/revision.js'
import { DOCUMENTS_PROJECTION } from '../../core/documents/documentRepository.js'
import { createDoc } from '../support/engines.js'
import { useTempHomes } from '../support/tempHome.js'
import { fuzzParameters } from '../support/fuzz.js'

const newHome = useTempHomes()

/**
 * Random sequences of appends, AI writes and peer updates (real Yjs replicas that lag, edit concurrently, and send
 * updates that change nothing), with restarts in between. Checked after every step and at the end:
 * (a) replay from an empty state equals the live state, byte for byte and revision for revision;
 * (b) snapshots never change a result (states restored from snapshots equal states rebuilt without them);
 * (c) a revision changes if and only if content changes.
 */
const DOCS = 2
const PEERS = 2

const text = fc.string({ unit: fc.constantFrom('a', 'b', ' ', '\n', '\r\n', 'é', '😀', '中'), maxLength: 24 })

type Step =
  | { kind: 'write'; doc: number; text: string }
  | { kind: 'peerEdit'; doc: number; peer: number; at: number; remove: number; insert: string }
  | { kind: 'peerNoop'; doc: number; peer: number; variant: 'replaceSame' | 'insertDelete' | 'format' | 'duplicate'; at: number }
  | { kind: 'peerSync'; doc: number; peer: number }
  | { kind: 'append'; stream: number; count: number }
  | { kind: 'reopen'; dropSnapshots: boolean }

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('write' as const), doc: fc.nat(DOCS - 1), text }),
  fc.record({
    kind: fc.constant('peerEdit' as const), doc: fc.nat(DOCS - 1), peer: fc.nat(PEERS - 1),
    at: fc.nat(), remove: fc.nat(3), insert: fc.string({ unit: fc.constantFrom('x', 'y', '😀', '\n'), maxLength: 4 }),
  }),
  fc.record({
    kind: fc.constant('peerNoop' as const), doc: fc.nat(DOCS - 1), peer: fc.nat(PEERS - 1),
    variant: fc.constantFrom('replaceSame' as const, 'insertDelete' as const, 'format' as const, 'duplicate' as const), at: fc.nat(),
  }),
  fc.record({ kind: fc.constant('peerSync' as const), doc: fc.nat(DOCS - 1), peer: fc.nat(PEERS - 1) }),
  fc.record({ kind: fc.constant('append' as const), stream: fc.nat(2), count: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant('reopen' as const), dropSnapshots: fc.boolean() }),
)

class Peer {
  readonly doc = new Y.Doc()
  readonly text = this.doc.getText('source')
  last: Uint8Array | undefined
  constructor(clientID: number) {
    this.doc.clientID = clientID
  }
  edit(change: () => void): Uint8Array | undefined {
    let update: Uint8Array | undefined
    const capture = (produced: Uint8Array) => (update = produced)
    this.doc.on('update', capture)
    this.doc.transact(change)
    this.doc.off('update', capture)
    if (update) this.last = update
    return update
  }
}

interface Observation {
  readonly revision: string
  readonly content: string
}

async function run(steps: Step[], snapshotEvery: number): Promise<void> {
  const home = await newHome()
  let engine: Engine = await openEmbeddedEngine(home, { documents: { snapshotEvery } })
  try {
    const docIds: string[] = []
    for (let i = 0; i < DOCS; i++) docIds.push(await createDoc(engine, i === 0 ? 'seed 😀\n' : ''))
    const peers = docIds.map((_, d) => Array.from({ length: PEERS }, (_, p) => new Peer(1 + d * PEERS + p)))
    const history = docIds.map(() => new Map<string, string>())
    const observe = async (d: number): Promise<Observation> => {
      const state = (await engine.documents.get(docIds[d]!))!
      const observation = { revision: state.revision, content: state.text.toString() }
      // The cached content must never lag the Y.Doc: it is only refreshed when the revision moves.
      expect(state.content).toBe(observation.content)
      const known = history[d]!.get(observation.revision)
      if (known !== undefined) expect(observation.content).toBe(known)
      history[d]!.set(observation.revision, observation.content)
      return observation
    }
    const sendPeer = async (d: number, update: Uint8Array | undefined, peer: number) => {
      if (!update) return
      const actor: Actor = { kind: 'peer', peer: `p${peer}` }
      await (await engine.commands.documents.applyPeerUpdates(docIds[d]!, [update], actor)).durable
    }

    for (const current of steps) {
      const before = await Promise.all(docIds.map((_, d) => observe(d)))
      switch (current.kind) {
        case 'write': {
          await engine.commands.documents.write({ docId: docIds[current.doc]!, content: current.text, actor: { kind: 'mcp', principal: 'prop', connection: 'c1' } })
          expect((await observe(current.doc)).content).toBe(current.text.replace(/\r\n?/g, '\n'))
          break
        }
        case 'peerEdit': {
          const peer = peers[current.doc]![current.peer]!
          const length = peer.text.length
          const at = length === 0 ? 0 : current.at % (length + 1)
          const remove = Math.min(current.remove, length - at)
          const update = peer.edit(() => {
            // Keep surrogate pairs whole, as an editor would.
            const slice = peer.text.toString()
            const start = isLow(slice.charCodeAt(at)) ? at - 1 : at
            let end = start + remove
            if (isLow(slice.charCodeAt(end))) end++
            if (end > start) peer.text.delete(start, end - start)
            if (current.insert) peer.text.insert(start, current.insert)
          })
          await sendPeer(current.doc, update, current.peer)
          break
        }
        case 'peerNoop': {
          const peer = peers[current.doc]![current.peer]!
          const length = peer.text.length
          let update: Uint8Array | undefined
          if (current.variant === 'duplicate') update = peer.last
          else if (current.variant === 'insertDelete') {
            update = peer.edit(() => {
              const at = length === 0 ? 0 : current.at % length
              const start = isLow(peer.text.toString().charCodeAt(at)) ? at - 1 : at
              peer.text.insert(start, 'zz')
              peer.text.delete(start, 2)
            })
          } else if (length > 0) {
            const slice = peer.text.toString()
            let at = current.at % length
            if (isLow(slice.charCodeAt(at))) at--
            const width = isHigh(slice.charCodeAt(at)) ? 2 : 1
            update = peer.edit(() => {
              if (current.variant === 'format') peer.text.format(at, width, { bold: true })
              else {
                peer.text.delete(at, width)
                peer.text.insert(at, slice.slice(at, at + width))
              }
            })
          }
          // Whatever the server held before, a peer update that keeps the characters must keep the revision;
          // so the check is done against the server's own content below (c).
          await sendPeer(current.doc, update, current.peer)
          break
        }
        case 'peerSync': {
          const peer = peers[current.doc]![current.peer]!
          const server = (await engine.documents.get(docIds[current.doc]!))!
          Y.applyUpdate(peer.doc, Y.encodeStateAsUpdate(server.ydoc, Y.encodeStateVector(peer.doc)))
          break
        }
        case 'append': {
          await (engine.store as EventStore).appendToStream(
            `misc:${current.stream}`,
            Array.from({ length: current.count }, (_, i) => ({
              type: 'journal.recorded', actor: { kind: 'system' } as const, data: { operation: 'write' as const, text: `n${i}`, length: `n${i}`.length, baseRevision: 'rev-1' },
            })),
          )
          break
        }
        case 'reopen': {
          const held = await Promise.all(docIds.map((_, d) => observe(d)))
          await engine.close()
          engine = await openEmbeddedEngine(home, { documents: { snapshotEvery } })
          if (current.dropSnapshots) await engine.store.clearSnapshots(DOCUMENTS_PROJECTION)
          // (b) whether restored from a snapshot or rebuilt without one, nothing changed.
          expect(await Promise.all(docIds.map((_, d) => observe(d)))).toEqual(held)
          break
        }
      }
      const after = await Promise.all(docIds.map((_, d) => observe(d)))
      // (c) revision changes iff content changes, for every document, on every step.
      after.forEach((observation, d) => {
        expect(observation.revision !== before[d]!.revision).toBe(observation.content !== before[d]!.content)
      })
      // (a)+(b) the live state (snapshots, restarts, in-memory folding) equals a replay from nothing.
      for (let d = 0; d < DOCS; d++) {
        const rebuilt = (await engine.documents.rebuild(docIds[d]!))!
        expect({ revision: rebuilt.revision, content: rebuilt.content }).toEqual(after[d])
        rebuilt.destroy()
      }
    }
    // (a) revision for revision: every revision ever observed replays to exactly the content observed with it.
    for (let d = 0; d < DOCS; d++) {
      for (const [revision, content] of history[d]!) {
        const replayed = (await engine.documents.rebuild(docIds[d]!, positionOfRevision(revision)))!
        expect(replayed.content).toBe(content)
        expect(replayed.revision).toBe(revision)
        replayed.destroy()
      }
    }
  } finally {
    await engine.close()
  }
}

const isHigh = (code: number) => code >= 0xd800 && code <= 0xdbff
const isLow = (code: number) => code >= 0xdc00 && code <= 0xdfff

describe('replay equals live (property)', () => {
  it('holds for random appends, writes, peer updates and restarts, with and without frequent snapshots', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 40 }), fc.constantFrom(1, 2, 1_000_000), run),
      fuzzParameters({ numRuns: 120 }),
    )
  })
})
