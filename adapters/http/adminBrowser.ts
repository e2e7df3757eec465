import { Hono } from 'hono'
import { z } from 'zod'
import type { ProfileShare } from '../../core/browser/profileShares.js'
import { USER } from '../../core/events/actor.js'
import type { Services } from '../host/services.js'

/** A named profile as `quire browser profiles` lists it: never a login. */
export interface ProfileListing {
  readonly name: string
  /** The agent whose profile it is; absent for one made before profiles had owners (no agent opens it). */
  readonly owner?: string
  readonly origins: readonly string[]
}

export interface ProfilesListing {
  readonly profiles: readonly ProfileListing[]
  readonly shares: readonly ProfileShare[]
}

export async function profilesListing(services: Services): Promise<ProfilesListing> {
  const profiles = (await services.browser.listProfiles()).map(({ name, owner, origins }) => ({ name, ...(owner !== undefined ? { owner } : {}), origins }))
  return { profiles, shares: services.browserAccess.profileShares }
}

const ShareBodySchema = z.object({ profile: z.string().min(1), owner: z.string().min(1), with: z.string().min(1) }).strict()

/**
 * The person's side of assistants' named profiles under `/admin/browser` (the `quire browser` CLI): each agent's
 * profiles are its own; the person lists them, shares one agent's with another and takes a share back, each an
 * event in the `browser` stream (core/browser/profileShares.ts).
 */
export function adminBrowserRoutes(services: Services): Hono {
  const app = new Hono()
  app.get('/profiles', async (c) => c.json(await profilesListing(services)))
  app.post('/profiles/:change{share|unshare}', async (c) => {
    const body = ShareBodySchema.safeParse(await c.req.json().catch(() => null))
    if (!body.success) return c.json({ error: 'INVALID_ARGUMENT', message: 'expected {"profile": "NAME", "owner": "AGENT", "with": "AGENT"}' }, 400)
    if (c.req.param('change') === 'share') await services.browserAccess.shareProfile(body.data, USER)
    else await services.browserAccess.unshareProfile(body.data, USER)
    return c.json(await profilesListing(services))
  })
  return app
}
