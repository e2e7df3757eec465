import { Hono, type Context } from 'hono'
import { streamSSE } from 'hono/streaming'
import { z } from 'zod'
import { BrowserError } from '../browser/errors.js'
import type { PersonInput, ScreencastFrame } from '../browser/personSide.js'
import type { Services } from '../host/services.js'
import type { ConsoleError } from './consoleApi.js'
import type { BrowserFramesClosed, BrowserInputSent, BrowserLocated, BrowserTabClosed, BrowserTabOpened, BrowserTabs } from './consoleBrowserApi.js'
import { consoleBrowserRunRoutes } from './consoleBrowserRuns.js'
import { consoleBrowserRecordingRoutes } from './consoleBrowserRecordings.js'
import { consoleBrowserSavedRoutes } from './consoleBrowserSaved.js'

/**
 * The Browser view's routes (contract in consoleBrowserApi.ts): the person lists every tab, opens, navigates and
 * closes their own, watches any tab live and takes it over. Mounted under `/console/api` after the console's token
 * check; the engine is the daemon's one (`services.browser`), the same the MCP browser tools drive.
 */
export function consoleBrowserRoutes(services: Services): Hono {
  const app = new Hono()
  const browser = services.browser
  app.onError((error, c) => {
    if (error instanceof BrowserError) return fail(c, error.code, error.message.replace(/^[A-Z_]+: /, ''), statusOf(error.code))
    throw error
  })

  app.route('/', consoleBrowserRunRoutes(services)) // the workflow runs on assistants' tabs: steps as they go, Cancel
  app.route('/', consoleBrowserSavedRoutes(services)) // saved sessions and named profiles: names and origins, delete
  app.route('/', consoleBrowserRecordingRoutes(services)) // workflow_record: what is being captured, live; the person's Stop
  app.get('/browser/tabs', async (c) => {
    const { embeddedBrowser, browserPosture } = services.settings.state
    const body: BrowserTabs = { tabs: await browser.listTabs(), enabled: embeddedBrowser, posture: browserPosture }
    return c.json(body, 200, NO_STORE)
  })
  app.post('/browser/tabs', async (c) => {
    const body = URL_BODY.safeParse(await c.req.json().catch(() => null))
    if (!body.success) return fail(c, 'INVALID_ARGUMENT', 'expected {"url": "https://…"}', 400)
    if (!services.settings.state.embeddedBrowser) return disabled(c)
    return c.json<BrowserTabOpened>({ tab: await browser.openHumanTab(body.data.url) })
  })
  app.post('/browser/tabs/:tabId/navigate', async (c) => {
    const body = URL_BODY.safeParse(await c.req.json().catch(() => null))
    if (!body.success) return fail(c, 'INVALID_ARGUMENT', 'expected {"url": "https://…"}', 400)
    if (!services.settings.state.embeddedBrowser) return disabled(c)
    return c.json<BrowserTabOpened>({ tab: await browser.navigateHumanTab(c.req.param('tabId'), body.data.url) })
  })
  app.post('/browser/tabs/:tabId/close', async (c) => c.json<BrowserTabClosed>(await browser.closeHumanTab(c.req.param('tabId'))))
  app.post('/browser/tabs/:tabId/input', async (c) => {
    const body = z.object({ input: INPUT }).strict().safeParse(await c.req.json().catch(() => null))
    if (!body.success) return fail(c, 'INVALID_ARGUMENT', `expected {"input": {kind: mouse | wheel | key | text, …}}: ${body.error.issues[0]?.message ?? ''}`, 400)
    await browser.dispatchInput(c.req.param('tabId'), body.data.input as PersonInput)
    return c.json<BrowserInputSent>({ sent: true })
  })
  app.get('/browser/tabs/:tabId/locate', async (c) => {
    const query = z.object({ role: z.string().min(1).max(64), name: z.string().max(1_000) }).strict().safeParse(c.req.query())
    if (!query.success) return fail(c, 'INVALID_ARGUMENT', 'expected ?role=ROLE&name=NAME', 400)
    const body: BrowserLocated = await browser.locateForPerson(c.req.param('tabId'), query.data.role, query.data.name)
    return c.json(body, 200, NO_STORE)
  })

  app.get('/browser/tabs/:tabId/frames', async (c) => {
    const tabId = c.req.param('tabId')
    // Refused before the stream starts, so a missing tab is a plain 404, not an empty stream.
    if (!(await browser.listTabs()).some((tab) => tab.tabId === tabId)) return fail(c, 'TAB_NOT_FOUND', `no tab ${tabId}`, 404)
    return streamSSE(c, async (stream) => {
      // Only the newest frame waits while one is being written: a slow page of the console skips frames, never lags.
      let waiting: ScreencastFrame | undefined
      let writing = false
      const write = async (): Promise<void> => {
        writing = true
        while (waiting && !stream.aborted) {
          const frame = waiting
          waiting = undefined
          await stream.writeSSE({ event: 'frame', data: JSON.stringify(frame) }).catch(() => undefined)
        }
        writing = false
      }
      let end!: (reason: string) => void
      const ended = new Promise<string>((resolve) => (end = resolve))
      stream.onAbort(() => end('aborted'))
      const unsubscribe = browser.onEvent((event) => {
        if (event.type === 'tab-closed' && event.tabId === tabId) end(event.reason)
      })
      let stop: (() => Promise<void>) | undefined
      try {
        stop = await browser.screencast(tabId, (frame) => {
          waiting = frame
          if (!writing) void write()
        })
        const reason = await ended
        if (!stream.aborted) await stream.writeSSE({ event: 'closed', data: JSON.stringify({ reason } satisfies BrowserFramesClosed) })
      } catch (error) {
        const reason = error instanceof BrowserError ? error.code : 'failed'
        if (!stream.aborted) await stream.writeSSE({ event: 'closed', data: JSON.stringify({ reason } satisfies BrowserFramesClosed) }).catch(() => undefined)
      } finally {
        unsubscribe()
        await stop?.()
      }
    })
  })
  return app
}

