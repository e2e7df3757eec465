import type { EventStore } from '../../adapters/leveldb/eventStore.js'
import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { openEmbeddedEngine } from '../../adapters/leveldb/embeddedEngine.js'
import { useTempHomes } from '../support/tempHome.js'

const newHome = useTempHomes()

describe('flush under sustained appends', () => {
  // Regression: flush() used to wait until the group committer's queue was empty, which never happens under
  // sustained load, so flush(), checkIntegrity() and snapshots waited until the load stopped.
  it('resolves once the appends made before it are durable, even while other appends keep arriving', async () => {
    const engine = await openEmbeddedEngine(await newHome())
    let stop = false
    const loops = Array.from({ length: 8 }, async (_, index) => {
      while (!stop) {
        await (engine.store as EventStore).appendToStream(`load-${index}`, [
          { type: 'document.changed', data: { update: new Uint8Array([0, 0]) }, actor: { kind: 'user' } },
        ])
      }
    })
    try {
      while (engine.store.headPosition < 200) await sleep(5)
      const before = engine.store.headPosition
      const flushed = engine.store.flush().then(() => 'flushed' as const)
      const outcome = await Promise.race([flushed, sleep(3_000, 'still waiting' as const)])
      expect(outcome).toBe('flushed')
      // Everything appended before the call is on disk once it resolves.
      expect(engine.store.durableHeadPosition).toBeGreaterThanOrEqual(before)
    } finally {
      stop = true
      await Promise.all(loops)
      await engine.close()
    }
  })
})
