import { rm } from 'node:fs/promises'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openQuire, type Quire } from '../../adapters/host/quire.js'
import { startHttpServer, type HttpServer } from '../../adapters/http/daemon.js'
import { serveFixtureSite, type FixtureSite } from '../browser-engine/support/fixtureSite.js'
import { eventually, launchChromium } from '../support/browser.js'
import { tempDir } from '../support/mcpHarness.js'

const COOKIE_VALUE = 'cookie-value-7f3a9c'
const STORAGE_VALUE = 'storage-value-b81d2e'

/**
 * The console's saved browser state (issue 15 item 7): the sessions assistants saved and the named profiles, listed in
 * the Browser view by name and origin only, deleted by the person. The session is saved through the daemon's real
 * store (encrypted on disk), the profile opened through the daemon's engine as `browser.open {profile}` opens it.
 */
describe('console Browser view: saved sessions and profiles (Chromium)', () => {
  let home: string
  let quire: Quire
  let server: HttpServer
  let site: FixtureSite
  let browser: Browser
  let page: Page
  const item = (kind: 'session' | 'profile', name: string) => page.locator(`.browser-saved-item[data-kind="${kind}"][data-name="${name}"]`)

  beforeAll(async () => {
    home = await tempDir('quire-browser-saved-')
    quire = await openQuire(home, { watchDisk: false })
    server = await startHttpServer(quire.services)
    site = await serveFixtureSite()
    browser = await launchChromium()
    page = await (await browser.newContext({ viewport: { width: 1280, height: 820 } })).newPage()
    // Deleting asks "are you sure" with the browser's own dialog: the person says yes.
    page.on('dialog', (dialog) => void dialog.accept())
    await page.goto(`${server.url}/?token=${server.token}`)
    await page.locator('.tabstrip').waitFor()
    await page.locator('.browser-open').click()
  })
  afterAll(async () => {
    await browser?.close()
    await server?.close()
    await quire?.close()
    await site?.close()
    await rm(home, { recursive: true, force: true })
  })

  it('the saved sessions and profiles are listed by name and origin, never a value; the person deletes them', async () => {
    await quire.services.savedSessions.save('blog-login', {
      origin: site.origin,
      cookies: [{ name: 'sid', value: COOKIE_VALUE, domain: '127.0.0.1', path: '/', expires: -1, httpOnly: true, secure: false, sameSite: 'Lax' }],
      localStorage: [['token', STORAGE_VALUE]],
    })
    const opened = await quire.services.browser.open('claude', site.url('/form.html'), { profile: 'shop', approvedOrigin: site.origin })

    await page.locator('.browser-saved-open').click()
    expect(await page.locator('.browser-saved-open').getAttribute('aria-pressed')).toBe('true')
    await item('session', 'blog-login').waitFor()
    expect(await item('session', 'blog-login').locator('.browser-saved-origin').allTextContents()).toEqual([site.origin])
    await item('profile', 'shop').waitFor()
    expect(await item('profile', 'shop').locator('.browser-saved-origin').allTextContents()).toEqual([site.origin])
    // Names and origins only, on the page and in the answer it came from.
    const shown = (await page.locator('.browser-saved').textContent())!
    const answered = await (await fetch(`${server.url}/console/api/browser/saved`, { headers: { authorization: `Bearer ${server.token}` } })).text()
    for (const text of [shown, answered]) {
      expect(text).not.toContain(COOKIE_VALUE)
      expect(text).not.toContain(STORAGE_VALUE)
    }
    expect(JSON.parse(answered)).toEqual({ sessions: [{ name: 'blog-login', origin: site.origin }], profiles: [{ name: 'shop', origins: [site.origin] }] })

    // A profile with a tab open stays: the person is told why.
    await item('profile', 'shop').locator('.browser-saved-delete').click()
    await eventually(() => page.locator('.browser-error').textContent(), (text) => text?.startsWith('PROFILE_IN_USE: ') === true)
    expect((await quire.services.browser.listProfiles()).map((profile) => profile.name)).toEqual(['shop'])
    expect(await item('profile', 'shop').count()).toBe(1)

    await quire.services.browser.close('claude', opened.tabId)
    await item('profile', 'shop').locator('.browser-saved-delete').click()
    await eventually(() => item('profile', 'shop').count(), (count) => count === 0)
    expect(await quire.services.browser.listProfiles()).toEqual([])
    expect(await page.locator('.browser-saved').textContent()).toContain('No named profiles.')

    await item('session', 'blog-login').locator('.browser-saved-delete').click()
    await eventually(() => item('session', 'blog-login').count(), (count) => count === 0)
    expect(await quire.services.savedSessions.list()).toEqual([])
    await expect(quire.services.savedSessions.load('blog-login')).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' })

    // Hidden again, the panel is not polled and the column beside the live view goes with it.
    await page.locator('.browser-saved-open').click()
    expect(await page.locator('.browser-saved').isHidden()).toBe(true)
    expect(await page.locator('.browser-side').isHidden()).toBe(true)
  })

  it('the saved-state API is the person\'s: refused without the console cookie or the port file\'s token; a bad name is a clear 400', async () => {
    expect((await fetch(`${server.url}/console/api/browser/saved`)).status).toBe(401)
    expect((await fetch(`${server.url}/console/api/browser/sessions/blog-login/delete`, { method: 'POST' })).status).toBe(401)
    const asPerson = { authorization: `Bearer ${server.token}` }
    const bad = await fetch(`${server.url}/console/api/browser/profiles/${encodeURIComponent('my shop!')}/delete`, { method: 'POST', headers: asPerson })
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({ error: 'INVALID_ARGUMENT', message: expect.stringContaining('profile must be 1–128 characters') })
    const none = await fetch(`${server.url}/console/api/browser/sessions/never-saved/delete`, { method: 'POST', headers: asPerson })
    expect(await none.json()).toEqual({ name: 'never-saved', deleted: false })
  })
})
