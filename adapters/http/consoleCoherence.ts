import { Hono, type Context } from 'hono'
import type { z } from 'zod'
import { isQuireError } from '../../core/errors.js'
import { isCoherenceRefusal } from '../../core/coherence/refusal.js'
import type { Services } from '../host/services.js'
import type { ConsoleError } from './consoleApi.js'
import type { CoherenceGranted, CoherenceResolved } from './consoleCoherenceApi.js'
import {
  breakdownView, chosenRoot, grantDelegation, GrantBodySchema, grantsView, refusalAnswer, resolveAsPerson, ResolveBodySchema,
  revokeDelegation, RevokeBodySchema, workspacesView,
} from './consoleCoherenceViews.js'

const NO_STORE = { 'cache-control': 'no-store' }

/**
 * The console's Coherence panel (contract in consoleCoherenceApi.ts): the open workspaces' ledgers, the breakdown of
 * stale edges, the person's accept-newer and waive, and the delegations they grant assistants and revoke. Mounted
 * under `/console/api` after the console's sign-in check, so only the person reaches it; an assistant never can
 * (COHR.RESOLVE.8: grants are made here and by the CLI, never over MCP).
 */
export function consoleCoherenceRoutes(services: Services): Hono {
  const app = new Hono()
  app.onError((error, c) => coherenceError(c, error))

  app.get('/coherence/workspaces', async (c) => c.json(await workspacesView(services), 200, NO_STORE))
  app.get('/coherence/breakdown', async (c) => {
    const root = await chosenRoot(services, c.req.query('root'))
    return c.json(await breakdownView(services, root), 200, NO_STORE)
  })
  app.post('/coherence/resolve', async (c) => {
    const body = await parsed(c, ResolveBodySchema)
    if (body === undefined) return invalid(c, 'expected {"root"?: "/workspace", "txf": "<entry id>", "input": N, "resolution": "accept-newer" | "waive", "reason"?: "..."}')
    const root = await chosenRoot(services, body.root)
    const receipt = await resolveAsPerson(services, root, body)
    const answer: CoherenceResolved = { receipt, breakdown: await breakdownView(services, root) }
    return c.json(answer)
  })
  app.get('/coherence/grants', async (c) => {
    const root = await chosenRoot(services, c.req.query('root'))
    return c.json(await grantsView(services, root), 200, NO_STORE)
  })
  app.post('/coherence/grants', async (c) => {
    const body = await parsed(c, GrantBodySchema)
    if (body === undefined) return invalid(c, 'expected {"root"?: "/workspace", "delegate": "AGENT", "scope": ["accept-newer" | "waive", ...], "days": 1 | 7 | 30}')
    const root = await chosenRoot(services, body.root)
    const granted = await grantDelegation(services, root, body)
    const answer: CoherenceGranted = { ...granted, grants: await grantsView(services, root) }
    return c.json(answer)
  })
  app.post('/coherence/grants/:delegation/revoke', async (c) => {
    const body = await parsed(c, RevokeBodySchema)
    if (body === undefined) return invalid(c, 'expected {"root"?: "/workspace"}')
    const root = await chosenRoot(services, body.root)
    await revokeDelegation(services, root, c.req.param('delegation'))
    return c.json(await grantsView(services, root))
  })
  return app
}

/** A JSON body that passes `schema`, or undefined. A missing body counts as `{}`, so `{root?}` routes take none. */
export async function parsed<T extends z.ZodType>(c: Context, schema: T): Promise<z.output<T> | undefined> {
  const text = await c.req.text().catch(() => null)
  if (text === null) return undefined
  let value: unknown
  try {
    value = text.trim() === '' ? {} : JSON.parse(text)
  } catch {
    return undefined
  }
  const result = schema.safeParse(value)
  return result.success ? result.data : undefined
}

function invalid(c: Context, message: string): Response {
  return c.json<ConsoleError>({ error: 'INVALID_ARGUMENT', message }, 400)
}

/** Refusals as the console's JSON errors: the core's reason as the code, its plain-string message as the message. */
export function coherenceError(c: Context, error: Error): Response {
  if (isCoherenceRefusal(error)) {
    const { status, error: code } = refusalAnswer(error)
    return c.json<ConsoleError>({ error: code, message: error.message }, status)
  }
  if (isQuireError(error)) return c.json<ConsoleError>({ error: error.code, message: error.message }, error.code === 'WRITE_BUSY' ? 409 : error.code === 'NOT_FOUND' ? 404 : 400)
  throw error
}
