import { describe, expect, it } from 'vitest'
import { USER, type Actor } from '../../core/events/actor.js'
import type { Engine } from '../../core/engine.js'
import { openEmbeddedEngine } from '../../adapters/leveldb/embeddedEngine.js'
import { subjectOf, type BrowserAccessRequest } from '../../core/browser/requests.js'
import { checkSavedName, savedNameProblem } from '../../core/browser/savedNames.js'
import { checkProfilePosture, checkScriptInProfile, checkSessionLoad, sessionOriginOf } from '../../core/browser/savedState.js'
import { isQuireError } from '../../core/errors.js'
import { useTempHomes } from '../support/tempHome.js'

/**
 * Core's rules of saved browser state (core/browser/savedNames.ts, savedState.ts, requests.ts, grants.ts) through a
 * real engine on a real log: a session's approval is per call and bound to its handle, a profile's per open; names,
 * origins and the posture are checked before anything is asked.
 */

const newHome = useTempHomes()
const ORIGIN = 'http://shop.test:8080'
const asker = (connection = 'c1'): { connection: string; principal: string; actor: Actor } => ({
  connection, principal: 'claude', actor: { kind: 'mcp', principal: 'claude', connection },
})
const NO_WAIT = { waitMs: 0 }
const save = (handle: string): BrowserAccessRequest => ({ kind: 'session', operation: 'save', origin: ORIGIN, tabId: 'tab-1', handle })
const load = (handle: string): BrowserAccessRequest => ({ kind: 'session', operation: 'load', origin: ORIGIN, tabId: 'tab-1', handle })
const openProfile = (profile: string): BrowserAccessRequest => ({ kind: 'profile', origin: ORIGIN, profile })

async function withEngine(run: (engine: Engine) => Promise<void>): Promise<void> {
  const engine = await openEmbeddedEngine(await newHome())
  try {
    await run(engine)
  } finally {
    await engine.close()
  }
}

function refusedWith(code: string, run: () => unknown): string {
  try {
    run()
  } catch (error) {
    if (isQuireError(error, code)) return error.message
    throw error
  }
  throw new Error(`expected ${code}`)
}

describe('BR.SESSION_SAVE.5 / BR.SESSION_SAVE.6 / APPR.4 a session approval is for one call and one handle', () => {
  it('an approval for "alpha" lets no call for "beta" through, nor a load of "alpha"; it is used up by its one call', () =>
    withEngine(async (engine) => {
      const access = engine.commands.browserAccess
      const asked = (await access.authorize(save('alpha'), asker(), NO_WAIT)) as { approvalId: string }
      expect(engine.commands.approvals.find(asked.approvalId)).toMatchObject({
        kind: 'browser_session', subject: `save the session (cookies and localStorage) of ${ORIGIN} as "alpha" (tab tab-1)`, scopes: ['once'],
      })
      await engine.commands.approvals.decide(asked.approvalId, 'approved', USER)
      const other = await access.authorize(save('beta'), asker(), NO_WAIT)
      expect(other).toMatchObject({ granted: false, token: 'NOT_GRANTED' })
      expect((other as { approvalId: string }).approvalId).not.toBe(asked.approvalId)
      expect(await access.authorize(load('alpha'), asker(), NO_WAIT)).toMatchObject({ granted: false })
      expect(await access.authorize(save('alpha'), asker(), NO_WAIT)).toEqual({ granted: true, approvalId: asked.approvalId, scope: 'once' })
      // Used: the next save of the same handle asks again.
      const again = await access.authorize(save('alpha'), asker(), NO_WAIT)
      expect(again).toMatchObject({ granted: false, token: 'NOT_GRANTED', status: 'pending' })
      expect((again as { approvalId: string }).approvalId).not.toBe(asked.approvalId)
    }))

  it('the person cannot make it standing: "site" is refused for a session and for a profile', () =>
    withEngine(async (engine) => {
      const access = engine.commands.browserAccess
      for (const request of [save('alpha'), openProfile('work')]) {
        const asked = (await access.authorize(request, asker(), NO_WAIT)) as { approvalId: string }
        await expect(engine.commands.approvals.decide(asked.approvalId, 'approved', USER, 'site')).rejects.toThrow(/can be given "once", not "site"/)
      }
    }))

  it('an approval of another connection is not this one\'s', () =>
    withEngine(async (engine) => {
      const access = engine.commands.browserAccess
      const asked = (await access.authorize(save('alpha'), asker('c1'), NO_WAIT)) as { approvalId: string }
      await engine.commands.approvals.decide(asked.approvalId, 'approved', USER)
      expect(await access.authorize(save('alpha'), asker('c2'), NO_WAIT)).toMatchObject({ granted: false })
    }))
})

