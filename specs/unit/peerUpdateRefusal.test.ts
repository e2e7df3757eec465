import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import type { Engine } from '../../core/engine.js'
import { openEmbeddedEngine } from '../../adapters/leveldb/embeddedEngine.js'
import { USER, type Actor } from '../../core/events/actor.js'
import { isQuireError } from '../../core/errors.js'
import { fuzzParameters } from '../support/fuzz.js'
import { useTempHomes } from '../support/tempHome.js'

const newHome = useTempHomes()
const PEER: Actor = { kind: 'peer', peer: 'p' }

/** A peer's Y.Doc holding what the document holds, and the updates its edits produce. */
async function peerOf(engine: Engine, docId: string): Promise<{ readonly doc: Y.Doc; readonly edit: (change: (text: Y.Text) => void) => Uint8Array }> {
  const doc = new Y.Doc()
  Y.applyUpdate(doc, Y.encodeStateAsUpdate((await engine.documents.get(docId))!.ydoc))
  const edit = (change: (text: Y.Text) => void): Uint8Array => {
    let produced: Uint8Array | undefined
    const capture = (update: Uint8Array) => (produced = update)
    doc.on('update', capture)
    doc.transact(() => change(doc.getText('source')))
    doc.off('update', capture)
    return produced!
  }
  return { doc, edit }
}

describe('a peer update that is not a Yjs update', () => {
  it('is refused whole with INVALID_UPDATE even when its structs decode and only its delete set is cut short, the updates before it in the batch included', async () => {
    const home = await newHome()
    const engine = await openEmbeddedEngine(home)
    const { docId } = await engine.commands.documents.create({ kind: 'markdown', content: 'ok', path: null, title: 't', origin: 'untitled', actor: USER })
    const peer = await peerOf(engine, docId)
    const keystroke = peer.edit((text) => text.insert(2, '!'))
    // An insertion and a deletion in one transaction: its structs come first, its delete set last.
    const both = peer.edit((text) => {
      text.insert(0, 'so ')
      text.delete(3, 1)
    })
    const cutInItsDeleteSet = both.slice(0, both.length - 1)
    const head = engine.store.headPosition

    await expect(engine.commands.documents.applyPeerUpdates(docId, [keystroke, cutInItsDeleteSet], PEER)).rejects.toSatisfy(
      (error) => isQuireError(error, 'INVALID_UPDATE') && error.message.startsWith('not a Yjs update'),
    )
    expect(engine.store.headPosition).toBe(head)
    expect((await engine.documents.get(docId))!.content).toBe('ok')

    const outcome = await engine.commands.documents.applyPeerUpdates(docId, [keystroke, both], PEER)
    await outcome.durable
    expect(outcome.recorded).toBe(2)
    expect((await engine.documents.get(docId))!.content).toBe('so k!')
    await engine.close()
    const reopened = await openEmbeddedEngine(home)
    expect((await reopened.documents.get(docId))!.content).toBe('so k!')
    await reopened.close()
  })

  it('is refused whole with INVALID_UPDATE where Y.decodeUpdate fails even though Y.applyUpdate would take it', async () => {
    // A peer's 'oh ' insertion (clients 2 and 1) with its first struct's info byte damaged (68 -> 42): Y.applyUpdate
    // reads it without throwing, Y.decodeUpdate does not. Found when the regression below failed one run in ten
    // (its damaged bytes depend on Yjs's random client ids).
    const damaged = Uint8Array.from([1, 1, 2, 1, 42, 1, 0, 3, 111, 104, 32, 1, 1, 1, 1, 2])
    expect(() => Y.decodeUpdate(damaged)).toThrow()
    const probe = new Y.Doc()
    expect(() => Y.applyUpdate(probe, damaged)).not.toThrow()
    probe.destroy()
    const engine = await openEmbeddedEngine(await newHome())
    try {
      const { docId } = await engine.commands.documents.create({ kind: 'markdown', content: 'hello world', path: null, title: 't', origin: 'untitled', actor: USER })
      const head = engine.store.headPosition
      const outcome = await engine.commands.documents.applyPeerUpdates(docId, [damaged], PEER).catch((error: unknown) => error)
      expect(isQuireError(outcome, 'INVALID_UPDATE')).toBe(true)
      expect(engine.store.headPosition).toBe(head)
      expect((await engine.documents.get(docId))!.holdsPendingUpdates).toBe(false)
    } finally {
      await engine.close()
    }
  })

  it('either records a damaged update as Yjs applies it or refuses it having recorded nothing; the live text, the log folded afresh and a reopened engine agree', async () => {
    await damagedUpdatesInOneDocument(fuzzParameters({ numRuns: 150 }))
  })

  // Found by QUIRE_FUZZ=1 (seed -582792857, runs x5): the reopened engine read 'h,,orld' where the live document and
  // the log read 'oh h,,,orld'. A snapshot of a document holding pending structs lost text; such documents are no
  // longer snapshotted.
  it('regression, seed -582792857: a document holding pending structs reopens with the text its events fold to', async () => {
    await damagedUpdatesInOneDocument({ seed: -582792857, numRuns: 750 })
  })
})

