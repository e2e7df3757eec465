/**
 * Waiting on the person (issue 27, item 3) in the approvals core: a wait is told at its interval while it lasts, ends
 * when the person decides, and a caller that gives up withdraws its request (an event in the approvals stream), which
 * the person can then no longer decide and which a new request replaces.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { USER } from '../../core/events/actor.js'
import { openQuire, type Quire } from '../../adapters/host/quire.js'
import { tempDir } from '../support/mcpHarness.js'
import { withTestStore } from '../support/testStore.js'

const AI = { kind: 'mcp', principal: 'claude', connection: 'c-1' } as const

describe('approval waits', () => {
  let quire: Quire
  beforeEach(async () => {
    const home = await tempDir('quire-approval-wait-')
    quire = await openQuire(home, withTestStore(home, {}))
  })
  afterEach(async () => {
    await quire.close()
  })

  it('ISSUE27.3 a wait is told when it begins and at each interval, and ends as soon as the person decides', async () => {
    const { approvals } = quire.services
    const gate = await approvals.gate('open_workspace', '/srv/a', 'c-1', 'claude', AI)
    const told: number[] = []
    const waited = approvals.settle(gate, { waitMs: 10_000, everyMs: 50, onWaiting: (approval, ms) => told.push(ms) }, AI)
    await new Promise((resolve) => setTimeout(resolve, 180))
    await approvals.decide(gate.approval.approvalId, 'approved', USER)
    const settled = await waited
    expect(settled.status).toBe('granted')
    expect(told.length).toBeGreaterThanOrEqual(3)
    expect(told[0]).toBeLessThan(50)
    expect(told).toEqual([...told].sort((a, b) => a - b))
  })

  it('ISSUE27.3 a caller that gives up withdraws its request: withdrawn in the log, not decidable, and the next ask is a new request', async () => {
    const { approvals } = quire.services
    const gate = await approvals.gate('save_as', '/srv/b.md', 'c-1', 'claude', AI)
    const controller = new AbortController()
    const waited = approvals.settle(gate, { waitMs: 10_000, signal: controller.signal }, AI)
    controller.abort()
    expect((await waited).status).toBe('withdrawn')
    expect(approvals.find(gate.approval.approvalId)!.status).toBe('withdrawn')
    const types: string[] = []
    for await (const event of quire.services.engine.store.readStream('approvals')) types.push(event.type)
    expect(types).toEqual(['approval.requested', 'approval.withdrawn'])
    await expect(approvals.decide(gate.approval.approvalId, 'approved', USER)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/withdrawn/) })
    const again = await approvals.gate('save_as', '/srv/b.md', 'c-1', 'claude', AI)
    expect(again.status).toBe('requested')
    expect(again.approval.approvalId).not.toBe(gate.approval.approvalId)
  })

  it('ISSUE27.3 only the connection that asked may withdraw, and a decided request stays decided', async () => {
    const { approvals } = quire.services
    const gate = await approvals.gate('open_workspace', '/srv/c', 'c-1', 'claude', AI)
    await expect(approvals.withdraw(gate.approval.approvalId, 'c-2', AI)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' })
    await approvals.decide(gate.approval.approvalId, 'denied', USER)
    expect((await approvals.withdraw(gate.approval.approvalId, 'c-1', AI))!.status).toBe('denied')
  })

  it('ISSUE27.3 a wait that runs out answers the request as it stands, still pending', async () => {
    const { approvals } = quire.services
    const gate = await approvals.gate('open_workspace', '/srv/d', 'c-1', 'claude', AI)
    const settled = await approvals.settle(gate, { waitMs: 60 }, AI)
    expect(settled.status).toBe('requested')
    expect(approvals.find(gate.approval.approvalId)!.status).toBe('pending')
  })
})
