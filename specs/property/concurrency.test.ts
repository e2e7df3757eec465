import type { EventStore } from '../../adapters/leveldb/eventStore.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { openEmbeddedEngine } from '../../adapters/leveldb/embeddedEngine.js'
import { isQuireError } from '../../core/errors.js'
import { isExpectedVersionConflict } from '../../core/log/errors.js'
import { createDoc } from '../support/engines.js'
import { useTempHomes } from '../support/tempHome.js'
import { fuzzParameters } from '../support/fuzz.js'

const newHome = useTempHomes()

const event = (n: number) => ({
  type: 'journal.recorded',
  actor: { kind: 'mcp' as const, principal: `agent-${n}`, connection: `c${n}` },
  data: { operation: 'write' as const, text: `from ${n}`, length: `from ${n}`.length, baseRevision: 'rev-1' },
})

describe('(d) concurrent appenders with expected versions never both win', () => {
  it('exactly one of N racing appends with the same expected version succeeds, whether the head was cached or not', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 24 }),
        fc.nat(3),
        fc.boolean(),
        fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 24, maxLength: 24 }),
        async (appenders, existing, restart, sizes) => {
          const home = await newHome()
          let engine = await openEmbeddedEngine(home)
          try {
            const stream = 'race:s'
            for (let i = 0; i < existing; i++) await (engine.store as EventStore).appendToStream(stream, [event(-1)])
            if (restart) {
              // A cold head: every racer has to load it from disk first.
              await engine.close()
              engine = await openEmbeddedEngine(home)
            }
            const store = engine.store as EventStore
            const results = await Promise.allSettled(
              Array.from({ length: appenders }, (_, n) =>
                store.appendToStream(stream, Array.from({ length: sizes[n]! }, () => event(n)), { expectedStreamVersion: existing }),
              ),
            )
            const winners = results.filter((result) => result.status === 'fulfilled')
            expect(winners).toHaveLength(1)
            for (const result of results) {
              if (result.status === 'rejected') expect(isExpectedVersionConflict(result.reason)).toBe(true)
            }
            const winner = (winners[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof store.appendToStream>>>).value
            expect((await store.streamHead(stream)).version).toBe(existing + winner.events.length)
            let stored = 0
            for await (const recorded of store.readStream(stream)) {
              if (recorded.streamVersion > existing) {
                expect(recorded.actor).toEqual(winner.events[0]!.actor)
                stored++
              }
            }
            expect(stored).toBe(winner.events.length)
          } finally {
            await engine.close()
          }
        },
      ),
      fuzzParameters({ numRuns: 60 }),
    )
  })

  it('of racing document writes against one revision, exactly one applies and the rest are STALE', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.string({ maxLength: 12 }), { minLength: 2, maxLength: 8 }), async (texts) => {
        fc.pre(new Set(texts).size === texts.length && !texts.includes('base'))
        const engine = await openEmbeddedEngine(await newHome())
        try {
          const docId = await createDoc(engine, 'base')
          const { revision } = (await engine.documents.get(docId))!
          const results = await Promise.allSettled(
            texts.map((content) =>
              engine.commands.documents.write({ docId, content, expectedRevision: revision, actor: { kind: 'user' } }),
            ),
          )
          const applied = results.flatMap((result, index) => (result.status === 'fulfilled' ? [index] : []))
          expect(applied).toHaveLength(1)
          for (const result of results) {
            if (result.status === 'rejected') expect(isQuireError(result.reason, 'STALE')).toBe(true)
          }
          expect((await engine.documents.get(docId))!.content).toBe(texts[applied[0]!])
        } finally {
          await engine.close()
        }
      }),
      fuzzParameters({ numRuns: 40 }),
    )
  })
})
