import { basename } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { Hono, type Context } from 'hono'
import * as Y from 'yjs'
import { z } from 'zod'
import { USER } from '../../core/events/actor.js'
import { isQuireError, QuireError } from '../../core/errors.js'
import type { Caller } from '../../core/workspace/commands.js'
import type { Services } from '../host/services.js'
import type { ConsoleError } from './consoleApi.js'
import type { FilesClosed, FilesCreated, FilesFolder, FilesOpened, FilesRenamed, FilesRoots, FilesSaved } from './consoleFilesApi.js'

/** The console is the person: what it opens, creates, renames, saves and closes is the user's. */
const PERSON: Caller = { actor: USER, connection: 'console', principal: null }

type Status = 400 | 404 | 409

const NO_STORE = { 'cache-control': 'no-store' }
const window = z.string().min(1).optional()
const openBody = z.strictObject({ path: z.string().min(1), window })
const createBody = z.strictObject({ path: z.string().min(1), type: z.enum(['file', 'directory']), window })
const renameBody = z.strictObject({ from: z.string().min(1), to: z.string().min(1) })
const newBody = z.strictObject({ kind: z.enum(['markdown', 'yaml-workflow']).optional(), window })
/** What the person's editor held when they saved (`Y.encodeStateVector`, base64): the save waits for it to arrive. */
const stateVector = z.string().max(65_536).optional()
const saveBody = z.strictObject({ stateVector })
const saveAsBody = z.strictObject({ path: z.string().min(1), stateVector })

/**
 * How long a save waits for the editor's last keystrokes to reach the daemon: they travel on the collaboration
 * socket, the save on another connection, and a save that overtook them would write the text without them.
 */
const CATCH_UP_MS = 3000
const closeBody = z.strictObject({ force: z.boolean().optional() })

/**
 * The person's editor (contract in consoleFilesApi.ts): each route is one core command (or two: a file opened from
 * the tree is also made the current tab, as a click means), called as the person.
 */
export function consoleFileRoutes(services: Services): Hono {
  const app = new Hono()
  app.onError((error, c) => {
    if (isQuireError(error)) return fail(c, error.code, error.message, statusOf(error.code))
    if (error instanceof BadBody) return fail(c, 'INVALID_ARGUMENT', error.message, 400)
    throw error
  })

  app.get('/files/roots', (c) =>
    c.json<FilesRoots>({ roots: services.tree.roots().map((path) => ({ path, name: basename(path) || path })) }, 200, NO_STORE),
  )

  app.get('/files/list', async (c) => {
    const path = c.req.query('path')
    if (!path) return fail(c, 'INVALID_ARGUMENT', 'expected ?path=/absolute/folder', 400)
    return c.json<FilesFolder>(await services.tree.list(path), 200, NO_STORE)
  })

  app.post('/files/open', async (c) => {
    const body = await parsed(c, openBody, '{"path": "/absolute/file", "window"?: "main"}')
    const opened = await services.files.open(body.path, body.window, PERSON)
    await services.workspace.switchTab(opened.tabId, PERSON)
    return c.json<FilesOpened>({ tabId: opened.tabId })
  })

  app.post('/files/create', async (c) => {
    const body = await parsed(c, createBody, '{"path": "/absolute/path", "type": "file" | "directory", "window"?: "main"}')
    if (body.type === 'directory') {
      const { folderPath } = await services.tree.createFolder(body.path)
      return c.json<FilesCreated>({ path: folderPath, tabId: null })
    }
    const created = await services.tree.createFile(body.path, body.window, PERSON)
    await services.workspace.switchTab(created.tabId, PERSON)
    return c.json<FilesCreated>({ path: created.filePath, tabId: created.tabId })
  })

  app.post('/files/rename', async (c) => {
    const body = await parsed(c, renameBody, '{"from": "/absolute/path", "to": "/absolute/path"}')
    return c.json<FilesRenamed>(await services.tree.rename(body.from, body.to, PERSON))
  })

  app.post('/tabs/new', async (c) => {
    const body = await parsed(c, newBody, '{"kind"?: "markdown" | "yaml-workflow", "window"?: "main"}')
    const { tabId } = await services.workspace.newTab(body.kind ?? 'markdown', body.window, PERSON)
    return c.json<FilesOpened>({ tabId })
  })

  app.post('/tabs/:tabId/save', async (c) => {
    const body = await parsed(c, saveBody, '{"stateVector"?: "base64"}')
    await caughtUp(services, c.req.param('tabId'), body.stateVector)
    const saved = await services.files.save(c.req.param('tabId'), PERSON)
    return c.json<FilesSaved>({ filePath: saved.filePath, revision: saved.revision })
  })

  app.post('/tabs/:tabId/save-as', async (c) => {
    const body = await parsed(c, saveAsBody, '{"path": "/absolute/file"}')
    const tabId = c.req.param('tabId')
    await caughtUp(services, tabId, body.stateVector)
    const saved = await services.files.saveAs(tabId, body.path, PERSON)
    const filePath = services.engine.views.workspace.state.tabs.get(tabId)?.path ?? body.path
    return c.json<FilesSaved>({ filePath, revision: saved.revision })
  })

  app.post('/tabs/:tabId/close', async (c) => {
    const body = await parsed(c, closeBody, '{"force"?: true}')
    const outcome = await services.workspace.close(c.req.param('tabId'), body.force === true, PERSON)
    return c.json<FilesClosed>(outcome)
  })
  return app
}

class BadBody extends Error {}

/** Waits until the daemon's copy of the tab's document holds every change `encoded` (a state vector) names. */
async function caughtUp(services: Services, tabId: string, encoded: string | undefined): Promise<void> {
  const tab = services.engine.views.workspace.state.tabs.get(tabId)
  if (encoded === undefined || !tab) return
  let wanted: Map<number, number>
  try {
    wanted = Y.decodeStateVector(Buffer.from(encoded, 'base64'))
  } catch {
    throw new BadBody('stateVector is not a base64 Yjs state vector')
  }
  const deadline = Date.now() + CATCH_UP_MS
  for (;;) {
    const document = await services.engine.documents.get(tab.docId)
    if (!document) return
    const have = Y.decodeStateVector(Y.encodeStateVector(document.ydoc))
    if ([...wanted].every(([client, clock]) => (have.get(client) ?? 0) >= clock)) return
    if (Date.now() > deadline) {
      throw new QuireError('STALE', "the editor's last changes have not reached the daemon yet, so nothing was saved; save again in a moment")
    }
    await sleep(20)
  }
}

async function parsed<T>(c: Context, schema: z.ZodType<T>, expected: string): Promise<T> {
  const body = schema.safeParse(await c.req.json().catch(() => ({})))
  if (!body.success) throw new BadBody(`expected ${expected}`)
  return body.data
}

function statusOf(code: string): Status {
  if (code === 'NOT_FOUND' || code === 'INVALID_TAB') return 404
  if (code === 'ALREADY_EXISTS' || code === 'STALE') return 409
  return 400
}

function fail(c: Context, error: string, message: string, status: Status) {
  return c.json<ConsoleError>({ error, message }, status)
}