describe('BR.OPEN.5 / APPR.5 a profile is approved afresh for every open', () => {
  it('the approval names profile and origin; two opens need two approvals', () =>
    withEngine(async (engine) => {
      const access = engine.commands.browserAccess
      expect(subjectOf(openProfile('work'))).toBe(`open ${ORIGIN} in the browser profile "work", with its saved logins`)
      const first = (await access.authorize(openProfile('work'), asker(), NO_WAIT)) as { approvalId: string }
      await engine.commands.approvals.decide(first.approvalId, 'approved', USER)
      expect(await access.authorize(openProfile('home'), asker(), NO_WAIT)).toMatchObject({ granted: false })
      expect(await access.authorize(openProfile('work'), asker(), NO_WAIT)).toMatchObject({ granted: true, approvalId: first.approvalId })
      const second = await access.authorize(openProfile('work'), asker(), NO_WAIT)
      expect(second).toMatchObject({ granted: false, status: 'pending' })
      expect(engine.commands.approvals.find(first.approvalId)!.status).toBe('consumed')
    }))
})

describe('BR.SESSION_SAVE.1 / BR.OPEN.4 names, origins and the posture', () => {
  it('names are 1–128 of [A-Za-z0-9._-] and never only dots', () => {
    for (const good of ['a', 'shop.login', 'A-b_c.1', 'x'.repeat(128), '.hidden', 'a..b']) expect(savedNameProblem(good), good).toBeUndefined()
    for (const bad of ['', ' a', 'a b', 'a/b', 'a\\b', '.', '..', '...', 'x'.repeat(129), 'é', 'a\n']) expect(savedNameProblem(bad), JSON.stringify(bad)).toBeDefined()
    expect(refusedWith('INVALID_ARGUMENT', () => checkSavedName('handle', '..'))).toBe('handle must not be only dots')
    expect(refusedWith('INVALID_ARGUMENT', () => checkSavedName('profile', 'a b'))).toMatch(/^profile must be 1–128 characters/)
  })

  it('BR.SESSION_SAVE.4 a session is saved from a web origin only; BR.SESSION_LOAD.2 loaded onto that origin only', () => {
    expect(sessionOriginOf('http://shop.test:8080/cart')).toBe(ORIGIN)
    for (const page of ['about:blank', 'data:text/html,x', 'not a url']) expect(refusedWith('NO_ORIGIN', () => sessionOriginOf(page)), page).toMatch(/no web page/)
    checkSessionLoad('a', ORIGIN, 'http://shop.test:8080/other/page')
    expect(refusedWith('ORIGIN_MISMATCH', () => checkSessionLoad('a', ORIGIN, 'http://shop.test:9090/'))).toMatch(/saved from http:\/\/shop\.test:8080; the tab shows http:\/\/shop\.test:9090/)
    expect(refusedWith('ORIGIN_MISMATCH', () => checkSessionLoad('a', ORIGIN, 'https://shop.test:8080/'))).toBeTruthy()
  })

  it('BR.OPEN.4 a profile opens in the Sandbox posture only; BR.OPEN.6 a profile tab runs no script', () => {
    checkProfilePosture('work', 'sandbox')
    expect(refusedWith('PROFILE_NEEDS_SANDBOX', () => checkProfilePosture('work', 'shared'))).toMatch(/only in the Sandbox posture/)
    checkScriptInProfile(undefined)
    expect(refusedWith('PROFILE_TAB', () => checkScriptInProfile('work'))).toMatch(/scripts would see its logins/)
  })
})
