import { appendFile, mkdtemp, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { composeEntry } from '../../core/coherence/compose.js'
import { newUuidV7 } from '../../core/coherence/uuid.js'
import { USER } from '../../core/events/actor.js'
import { closeNodes, useNodes } from './support.js'

/**
 * Delegations are the person's alone (issue 25 item 1), and on a log several nodes share the person's event is in
 * that one log: a grant made through one node (its own writer's segment) counts on every node, while a grant that
 * merely appears in that same segment counts on none.
 */
const cluster = useNodes()
afterEach(closeNodes)

describe('coherence delegations across nodes', () => {
  it('the person\'s grant through node A is honoured on node B; a line another program put in A\'s segment is not, on either', async () => {
    const root = await realpath(await mkdtemp(join(tmpdir(), 'quire-nodes-cohr-')))
    try {
      const [a, b] = await cluster(2)
      // B has read the workspace's stream before the grant: it must learn of it from the log, not from its first load.
      expect(await b!.services.coherence.grants(root)).toEqual([])
      const expires = new Date(Date.now() + 24 * 60 * 60 * 1000)
      const { delegation } = await a!.services.coherence.grant(root, { delegate: 'claude', scope: ['resolve.waive'], expires }, 'Ana', USER)
      const aWriter = await a!.services.coherence.writer()
      expect(aWriter).not.toBe(await b!.services.coherence.writer())
      const forged = composeEntry(
        'delegation',
        { delegation: newUuidV7(), actor: { type: 'human', id: 'Ana' }, delegate: { type: 'external', id: 'mallory' }, scope: ['resolve.waive'], expires: '2099-01-01T00:00:00.000Z', supersedes: null },
        { writer: aWriter },
      )
      await appendFile(join(root, '.vmark', 'ledger', `${aWriter}.jsonl`), `${JSON.stringify(forged)}\n`)
      for (const node of [a!, b!]) {
        expect((await node.services.coherence.grants(root)).map((grant) => [grant.delegation, grant.delegate, grant.standing])).toEqual([[delegation, 'claude', 'live']])
        expect((await node.services.coherence.unhonouredDelegations(root)).map((entry) => entry.id)).toEqual([forged.id])
      }
    } finally {
      await rm(root, { recursive: true, force: true })
    }
  })
})
