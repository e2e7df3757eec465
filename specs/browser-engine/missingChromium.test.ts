import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { BrowserEngine } from '../../adapters/browser/engine.js'
import { BrowserError } from '../../adapters/browser/errors.js'

/**
 * Issue 24 item 8: Quire runs without Chromium (`npm start` needs only Node and npm; the browser starts on first use),
 * and a browser tool called there answers BROWSER_UNAVAILABLE saying how to install it.
 */

describe('without Chromium, the browser tools say how to install it', () => {
  test('an AI tab, a human tab and a named profile each answer BROWSER_UNAVAILABLE naming the missing program and the package', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'quire-no-chromium-'))
    const missing = join(dir, 'no-such-chromium')
    const engine = new BrowserEngine({ executablePath: missing, profileDir: join(dir, 'profile'), profilesDir: join(dir, 'profiles') })
    try {
      // Chromium is started before any page is asked for: nothing needs to listen at the address.
      const page = 'http://127.0.0.1:9/'
      const attempts = [
        () => engine.open('claude', page),
        () => engine.openHumanTab(page),
        () => engine.open('claude', page, { profile: 'work' }),
      ]
      for (const attempt of attempts) {
        const error = await attempt().then(() => null, (caught: unknown) => caught)
        expect(error).toBeInstanceOf(BrowserError)
        expect((error as BrowserError).code).toBe('BROWSER_UNAVAILABLE')
        expect((error as BrowserError).message).toContain(`${missing} is not there`)
        expect((error as BrowserError).message).toContain("install Debian's chromium: sudo apt-get install chromium")
      }
    } finally {
      await engine.stop()
      await rm(dir, { recursive: true, force: true })
    }
  })
})
