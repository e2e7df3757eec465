import { Hono } from 'hono'
import type { Run } from '../../core/browser/workflow/runs/state.js'
import { USER } from '../../core/events/actor.js'
import type { Services } from '../host/services.js'
import type { ConsoleError } from './consoleApi.js'
import type { BrowserRun, BrowserRunCancelled, BrowserRuns } from './consoleBrowserApi.js'

/** The console shows a tab's newest few runs; a long-lived daemon has had many. */
const RUNS_LISTED = 50
const NO_STORE = { 'cache-control': 'no-store' }

/**
 * The Browser view's workflow runs (contract in consoleBrowserApi.ts): every run's steps as they go, and the person's
 * Cancel. Mounted with the other Browser view routes, behind the console's token check: the person sees every
 * assistant's runs, as they see every assistant's tabs.
 *
 * Tab ids start again at tab-1 in each daemon, so runs of an earlier daemon (all ended as interrupted when the log
 * opened) would show on the new tab that reuses their id: they are left out, by the run ids known when these routes
 * are made, which is before any MCP connection can start one.
 */
export function consoleBrowserRunRoutes(services: Services): Hono {
  const app = new Hono()
  const runs = services.workflowRuns
  const earlier = new Set(runs.state.runs.keys())

  app.get('/browser/runs', (c) => {
    const listed = [...runs.state.runs.values()].filter((run) => !earlier.has(run.runId)).sort((a, b) => b.startedAt - a.startedAt)
    const body: BrowserRuns = { runs: listed.slice(0, RUNS_LISTED).map(consoleRun) }
    return c.json(body, 200, NO_STORE)
  })

  // Never gated (BR.WORKFLOW_CANCEL.2, APPR.7): the person stops any assistant's run, mid-approval included.
  app.post('/browser/runs/:runId/cancel', async (c) => {
    const run = runs.state.runs.get(c.req.param('runId'))
    if (run === undefined || earlier.has(run.runId)) return c.json<ConsoleError>({ error: 'RUN_NOT_FOUND', message: `no run ${c.req.param('runId')}` }, 404)
    const { outcome, run: after } = await services.workflowRunner.cancel(run.runId, run.principal, USER, 'cancelled by the person in the console')
    return c.json<BrowserRunCancelled>({ runId: after.runId, status: after.status, outcome })
  })
  return app
}

function consoleRun(run: Run): BrowserRun {
  const results = new Map(run.stepResults.map((result) => [result.index, result]))
  return {
    runId: run.runId,
    tabId: run.tabId,
    principal: run.principal,
    connection: run.connection,
    site: run.site,
    inputNames: run.inputNames,
    status: run.status,
    ...(run.reasonCode !== undefined ? { reasonCode: run.reasonCode } : {}),
    ...(run.reason !== undefined ? { reason: run.reason } : {}),
    ...(run.pendingApproval !== undefined ? { pendingApproval: run.pendingApproval } : {}),
    ...(run.pausedAt !== undefined ? { pausedAt: run.pausedAt } : {}),
    ...(run.resumedFrom !== undefined ? { resumedFrom: run.resumedFrom } : {}),
    // A step's data (an extract's page text) stays with workflow_status: the console shows how far the run got.
    steps: run.steps.map((step) => {
      const result = results.get(step.index)
      return {
        index: step.index,
        kind: step.kind,
        write: step.write,
        status: result?.status ?? 'pending',
        attempts: result?.attempts ?? 0,
        ...(result?.reasonCode !== undefined ? { reasonCode: result.reasonCode } : {}),
        ...(result?.reason !== undefined ? { reason: result.reason } : {}),
      }
    }),
    startedAt: run.startedAt,
    ...(run.endedAt !== undefined ? { endedAt: run.endedAt } : {}),
  }
}
