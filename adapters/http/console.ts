import { Hono, type Context } from 'hono'
import { USER } from '../../core/events/actor.js'
import { isQuireError } from '../../core/errors.js'
import type { Caller } from '../../core/workspace/commands.js'
import type { Services } from '../host/services.js'
import { CONSOLE_ASSETS, readConsoleAsset, type ConsoleAsset } from './consoleAssets.js'
import type { ConsoleActivation, ConsoleError } from './consoleApi.js'
import { consoleState } from './consoleState.js'
import { consolePanelRoutes } from './consolePanels.js'
import { consoleHistoryRoutes } from './consoleHistory.js'
import { consoleCommentRoutes } from './consoleComments.js'
import { consoleFileRoutes } from './consoleFiles.js'
import { consolePresenceRoutes } from './consolePresence.js'
import { consoleReviewRoutes } from './consoleReview.js'
import { consoleBrowserRoutes } from './consoleBrowser.js'
import { consoleCoherenceRoutes } from './consoleCoherence.js'
import { bearerToken, sameSecret } from '../auth/credentials.js'
import { apiBodyLimit } from './guard.js'
import { cookieRequestFromConsole, type ConsoleSessions } from './consoleSessions.js'
import type { AgentSessions } from './adminAgents.js'

/** The console acts as the person: its tab switches are the user's, never an MCP caller's. */
const PERSON: Caller = { actor: USER, connection: 'console', principal: null }

/**
 * No inline script, no foreign origin; inline styles only because CodeMirror and ProseMirror set them. No referrer
 * ever leaves the page (a credential was in the address bar of the request that led to it).
 */
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; " +
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
}

/**
 * The web console (DESIGN §8): the page at `/`, its bundle under `/console/`, and its JSON API under
 * `/console/api/` (contract in consoleApi.ts). The page and bundle hold no data, so they load without a credential
 * (the page then asks for the link `quire serve` printed). `/?code=…` or `/?token=…` signs the browser in with a
 * session cookie and redirects to `/` (consoleSessions.ts); every API call needs that cookie, from the console's own
 * origin, or the port file's access token as a bearer token (scripts, the CLI).
 */
export function consoleRoutes(services: Services, accessToken: string, sessions: ConsoleSessions, mcpSessions: AgentSessions): Hono {
  const app = new Hono()
  app.get('/', sessions.signIn(), (c) => asset(c, 'index.html'))
  app.get('/console/console.js', (c) => asset(c, 'console.js'))
  app.get('/console/console.css', (c) => asset(c, 'console.css'))
  app.get('/console/console.js.map', (c) => asset(c, 'console.js.map'))

  app.use('/console/api/*', async (c, next) => {
    const presented = bearerToken(c.req.header('authorization'))
    if (presented !== undefined && sameSecret(presented, accessToken)) return next()
    if (presented === undefined && sessions.isPerson(c)) {
      if (cookieRequestFromConsole(c)) return next()
      return c.json<ConsoleError>({ error: 'FORBIDDEN', message: 'a change made with the console cookie must come from the console page (no Origin)' }, 403)
    }
    return c.json<ConsoleError>({ error: 'UNAUTHORIZED', message: 'sign in with the console link `quire serve` printed (or the port file\'s token)' }, 401)
  })
  app.use('/console/api/*', apiBodyLimit())
  app.route('/console/api', consolePanelRoutes(services, mcpSessions)) // the person's panels: approvals, settings, divergences, agents
  // A document's history: diff, restore, review marks; addressed comments show their state, deleted ones as deleted.
  app.route('/console/api', consoleHistoryRoutes(services, { resolveComment: (_docId, commentId) => commentState(services, commentId) }))
  app.route('/console/api', consoleCommentRoutes(services)) // review threads: the person comments, replies, decides
  app.route('/console/api', consoleFileRoutes(services)) // the person's editor: file tree, new, open, save, save as, close
  app.route('/console/api', consolePresenceRoutes(services)) // who is here: assistants and the person's other windows
  app.route('/console/api', consoleReviewRoutes(services)) // AI changes as suggestions: keep, undo, redo; the Review list
  app.route('/console/api', consoleBrowserRoutes(services)) // the Browser view: every tab, the live view, the person's input
  app.route('/console/api', consoleCoherenceRoutes(services)) // the Coherence panel: stale edges, resolutions, delegations
  app.get('/console/api/state', async (c) => c.json(await consoleState(services), 200, { 'cache-control': 'no-store' }))
  app.post('/console/api/tabs/:tabId/activate', async (c) => {
    try {
      const outcome = await services.workspace.switchTab(c.req.param('tabId'), PERSON)
      const body: ConsoleActivation = { activated: outcome.activated, activeTabId: outcome.activeTabId, state: await consoleState(services) }
      return c.json(body)
    } catch (error) {
      if (isQuireError(error)) {
        return c.json<ConsoleError>({ error: error.code, message: error.message }, error.code === 'INVALID_TAB' ? 404 : 400)
      }
      throw error
    }
  })
  return app
}

async function asset(c: Context, name: ConsoleAsset): Promise<Response> {
  const bytes = await readConsoleAsset(name)
  if (!bytes) return c.text('The web console is not built: run `npm run build`.', 503)
  return c.body(new Uint8Array(bytes), 200, { ...PAGE_HEADERS, 'content-type': CONSOLE_ASSETS[name] })
}

/** The state of a comment as history shows it next to an edit that addressed it (COM.ADDR.3). */
function commentState(services: Services, commentId: string): 'open' | 'addressed' | 'resolved' | 'reopened' | 'deleted' | 'unknown' {
  const thread = services.engine.views.comments.find(commentId)
  if (!thread) return 'unknown'
  return thread.deleted ? 'deleted' : thread.state
}
