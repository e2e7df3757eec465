import { Hono } from 'hono'
import { isQuireError } from '../../core/errors.js'
import type { Services } from '../host/services.js'
import type { ConsoleError } from './consoleApi.js'
import type { BrowserRecordings, BrowserRecordingStopped } from './consoleBrowserApi.js'

const NO_STORE = { 'cache-control': 'no-store' }

/**
 * The recordings under way in the Browser view (contract in consoleBrowserApi.ts): what `workflow_record` is
 * capturing of the person's actions on an assistant's tab, step by step as it goes, and the person's Stop. A
 * recording starts only on the assistant's request with the person's `record` approval (the MCP layer asks it); the
 * person's stop ends the capture at once, and the assistant's own stop still gets the workflow.
 */
export function consoleBrowserRecordingRoutes(services: Services): Hono {
  const app = new Hono()
  const recorder = services.workflowRecorder

  app.get('/browser/recordings', (c) => {
    const body: BrowserRecordings = {
      recordings: recorder.list().map(({ recordingId, tabId, principal, site, eventCount, steps }) => ({ recordingId, tabId, principal, site, eventCount, steps })),
    }
    return c.json(body, 200, NO_STORE)
  })
  app.post('/browser/tabs/:tabId/recording/stop', async (c) => {
    const tabId = c.req.param('tabId')
    try {
      await recorder.stopByPerson(tabId)
    } catch (error) {
      if (isQuireError(error, 'RECORDING_NOT_FOUND')) return c.json<ConsoleError>({ error: error.code, message: error.message }, 404)
      throw error
    }
    return c.json<BrowserRecordingStopped>({ tabId, stopped: true })
  })
  return app
}
