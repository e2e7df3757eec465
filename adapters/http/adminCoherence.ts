import { Hono } from 'hono'
import type { Services } from '../host/services.js'
import { coherenceError, parsed } from './consoleCoherence.js'
import type { CoherenceGranted } from './consoleCoherenceApi.js'
import {
  breakdownView, chosenRoot, grantDelegation, GrantBodySchema, grantsView, revokeDelegation, RevokeBodySchema,
} from './consoleCoherenceViews.js'

/**
 * The person's side of coherence under `/admin/coherence` (the `quire coherence` CLI), answering the console's shapes
 * (consoleCoherenceApi.ts): a workspace's status, its breakdown, its grants with their audit, grant and revoke.
 * `root` names the workspace; omitted, the only open one.
 */
export function adminCoherenceRoutes(services: Services): Hono {
  const app = new Hono()
  app.onError((error, c) => coherenceError(c, error))
  app.get('/status', async (c) => {
    const root = await chosenRoot(services, c.req.query('root'))
    return c.json({ root, status: await services.coherence.status(root) })
  })
  app.get('/edges', async (c) => c.json(await breakdownView(services, await chosenRoot(services, c.req.query('root')))))
  app.get('/grants', async (c) => c.json(await grantsView(services, await chosenRoot(services, c.req.query('root')))))
  app.post('/grants', async (c) => {
    const body = await parsed(c, GrantBodySchema)
    if (body === undefined) return c.json({ error: 'INVALID_ARGUMENT', message: 'expected {"root"?: "/workspace", "delegate": "AGENT", "scope": ["accept-newer" | "waive", ...], "days": 1 | 7 | 30}' }, 400)
    const root = await chosenRoot(services, body.root)
    const granted = await grantDelegation(services, root, body)
    const answer: CoherenceGranted = { ...granted, grants: await grantsView(services, root) }
    return c.json(answer)
  })
  app.post('/grants/:delegation/revoke', async (c) => {
    const body = await parsed(c, RevokeBodySchema)
    if (body === undefined) return c.json({ error: 'INVALID_ARGUMENT', message: 'expected {"root"?: "/workspace"}' }, 400)
    const root = await chosenRoot(services, body.root)
    await revokeDelegation(services, root, c.req.param('delegation'))
    return c.json(await grantsView(services, root))
  })
  return app
}
