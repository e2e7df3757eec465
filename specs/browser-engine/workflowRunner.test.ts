import { setTimeout as sleep } from 'node:timers/promises'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { WorkflowRunner } from '../../adapters/browser/workflowRunner.js'
import type { RunStatusView } from '../../core/browser/workflow/runs/commands.js'
import type { Engine } from '../../core/engine.js'
import { openEmbeddedEngine } from '../../adapters/leveldb/embeddedEngine.js'
import { USER, type Actor } from '../../core/events/actor.js'
import { useTempHomes } from '../support/tempHome.js'
import { useEngine } from './support/engineRig.js'

/**
 * The workflow runner's clock (BR.WORKFLOW_RUN.12), on a real engine and a real log: a run gets its budget of running
 * time, and time spent waiting on the person's decision is not part of it. The budgets are made small here; the
 * daemon's is 120 s.
 */
const rig = useEngine()
const newHome = useTempHomes()
const asker = { connection: 'c1', principal: null, actor: { kind: 'mcp', principal: 'c1', connection: 'c1' } as Actor }
let core: Engine

beforeEach(async () => {
  core = await openEmbeddedEngine(await newHome())
})
afterEach(async () => {
  await core.close()
})

const runnerWith = (budgetMs: number) =>
  new WorkflowRunner({ engine: rig.engine, access: core.commands.browserAccess, approvals: core.commands.approvals, runs: core.commands.workflowRuns, budgetMs })

async function until(runner: WorkflowRunner, runId: string, done: (status: RunStatusView) => boolean): Promise<RunStatusView> {
  for (let polls = 0; ; polls++) {
    const status = runner.status(runId, 'c1')
    if (done(status)) return status
    if (polls > 600) throw new Error(`the run never got there: ${JSON.stringify(status)}`)
    await sleep(50)
  }
}

describe('BR.WORKFLOW_RUN.12 a run\'s running time', () => {
  it('a run that uses up its running time fails at once, a step in flight included', async () => {
    const runner = runnerWith(1)
    const { tabId } = await rig.engine.open('c1', rig.site.url('/workflow.html'))
    // The page never finishes loading until released: the run is cut off while the step waits on it.
    const started = await runner.start({ principal: 'c1', asker, tabId, source: `---\nsite: fixture\n---\n1. action: navigate to ${rig.site.url('/hold/wf-budget')}\n2. extract: it\n` })
    const ended = await until(runner, started.runId, (status) => status.status !== 'running')
    expect(ended).toMatchObject({ status: 'failed', reasonCode: 'time-limit', completedSteps: 0 })
    // The navigation the run left behind finishes before the tab is closed.
    rig.site.release('wf-budget')
    await rig.engine.wait('c1', tabId)
    runner.stop()
    await rig.engine.close('c1', tabId)
  })

  it('time spent waiting on the person\'s approval is not running time', async () => {
    const runner = runnerWith(1_000)
    const { tabId } = await rig.engine.open('c1', rig.site.url('/workflow.html'))
    const started = await runner.start({ principal: 'c1', asker, tabId, source: '---\nsite: fixture\n---\n1. action: click "Publish" (button)\n' })
    const waiting = await until(runner, started.runId, (status) => status.pendingApproval !== undefined)
    // Longer than the whole budget passes while the person thinks.
    await sleep(1_500)
    expect(runner.status(started.runId, 'c1').status).toBe('running')
    await core.commands.approvals.decide(waiting.pendingApproval!.approvalId, 'approved', USER)
    expect(await until(runner, started.runId, (status) => status.status !== 'running')).toMatchObject({ status: 'completed', completedSteps: 1 })
    runner.stop()
    await rig.engine.close('c1', tabId)
  })
})
