import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Actor } from '../../core/events/actor.js'
import type { RecordedEvent } from '../../core/log/eventLog.js'
import { FoldBatch } from '../../projections/readModel/foldBatch.js'
import { MemoryReadModelStore } from '../../projections/readModel/memoryStore.js'
import { CHECKPOINT_KEY } from '../../projections/readModel/runner.js'
import { encodeJson } from '../../projections/readModel/store.js'
import { foldLog } from '../../projections/readModel/verifyModel.js'
import { READ_MODELS } from '../../projections/readModels.js'
import { fuzzParameters } from '../support/fuzz.js'

/**
 * Issue 29 item 1: a read model folded incrementally (the log's events in random batches, the process restarting
 * between some of them with nothing in memory but its store) holds exactly what a rebuild from the whole log holds.
 */

const DOCS = ['d1', 'd2', 'd3']
const PATHS = ['/w/a.md', '/w/b.md', '/w/c.md']
const AGENTS = ['claude', 'codex']

type Step =
  | { kind: 'create'; doc: number; path: number }
  | { kind: 'keystroke'; doc: number; gapMs: number }
  | { kind: 'journal'; doc: number; agent: number }
  | { kind: 'apply'; doc: number }
  | { kind: 'disk'; doc: number }
  | { kind: 'save'; doc: number; path: number; agent: number | null }
  | { kind: 'move'; doc: number; path: number }
  | { kind: 'tab'; doc: number; path: number }
  | { kind: 'review'; doc: number }
  | { kind: 'refused' }
  | { kind: 'setting' }

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('create' as const), doc: fc.nat(2), path: fc.nat(2) }),
  fc.record({ kind: fc.constant('keystroke' as const), doc: fc.nat(2), gapMs: fc.constantFrom(1_000, 60_000, 600_000) }),
  fc.record({ kind: fc.constant('journal' as const), doc: fc.nat(2), agent: fc.nat(1) }),
  fc.record({ kind: fc.constant('apply' as const), doc: fc.nat(2) }),
  fc.record({ kind: fc.constant('disk' as const), doc: fc.nat(2) }),
  fc.record({ kind: fc.constant('save' as const), doc: fc.nat(2), path: fc.nat(2), agent: fc.option(fc.nat(1)) }),
  fc.record({ kind: fc.constant('move' as const), doc: fc.nat(2), path: fc.nat(2) }),
  fc.record({ kind: fc.constant('tab' as const), doc: fc.nat(2), path: fc.nat(2) }),
  fc.record({ kind: fc.constant('review' as const), doc: fc.nat(2) }),
  fc.constant({ kind: 'refused' as const }),
  fc.constant({ kind: 'setting' as const }),
)

/** The steps as log events, shaped as the real ones are (the models read only what these carry). */
function eventsOf(steps: readonly Step[]): RecordedEvent[] {
  const events: RecordedEvent[] = []
  const versions = new Map<string, number>()
  const lastJournal = new Map<string, number>()
  let at = Date.UTC(2026, 11, 1)
  const push = (stream: string, type: string, actor: Actor, data: unknown, gapMs = 1_000) => {
    at += gapMs
    const streamVersion = (versions.get(stream) ?? 0) + 1
    versions.set(stream, streamVersion)
    events.push({ position: events.length + 1, stream, streamVersion, type, v: 1, at, actor, data })
    return events.length
  }
  const update = new Uint8Array([1, 2, 3])
  const mcp = (agent: number): Actor => ({ kind: 'mcp', principal: AGENTS[agent]!, connection: 'c-1' })
  for (const s of steps) {
    const docId = 'doc' in s ? DOCS[s.doc]! : ''
    const stream = `doc:${docId}`
    switch (s.kind) {
      case 'create':
        push(stream, 'document.created', { kind: 'user' }, { docId, kind: 'markdown', path: PATHS[s.path]!, title: 'a', origin: 'file', update })
        break
      case 'keystroke':
        push(stream, 'document.changed', { kind: 'peer', peer: 'editor-1' }, { update }, s.gapMs)
        break
      case 'journal':
        lastJournal.set(docId, push(stream, 'journal.recorded', mcp(s.agent), { operation: 'write', text: 'x', length: 1, baseRevision: 'rev-1' }))
        break
      case 'apply': {
        const journal = lastJournal.get(docId)
        push(stream, 'document.changed', { kind: 'mcp', principal: 'claude', connection: 'c-1' }, journal === undefined ? { update } : { update, journal })
        break
      }
      case 'disk':
        push(stream, 'document.changed', { kind: 'disk' }, { update })
        break
      case 'save':
        push(stream, 'document.saved', s.agent === null ? { kind: 'user' } : mcp(s.agent), { path: PATHS[s.path]!, sha256: '0'.repeat(64), length: 3, reason: 'save', revision: null })
        break
      case 'move':
        push('workspace', 'document.retargeted', { kind: 'system' }, { docId, path: PATHS[s.path]! })
        break
      case 'tab':
        push('workspace', 'tab.opened', { kind: 'user' }, { tabId: 't1', docId, windowLabel: 'main', instanceId: null, path: PATHS[s.path]!, active: true })
        break
      case 'review':
        push(stream, 'review.marked', { kind: 'user' }, { upToPosition: events.length })
        break
      case 'refused':
        push('coherence', 'coherence.refused', mcp(0), { message: 'no' })
        break
      case 'setting':
        push('settings', 'setting.changed', { kind: 'user' }, { key: 'k', value: true })
        break
    }
  }
  return events
}