/**
 * Damaged updates, one after another into one document: each is either recorded as Yjs applies it or refused with
 * nothing recorded; then the live text, the log's events folded afresh and a reopened engine all read the same.
 */
async function damagedUpdatesInOneDocument(parameters: fc.Parameters<[Uint8Array, [number, number, 'set' | 'cut' | 'insert'][]]>): Promise<void> {
  const home = await newHome()
  const engine = await openEmbeddedEngine(home)
  const { docId } = await engine.commands.documents.create({ kind: 'markdown', content: 'hello world', path: null, title: 't', origin: 'untitled', actor: USER })
  const peer = await peerOf(engine, docId)
  const updates = [
    peer.edit((text) => text.insert(5, ',')),
    peer.edit((text) => {
      text.insert(0, 'oh ')
      text.delete(4, 2)
    }),
    peer.edit((text) => text.format(0, 2, { bold: true })),
    peer.edit((text) => text.insert(3, 'é漢😀')),
  ]
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...updates),
      fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 }), fc.constantFrom('set', 'cut', 'insert')), { minLength: 1, maxLength: 3 }),
      async (original, damage) => {
        let bytes = original.slice()
        for (const [at, value, how] of damage) {
          const place = at % (bytes.length + 1)
          if (how === 'set' && place < bytes.length) bytes[place] = value
          else if (how === 'cut') bytes = bytes.slice(0, place)
          else bytes = Uint8Array.from([...bytes.slice(0, place), value, ...bytes.slice(place)])
        }
        const head = engine.store.headPosition
        const before = (await engine.documents.get(docId))!.content
        let decodes = true
        try {
          Y.decodeUpdate(bytes)
        } catch {
          decodes = false
        }
        const outcome = await engine.commands.documents.applyPeerUpdates(docId, [bytes], PEER).catch((error: unknown) => error)
        if (decodes) {
          expect(isQuireError(outcome, 'INVALID_UPDATE')).toBe(false)
          if (!(outcome instanceof Error)) await (outcome as { durable: Promise<void> }).durable
        } else {
          expect(isQuireError(outcome, 'INVALID_UPDATE')).toBe(true)
          expect(engine.store.headPosition).toBe(head)
          expect((await engine.documents.get(docId))!.content).toBe(before)
        }
      },
    ),
    parameters,
  )
  const live = (await engine.documents.get(docId))!.content
  const rebuilt = (await engine.documents.rebuild(docId))!
  expect(live).toBe(rebuilt.content)
  rebuilt.destroy()
  await engine.close()
  // A document holding pending structs (damaged updates naming structs nobody sent) is never snapshotted: Yjs's
  // merged state encoding of them did not always restore the same text (5 of 6 fresh-seed runs failed here before).
  const reopened = await openEmbeddedEngine(home)
  expect((await reopened.documents.get(docId))!.content).toBe(live)
  await reopened.close()
}
