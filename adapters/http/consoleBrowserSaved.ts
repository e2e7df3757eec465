import { Hono, type Context } from 'hono'
import { BrowserError } from '../browser/errors.js'
import type { Services } from '../host/services.js'
import type { ConsoleError } from './consoleApi.js'
import type { BrowserSaved, BrowserSavedDeleted } from './consoleBrowserApi.js'

const NO_STORE = { 'cache-control': 'no-store' }

/**
 * The person's saved browser state in the Browser view (contract in consoleBrowserApi.ts): the sessions assistants
 * saved with `browser.session_save` and the named profiles `browser.open {profile}` made, listed by name and origin
 * only (what they hold stays encrypted, or in the profile's own Chromium folder), and deleted by the person.
 * Deleting asks nothing: it takes away, never gives an assistant more.
 */
export function consoleBrowserSavedRoutes(services: Services): Hono {
  const app = new Hono()

  app.get('/browser/saved', async (c) => {
    const [sessions, profiles] = await Promise.all([services.savedSessions.list(), services.browser.listProfiles()])
    const body: BrowserSaved = {
      sessions: sessions.map(({ name, origin }) => ({ name, origin })),
      profiles: profiles.map(({ name, origins }) => ({ name, origins })),
    }
    return c.json(body, 200, NO_STORE)
  })
  app.post('/browser/sessions/:name/delete', (c) =>
    refusalsOf(c, async () => {
      const name = c.req.param('name')
      return { name, deleted: await services.savedSessions.delete(name) }
    }))
  app.post('/browser/profiles/:name/delete', (c) => refusalsOf(c, () => services.browser.deleteProfile(c.req.param('name'))))
  return app
}

/** The store's refusals as the console's errors: a bad name is 400, a profile with a tab open 409. */
async function refusalsOf(c: Context, work: () => Promise<BrowserSavedDeleted>): Promise<Response> {
  try {
    return c.json<BrowserSavedDeleted>(await work())
  } catch (error) {
    if (!(error instanceof BrowserError)) throw error
    const status = error.code === 'PROFILE_IN_USE' ? 409 : error.code === 'BROWSER_UNAVAILABLE' ? 503 : 400
    return c.json<ConsoleError>({ error: error.code, message: error.message.replace(/^[A-Z_]+: /, '') }, status)
  }
}