const log = (events: readonly RecordedEvent[]) => ({
  async *readAll(after = 0, options: { readonly to?: number } = {}) {
    for (const event of events) if (event.position > after && event.position <= (options.to ?? Infinity)) yield event
  },
})

async function contents(store: MemoryReadModelStore): Promise<Array<[string, string]>> {
  const all: Array<[string, string]> = []
  for await (const [key, value] of store.entries({})) all.push([key, Buffer.from(value).toString()])
  return all
}

describe('read models: incremental equals rebuilt (issue 29 item 1)', () => {
  for (const model of READ_MODELS) {
    it(`${model.name}: any batch split, with restarts between batches, stores what one rebuild stores`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(step, { maxLength: 80 }), fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 20 }), fc.array(fc.boolean(), { maxLength: 20 }), async (steps, sizes, restarts) => {
          const events = eventsOf(steps)
          const rebuilt = new MemoryReadModelStore()
          await foldLog(model, log(events), rebuilt, events.length)
          const incremental = new MemoryReadModelStore()
          await incremental.write(new Map([['~format', encodeJson(model.format)]]))
          let batch = new FoldBatch(incremental)
          let at = 0
          for (let index = 0; at < events.length; index++) {
            const size = sizes[index % sizes.length]!
            for (const event of events.slice(at, at + size)) await model.fold(event, batch)
            at = Math.min(events.length, at + size)
            await batch.commit(new Map([[CHECKPOINT_KEY, encodeJson(at)]]))
            // A restart: the next batch starts with nothing cached, from the store alone.
            if (restarts[index % Math.max(1, restarts.length)]) batch = new FoldBatch(incremental)
          }
          if (events.length === 0) await incremental.write(new Map([[CHECKPOINT_KEY, encodeJson(0)]]))
          expect(await contents(incremental)).toEqual(await contents(rebuilt))
        }),
        fuzzParameters(),
      )
    })
  }

  it('audit: a journaled write is applied when its change follows, not applied when the document changed first or another write came', async () => {
    const events = eventsOf([
      { kind: 'create', doc: 0, path: 0 },
      { kind: 'journal', doc: 0, agent: 0 },
      { kind: 'apply', doc: 0 },
      { kind: 'journal', doc: 0, agent: 0 },
      { kind: 'keystroke', doc: 0, gapMs: 1_000 },
      { kind: 'journal', doc: 0, agent: 1 },
      { kind: 'journal', doc: 0, agent: 1 },
      { kind: 'apply', doc: 0 },
      { kind: 'refused' },
    ])
    const store = new MemoryReadModelStore()
    await foldLog(READ_MODELS[0]!, log(events), store, events.length)
    const outcomes: Record<number, string | undefined> = {}
    for await (const [key, value] of store.entries({ gte: 'e|', lt: 'e|\uffff' })) {
      const entry = JSON.parse(Buffer.from(value).toString()) as { position: number; outcome?: string }
      outcomes[entry.position] = entry.outcome
    }
    expect(outcomes).toEqual({ 1: undefined, 2: 'applied', 3: undefined, 4: 'not-applied', 5: undefined, 6: 'not-applied', 7: 'applied', 8: undefined, 9: 'not-applied' })
  })
})