const NO_STORE = { 'cache-control': 'no-store' }
const URL_BODY = z.object({ url: z.string().min(1).max(8_192) }).strict()
const COORDINATE = z.number().finite()
const MODIFIERS = z.number().int().min(0).max(15).optional()
const INPUT = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('mouse'), action: z.enum(['move', 'down', 'up']), x: COORDINATE, y: COORDINATE,
    button: z.enum(['left', 'middle', 'right']).optional(), clickCount: z.number().int().min(0).max(3).optional(), modifiers: MODIFIERS,
  }).strict(),
  z.object({ kind: z.literal('wheel'), x: COORDINATE, y: COORDINATE, deltaX: COORDINATE, deltaY: COORDINATE, modifiers: MODIFIERS }).strict(),
  z.object({ kind: z.literal('key'), action: z.enum(['down', 'up']), key: z.string().min(1).max(32), code: z.string().max(32), modifiers: MODIFIERS }).strict(),
  z.object({ kind: z.literal('text'), text: z.string().min(1).max(10_000) }).strict(),
])

function statusOf(code: string): 400 | 404 | 409 | 503 {
  if (code === 'TAB_NOT_FOUND' || code === 'TAB_CLOSED') return 404
  if (code === 'BROWSER_UNAVAILABLE') return 503
  if (code === 'NAVIGATION_FAILED' || code === 'TIMEOUT') return 409
  return 400
}

function fail(c: Context, error: string, message: string, status: 400 | 404 | 409 | 503) {
  return c.json<ConsoleError>({ error, message }, status)
}

function disabled(c: Context) {
  return fail(c, 'BROWSER_DISABLED', 'the Embedded browser setting is off (Settings); turn it on to open pages', 409)
}
