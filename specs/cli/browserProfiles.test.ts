import { describe, expect, it } from 'vitest'
import { runCli, type CliResult } from '../support/cli.js'
import { launchDaemon } from '../support/mcpHarness.js'
import { useTempHomes } from '../support/tempHome.js'

/**
 * `quire browser profiles | share | unshare` (issue 25 item 4): the person shares one agent's named browser profile
 * with another, and takes it back, each an event of the person's in the log's `browser` stream, with or without a
 * daemon running. Which profile an agent's open then uses is proven against Chromium in
 * specs/conformance/browser.hold.test.ts.
 */

const newHome = useTempHomes()
const quire = (home: string, ...args: string[]): Promise<CliResult> => runCli(args, { home, timeoutMs: 20_000 })

function ok(result: CliResult): string {
  expect({ code: result.code, stderr: result.stderr, timedOut: result.timedOut }).toEqual({ code: 0, stderr: '', timedOut: false })
  return result.stdout
}

async function sharesIn(home: string): Promise<unknown[]> {
  const log = ok(await quire(home, 'log', '--stream', 'browser', '--json'))
  return log.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { type: string; actor: unknown; data: unknown }).map(({ type, actor, data }) => ({ type, actor, data }))
}

describe('quire browser', () => {
  it('shares and unshares on the data directory itself, each an event of the person\'s; unsharing what is not shared fails', async () => {
    const home = await newHome()
    expect(ok(await quire(home, 'browser', 'share', 'work', '--owner', 'claude', '--with', 'codex'))).toBe('codex now opens claude\'s profile "work"\n')
    // Sharing again changes nothing.
    ok(await quire(home, 'browser', 'share', 'work', '--owner', 'claude', '--with', 'codex'))
    expect(ok(await quire(home, 'browser', 'unshare', 'work', '--owner', 'claude', '--with', 'codex'))).toBe('codex no longer opens claude\'s profile "work"\n')
    const again = await quire(home, 'browser', 'unshare', 'work', '--owner', 'claude', '--with', 'codex')
    expect(again.code).toBe(1)
    expect(again.stderr).toContain('claude\'s profile "work" is not shared with codex')
    const profile = { profile: 'work', owner: 'claude', with: 'codex' }
    expect(await sharesIn(home)).toEqual([
      { type: 'browser.profile.shared', actor: expect.objectContaining({ kind: 'user' }), data: profile },
      { type: 'browser.profile.unshared', actor: expect.objectContaining({ kind: 'user' }), data: profile },
    ])
  })

  it('through the running daemon too; a profile shared with its own agent or a bad name is refused; a bad call prints the usage', async () => {
    const home = await newHome()
    const daemon = await launchDaemon({ home })
    try {
      ok(await quire(home, 'browser', 'share', 'team', '--owner', 'claude', '--with', 'gemini'))
      expect(ok(await quire(home, 'browser', 'profiles'))).toBe('no named profiles\n')
      const self = await quire(home, 'browser', 'share', 'team', '--owner', 'claude', '--with', 'claude')
      expect(self.code).toBe(1)
      expect(self.stderr).toContain('already claude\'s own')
      const badName = await quire(home, 'browser', 'share', '..', '--owner', 'claude', '--with', 'gemini')
      expect(badName.code).toBe(1)
      expect((await quire(home, 'browser', 'share', 'team', '--owner', 'claude')).code).toBe(2)
    } finally {
      await daemon.stop()
    }
    expect((await sharesIn(home)).map((event) => (event as { type: string }).type)).toEqual(['browser.profile.shared'])
  })
})
