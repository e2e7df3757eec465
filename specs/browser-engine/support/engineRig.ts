import { BrowserError } from '../../../adapters/browser/errors.js'
import { mkdtempSync } from 'node:fs'
import { readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll } from 'vitest'
import { BrowserEngine, type EngineEvent, type EngineOptions } from '../../../adapters/browser/engine.js'
import { serveFixtureSite, type FixtureSite } from './fixtureSite.js'

/** One fixture site and one engine per test file; the engine's events are recorded for the tests to look at. */
export interface EngineRig {
  readonly site: FixtureSite
  readonly engine: BrowserEngine
  readonly events: EngineEvent[]
}

export function useEngine(options: (site: FixtureSite) => EngineOptions = () => ({})): EngineRig {
  const rig = {} as { site: FixtureSite; engine: BrowserEngine; events: EngineEvent[] }
  beforeAll(async () => {
    rig.site = await serveFixtureSite()
    rig.engine = new BrowserEngine({ executablePath: process.env.QUIRE_CHROMIUM ?? '/usr/bin/chromium', ...options(rig.site) })
    rig.events = []
    rig.engine.onEvent((event) => rig.events.push(event))
  })
  afterAll(async () => {
    await rig.engine?.stop()
    await rig.site?.close()
  })
  return rig
}

/**
 * An engine whose profile directory (the person's, `profileDir`, or the named profiles', `profilesDir`) is a fresh
 * one, removed once the engine has stopped. A file's own afterAll runs before the rig's (vitest runs after-hooks in
 * reverse), so removing it there raced a Chromium still writing to it (ENOTEMPTY).
 */
export function useEngineWithProfile(option: 'profileDir' | 'profilesDir' = 'profileDir'): EngineRig & { readonly directory: string } {
  const directory = mkdtempSync(join(tmpdir(), `quire-${option === 'profileDir' ? 'profile' : 'profiles'}-`))
  afterAll(() => rm(directory, { recursive: true, force: true }))
  return Object.assign(useEngine(() => ({ [option]: directory })), { directory })
}

/** Resolves when the engine emits an event matching `predicate`, or at once if it already has. */
export function eventually(rig: EngineRig, predicate: (event: EngineEvent) => boolean): Promise<EngineEvent> {
  const seen = rig.events.find(predicate)
  if (seen) return Promise.resolve(seen)
  return new Promise((resolve) => {
    const stop = rig.engine.onEvent((event) => {
      if (predicate(event)) {
        stop()
        resolve(event)
      }
    })
  })
}

/** The Chromium processes this test process started (their parent is us), found through /proc. */
export async function chromiumChildren(): Promise<number[]> {
  const pids: number[] = []
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '')
    // pid (comm) state ppid …; comm may hold spaces, so split after its closing parenthesis.
    const close = stat.lastIndexOf(')')
    const comm = stat.slice(stat.indexOf('(') + 1, close)
    const ppid = Number(stat.slice(close + 2).split(' ')[1])
    if (ppid === process.pid && /chrom/i.test(comm)) pids.push(Number(entry))
  }
  return pids
}

/** The BrowserError a call (or a function that may throw at once) ends with; fails the test if it ends any other way. */
export async function refusal(call: Promise<unknown> | (() => unknown)): Promise<BrowserError> {
  const error = await (typeof call === 'function' ? Promise.resolve().then(call) : call).then(() => null, (caught: unknown) => caught)
  if (!(error instanceof BrowserError)) throw new Error(`expected a BrowserError, got ${error instanceof Error ? error.message : JSON.stringify(error)}`)
  return error
}
