import { createHash } from 'node:crypto'
import { readdir, readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import type { BrowserEngine } from '../../adapters/browser/engine.js'
import { chromiumChildren, eventually, refusal, useEngineWithProfile } from './support/engineRig.js'

/**
 * The engine's named profiles (namedProfiles.ts): a persistent Chromium context per agent and name beside the Sandbox
 * browser, what the person's console lists of them (names, owners and origins, never a credential), and deleting one
 * with its logins.
 */
const rig = useEngineWithProfile('profilesDir')
const { directory: profilesDir } = rig

async function cookieSeen(engine: BrowserEngine, principal: string, tabId: string): Promise<string> {
  const { elements } = await engine.query(principal, tabId, 'h1')
  return elements[0]!.text
}

describe('named profiles in the engine', () => {
  test('each profile has its own cookie store, apart from the Sandbox one and from each other; tabs say which profile they are in', async () => {
    const work = await rig.engine.open('claude', rig.site.url('/keep-cookie.html?v=work'), { profile: 'work', approvedOrigin: rig.site.origin })
    const home = await rig.engine.open('claude', rig.site.url('/keep-cookie.html?v=home'), { profile: 'home', approvedOrigin: rig.site.origin })
    const sandbox = await rig.engine.open('claude', rig.site.url('/cookie/show'))
    expect(await cookieSeen(rig.engine, 'claude', sandbox.tabId)).toBe('cookie: none')
    await rig.engine.navigate('claude', work.tabId, rig.site.url('/cookie/show'))
    expect(await cookieSeen(rig.engine, 'claude', work.tabId)).toBe('cookie: work')
    await rig.engine.navigate('claude', home.tabId, rig.site.url('/cookie/show'))
    expect(await cookieSeen(rig.engine, 'claude', home.tabId)).toBe('cookie: home')
    expect(rig.engine.profileOf('claude', work.tabId)).toBe('work')
    expect(rig.engine.profileOf('claude', sandbox.tabId)).toBeUndefined()
    const listed = Object.fromEntries((await rig.engine.listTabs()).map((tab) => [tab.tabId, tab.profile ?? null]))
    expect(listed).toEqual({ [work.tabId]: 'work', [home.tabId]: 'home', [sandbox.tabId]: null })
    // A profile is its agent's own: another principal's "work" is another store, unless it opens claude's (shared).
    const theirs = await rig.engine.open('gemini', rig.site.url('/cookie/show'), { profile: 'work', approvedOrigin: rig.site.origin })
    expect(await cookieSeen(rig.engine, 'gemini', theirs.tabId)).toBe('cookie: none')
    const other = await rig.engine.open('gemini', rig.site.url('/cookie/show'), { profile: 'work', profileOwner: 'claude', approvedOrigin: rig.site.origin })
    expect(await cookieSeen(rig.engine, 'gemini', other.tabId)).toBe('cookie: work')
    for (const [principal, tab] of [['claude', work], ['claude', home], ['claude', sandbox], ['gemini', theirs], ['gemini', other]] as const) await rig.engine.close(principal, tab.tabId)
  })

  test('the listing names each profile, its agent and the origins opened in it; the folders are 0700', async () => {
    const listed = await rig.engine.listProfiles()
    expect(listed.map(({ name, owner, origins }) => ({ name, owner, origins }))).toEqual([
      { name: 'home', owner: 'claude', origins: [rig.site.origin] },
      { name: 'work', owner: 'claude', origins: [rig.site.origin] },
      { name: 'work', owner: 'gemini', origins: [rig.site.origin] },
    ])
    expect(JSON.stringify(listed)).not.toMatch(/cookie|work-value/)
    for (const folder of await readdir(profilesDir)) expect((await stat(join(profilesDir, folder))).mode & 0o777).toBe(0o700)
  })

  test('a profile with an open tab is not deleted; once closed it is, logins and all, and a new one by that name starts empty', async () => {
    const tab = await rig.engine.open('claude', rig.site.url('/cookie/show'), { profile: 'home', approvedOrigin: rig.site.origin })
    const inUse = await refusal(rig.engine.deleteProfile('home'))
    expect(inUse.code).toBe('PROFILE_IN_USE')
    expect(inUse.message).toMatch(new RegExp(`profile "home" has 1 tab\\(s\\) open \\(${tab.tabId}\\)`))
    await rig.engine.close('claude', tab.tabId)
    expect(await rig.engine.deleteProfile('home')).toEqual({ name: 'home', deleted: true })
    expect(await rig.engine.deleteProfile('home')).toEqual({ name: 'home', deleted: false })
    expect((await rig.engine.listProfiles()).map((entry) => entry.name)).toEqual(['work', 'work'])
    const fresh = await rig.engine.open('claude', rig.site.url('/cookie/show'), { profile: 'home', approvedOrigin: rig.site.origin })
    expect(await cookieSeen(rig.engine, 'claude', fresh.tabId)).toBe('cookie: none')
    await rig.engine.close('claude', fresh.tabId)
  })

  test('a name outside [A-Za-z0-9._-]{1,128}, or only dots, is refused before any folder is made', async () => {
    const before = await readdir(profilesDir)
    for (const name of ['..', '.', 'a/b', '', 'x'.repeat(129)]) {
      expect((await refusal(rig.engine.open('claude', rig.site.url('/index.html'), { profile: name }))).code, name).toBe('INVALID_ARGUMENT')
    }
    expect(await readdir(profilesDir)).toEqual(before)
  })

  test('a profile\'s Chromium that dies takes only its own tabs; the Sandbox tab stays', async () => {
    const sandbox = await rig.engine.open('claude', rig.site.url('/index.html'))
    const work = await rig.engine.open('claude', rig.site.url('/index.html'), { profile: 'work', approvedOrigin: rig.site.origin })
    // The profile's own Chromium: the one started on its folder.
    const folder = join(profilesDir, createHash('sha256').update('claude\nwork').digest('hex'), 'chromium')
    const own: number[] = []
    for (const pid of await chromiumChildren()) {
      if ((await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0').includes(`--user-data-dir=${folder}`)) own.push(pid)
    }
    expect(own).toHaveLength(1)
    process.kill(own[0]!, 'SIGKILL')
    await eventually(rig, (event) => event.type === 'tab-closed' && event.tabId === work.tabId)
    expect((await rig.engine.listTabs()).map((tab) => tab.tabId)).toEqual([sandbox.tabId])
    // The profile opens again on its folder (what Chromium had not yet written to disk when it was killed is lost).
    const again = await rig.engine.open('claude', rig.site.url('/cookie/show'), { profile: 'work', approvedOrigin: rig.site.origin })
    expect(rig.engine.profileOf('claude', again.tabId)).toBe('work')
    await rig.engine.close('claude', again.tabId)
    await rig.engine.close('claude', sandbox.tabId)
  })

  test('stopping the engine stops every profile\'s Chromium', async () => {
    await rig.engine.open('claude', rig.site.url('/index.html'), { profile: 'work', approvedOrigin: rig.site.origin })
    await rig.engine.open('claude', rig.site.url('/index.html'), { profile: 'home', approvedOrigin: rig.site.origin })
    await rig.engine.stop()
    expect(await chromiumChildren()).toEqual([])
  })
})
