/**
 * `addresses` (TOOLS.md §7.5): COM.ADDR.4–6 and .7 against `services.comments.validateAddresses(docId, ids)`, the
 * check document.write, document.transform, workflow.apply_patch and selection.set run before anything is recorded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openQuire, type Quire } from '../../adapters/host/quire.js'
import { USER } from '../../core/events/actor.js'
import { isQuireError } from '../../core/errors.js'
import { tempDir } from '../support/mcpHarness.js'
import { removeAll } from '../support/conformance.js'
import { withTestStore } from '../support/testStore.js'

describe('COM.ADDR validateAddresses', () => {
  let home: string
  let quire: Quire
  let docId: string
  let otherDoc: string
  const ids: Record<'open' | 'addressed' | 'reopened' | 'resolved' | 'deleted' | 'other', string> = {} as never

  const refusal = (doc: string, list: readonly string[]): string | undefined => {
    try {
      quire.services.comments.validateAddresses(doc, list)
      return undefined
    } catch (error) {
      expect(isQuireError(error, 'INVALID_ADDRESSES'), String(error)).toBe(true)
      return (error as Error).message
    }
  }

  beforeAll(async () => {
    home = await tempDir('quire-com-addr-')
    quire = await openQuire(home, withTestStore(home, { watchDisk: false }))
    const { comments, engine } = quire.services
    const create = async (content: string) =>
      (await engine.commands.documents.create({ kind: 'markdown', content, path: null, title: 'T', origin: 'untitled', actor: USER })).docId
    docId = await create('The reviewed document, with several passages.\n')
    otherDoc = await create('Another document.\n')
    const open = async (doc: string, from: number) => (await comments.create(doc, { from, to: from + 3 }, 'note', USER)).comment
    ids.open = await open(docId, 0)
    ids.addressed = await open(docId, 4)
    const gen = (await comments.list(docId)).threads[1]!.commentGen
    await comments.markAddressed(docId, ids.addressed, gen, { kind: 'mcp', principal: 'claude', connection: 'c-1' })
    ids.reopened = await open(docId, 8)
    await comments.resolve(docId, ids.reopened, USER)
    await comments.reopen(docId, ids.reopened, USER)
    ids.resolved = await open(docId, 12)
    await comments.resolve(docId, ids.resolved, USER)
    ids.deleted = await open(docId, 16)
    await comments.delete(docId, ids.deleted, USER)
    ids.other = await open(otherDoc, 0)
  })
  afterAll(async () => {
    await quire?.close()
    await removeAll(home)
  })

  it('accepts up to 64 distinct ids of live, unresolved threads of the document (open, addressed, reopened), and none', () => {
    expect(refusal(docId, [])).toBeUndefined()
    expect(refusal(docId, [ids.open, ids.addressed, ids.reopened])).toBeUndefined()
  })

  it('COM.ADDR.4 more than 64 ids are INVALID_ADDRESSES', () => {
    expect(refusal(docId, Array.from({ length: 65 }, (_, index) => `c-${index.toString(16).padStart(10, '0')}`))).toMatch(/64/)
  })

  it('COM.ADDR.5 duplicate ids are INVALID_ADDRESSES', () => {
    expect(refusal(docId, [ids.open, ids.addressed, ids.open])).toMatch(/twice/)
  })

  it('COM.ADDR.6 unknown, deleted, resolved and other-document ids are INVALID_ADDRESSES', () => {
    expect(refusal(docId, ['c-0000000000'])).toMatch(/no comment/)
    expect(refusal(docId, ['not even an id'])).toBeDefined()
    expect(refusal(docId, [ids.open, ids.deleted])).toMatch(/deleted/)
    expect(refusal(docId, [ids.resolved])).toMatch(/resolved/)
    expect(refusal(docId, [ids.other])).toMatch(/another document/)
    expect(refusal(otherDoc, [ids.open])).toMatch(/another document/)
  })

  it('COM.ADDR.7 validating never changes a thread', async () => {
    const before = await quire.services.comments.list(docId)
    const head = quire.services.engine.store.headPosition
    refusal(docId, [ids.open, ids.addressed])
    refusal(docId, [ids.resolved])
    expect(await quire.services.comments.list(docId)).toEqual(before)
    expect(quire.services.engine.store.headPosition).toBe(head)
  })
})
