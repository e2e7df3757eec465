/**
 * The saved-session store (adapters/browser/savedSessions.ts, sessionKeys.ts): sessions encrypted at rest with
 * AES-256-GCM under a key file of their own (mode 0600, made on first use), files of mode 0600 in a folder of mode
 * 0700, and every way a file can go wrong (another key, a changed byte of the ciphertext or of the header, a file
 * cut short, a file moved to another handle, an unsafe key file) refused with a clear error that loses nothing.
 */
import { chmod, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { BrowserError } from '../../adapters/browser/errors.js'
import { SavedSessions, type SessionSnapshot } from '../../adapters/browser/savedSessions.js'
import { findSecretTool, KeyFile } from '../../adapters/browser/sessionKeys.js'
import { tempDir } from '../support/mcpHarness.js'

const COOKIE_VALUE = 'ck-7f3a9e1c-secret'
const STORAGE_VALUE = 'tok-52b1d0aa-secret'

const snapshot: SessionSnapshot = {
  origin: 'http://127.0.0.1:8080',
  cookies: [
    { name: 'sid', value: COOKIE_VALUE, domain: '127.0.0.1', path: '/', expires: -1, httpOnly: true, secure: false, sameSite: 'Lax' },
    { name: 'theme', value: 'dark', domain: '127.0.0.1', path: '/app', expires: 2_000_000_000, httpOnly: false, secure: false, sameSite: 'Strict' },
  ],
  localStorage: [['token', STORAGE_VALUE], ['lang', 'en']],
}

const made: string[] = []
async function store(): Promise<{ dir: string; sessions: SavedSessions }> {
  const root = await tempDir('quire-sessions-')
  made.push(root)
  const dir = join(root, 'browser-sessions')
  return { dir, sessions: new SavedSessions({ dir, keyring: null, now: () => 1_700_000_000_000 }) }
}
afterEach(async () => {
  await Promise.all(made.splice(0).map((root) => rm(root, { recursive: true, force: true })))
})

async function refusal(call: Promise<unknown>): Promise<BrowserError> {
  const error = await call.then(() => null, (caught: unknown) => caught)
  if (!(error instanceof BrowserError)) throw new Error(`expected a BrowserError, got ${error instanceof Error ? error.message : JSON.stringify(error)}`)
  return error
}

const sessionFile = async (dir: string): Promise<string> => join(dir, (await readdir(dir)).find((name) => name.endsWith('.session'))!)
const mode = async (path: string): Promise<number> => (await stat(path)).mode & 0o777

describe('the saved-session store', () => {
  it('keeps a session and gives it back whole; the answer and the listing are names, origins and counts', async () => {
    const { sessions } = await store()
    const saved = await sessions.save('shop.login', snapshot)
    expect(saved).toEqual({ name: 'shop.login', origin: snapshot.origin, savedAt: 1_700_000_000_000, cookies: 2, localStorage: 2 })
    expect(await sessions.load('shop.login')).toEqual(snapshot)
    expect(await sessions.describe('shop.login')).toEqual(saved)
    expect(await sessions.list()).toEqual([saved])
    expect(JSON.stringify(await sessions.list())).not.toContain('secret')
  })

  it('BR.SESSION_SAVE.2 at rest the values are encrypted: no cookie or localStorage value is anywhere in the folder', async () => {
    const { dir, sessions } = await store()
    await sessions.save('a', snapshot)
    for (const name of await readdir(dir)) {
      const bytes = await readFile(join(dir, name), 'latin1')
      for (const value of [COOKIE_VALUE, STORAGE_VALUE, 'dark', Buffer.from(COOKIE_VALUE).toString('base64')]) expect(bytes, name).not.toContain(value)
    }
  })

  it('the key file is made on first use with mode 0600, the folder 0700, each session file 0600', async () => {
    const { dir, sessions } = await store()
    await sessions.save('a', snapshot)
    await sessions.save('b', snapshot)
    expect(await mode(dir)).toBe(0o700)
    expect(await mode(join(dir, 'session.key'))).toBe(0o600)
    const files = (await readdir(dir)).filter((name) => name.endsWith('.session'))
    expect(files).toHaveLength(2)
    for (const file of files) expect(await mode(join(dir, file))).toBe(0o600)
    // One key for the store: the second save used the file the first made.
    expect(Buffer.from((await readFile(join(dir, 'session.key'), 'utf8')).trim(), 'base64')).toHaveLength(32)
  })

  it('a session saved under another key is refused as unreadable, and stays on disk', async () => {
    const { dir, sessions } = await store()
    await sessions.save('a', snapshot)
    const file = await sessionFile(dir)
    const before = await readFile(file)
    await rm(join(dir, 'session.key'))
    await new KeyFile(join(dir, 'session.key')).readOrCreate()
    const error = await refusal(sessions.load('a'))
    expect(error.code).toBe('SESSION_UNREADABLE')
    expect(error.message).toMatch(/could not be decrypted: the key is not the one it was saved with, or the file was changed/)
    expect(await readFile(file)).toEqual(before)
  })

  it('a changed byte of the ciphertext, a changed header and a file cut short are each refused', async () => {
    const { dir, sessions } = await store()
    await sessions.save('a', snapshot)
    const file = await sessionFile(dir)
    const original = JSON.parse(await readFile(file, 'utf8')) as { header: Record<string, unknown>; data: string }

    const data = Buffer.from(original.data, 'base64')
    data[0] = data[0]! ^ 1
    await writeFile(file, JSON.stringify({ ...original, data: data.toString('base64') }))
    expect((await refusal(sessions.load('a'))).code).toBe('SESSION_UNREADABLE')

    // The header is authenticated too: a session cannot be moved to another origin by editing it.
    await writeFile(file, JSON.stringify({ ...original, header: { ...original.header, origin: 'http://evil.test' } }))
    expect((await refusal(sessions.load('a'))).message).toMatch(/could not be decrypted/)

    await writeFile(file, JSON.stringify(original).slice(0, 80))
    expect((await refusal(sessions.load('a'))).message).toMatch(/is not a saved session/)
    // A file that is not a session is left out of the listing, not fatal to it.
    expect(await sessions.list()).toEqual([])
  })

  it('a session file put in place of another handle\'s is refused', async () => {
    const { dir, sessions } = await store()
    await sessions.save('a', snapshot)
    const fileA = await sessionFile(dir)
    const text = await readFile(fileA, 'utf8')
    await sessions.save('b', { ...snapshot, localStorage: [] })
    const fileB = (await readdir(dir)).map((name) => join(dir, name)).find((path) => path.endsWith('.session') && path !== fileA)!
    await writeFile(fileB, text)
    expect((await refusal(sessions.load('b'))).message).toMatch(/holds another session/)
  })

  it('a key file others may read is refused with what to do, and the session is kept', async () => {
    const { dir, sessions } = await store()
    await sessions.save('a', snapshot)
    await chmod(join(dir, 'session.key'), 0o644)
    const error = await refusal(sessions.load('a'))
    expect(error.code).toBe('SESSION_KEY_UNAVAILABLE')
    expect(error.message).toMatch(/may be read by other users \(mode 644\); run chmod 600/)
    await chmod(join(dir, 'session.key'), 0o600)
    expect(await sessions.load('a')).toEqual(snapshot)
  })

  it('a key file that holds no key, and a removed key file, are refused clearly', async () => {
    const { dir, sessions } = await store()
    await sessions.save('a', snapshot)
    await writeFile(join(dir, 'session.key'), 'not a key\n', { mode: 0o600 })
    expect((await refusal(sessions.load('a'))).message).toMatch(/does not hold a session key/)
    await rm(join(dir, 'session.key'))
    expect((await refusal(sessions.load('a'))).message).toMatch(/the key file was removed/)
  })

  it('BR.SESSION_SAVE.1 handles are 1–128 of [A-Za-z0-9._-], never only dots; unknown handles are SESSION_NOT_FOUND', async () => {
    const { sessions } = await store()
    for (const bad of ['', 'a/b', '..', '.', 'x'.repeat(129), 'naïve', 'a b']) {
      expect((await refusal(sessions.save(bad, snapshot))).code, bad).toBe('INVALID_ARGUMENT')
    }
    await sessions.save('x'.repeat(128), snapshot)
    // Case matters, on any disk: two handles, two sessions.
    await sessions.save('Work', snapshot)
    await sessions.save('work', { ...snapshot, cookies: [] })
    expect((await sessions.describe('Work')).cookies).toBe(2)
    expect((await sessions.describe('work')).cookies).toBe(0)
    expect((await refusal(sessions.load('nope'))).code).toBe('SESSION_NOT_FOUND')
  })

  it('delete removes one session and says whether there was one', async () => {
    const { sessions } = await store()
    await sessions.save('a', snapshot)
    await sessions.save('b', snapshot)
    expect(await sessions.delete('a')).toBe(true)
    expect(await sessions.delete('a')).toBe(false)
    expect((await sessions.list()).map((entry) => entry.name)).toEqual(['b'])
    expect((await refusal(sessions.load('a'))).code).toBe('SESSION_NOT_FOUND')
  })

  it('saving again under a handle replaces the session', async () => {
    const { sessions } = await store()
    await sessions.save('a', snapshot)
    await sessions.save('a', { ...snapshot, localStorage: [['only', 'one']] })
    expect((await sessions.load('a')).localStorage).toEqual([['only', 'one']])
  })

  it('secret-tool is looked for on PATH only', async () => {
    const root = await tempDir('quire-path-')
    made.push(root)
    expect(await findSecretTool(root)).toBeNull()
    await mkdir(join(root, 'bin'))
    await writeFile(join(root, 'bin', 'secret-tool'), '#!/bin/sh\n', { mode: 0o755 })
    expect(await findSecretTool(`${root}:${join(root, 'bin')}`)).toBe(join(root, 'bin', 'secret-tool'))
  })
})
