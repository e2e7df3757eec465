import { createHash } from 'node:crypto'
import { chmod, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { BrowserContext } from 'playwright-core'
import { z } from 'zod'
import { savedNameProblem } from '../../core/browser/savedNames.js'
import { BrowserError } from './errors.js'
import { PersonProfile } from './personProfile.js'

/**
 * The named browser profiles of one data directory (`browser.open {profile}`, BR.OPEN.4–5): each a persistent
 * Chromium context whose cookies and storage outlast the daemon, so a login made in it once is there the next time
 * it is opened by name. Several may be open at once, beside the Sandbox browser and the person's own profile: each is
 * a Chromium of its own (Playwright opens a persistent context only that way), started on first open and stopped
 * with the engine or when the profile is deleted.
 *
 * On disk: `<dir>/<sha256(name)>/` (a digest, so names differing only in case stay apart on any disk), mode 0700,
 * holding `chromium/` (the profile itself) and `profile.json` (its name, when it was made, the origins opened in it:
 * what the console lists, never a credential).
 */

const recordSchema = z
  .object({
    name: z.string(),
    createdAt: z.number().int(),
    origins: z.array(z.string()),
  })
  .strict()
type ProfileRecord = z.infer<typeof recordSchema>

/** A named profile as the console lists it: its name and the origins opened in it. */
export interface NamedProfileEntry {
  readonly name: string
  readonly createdAt: number
  readonly origins: readonly string[]
  /** Its Chromium is running now (a tab of it may be open). */
  readonly running: boolean
}

export interface NamedProfilesOptions {
  readonly dir: string
  readonly executablePath: string
  readonly args: readonly string[]
  readonly viewport: { readonly width: number; readonly height: number }
  readonly prepare: (context: BrowserContext) => void
  /** The profile's Chromium went away without being asked to. */
  readonly onCrash: (name: string) => void
  readonly now?: () => number
}

/** The most origins a profile's record lists (the newest kept): a listing, not a history. */
const ORIGINS_KEPT = 50

function checkName(name: string): void {
  const problem = savedNameProblem(name)
  if (problem !== undefined) throw new BrowserError('INVALID_ARGUMENT', `profile ${problem}`)
}

export class NamedProfiles {
  readonly #options: NamedProfilesOptions
  readonly #open = new Map<string, PersonProfile>()
  readonly #starting = new Map<string, Promise<BrowserContext>>()

  constructor(options: NamedProfilesOptions) {
    this.#options = options
  }

  #folder(name: string): string {
    return join(this.#options.dir, createHash('sha256').update(name, 'utf8').digest('hex'))
  }

  get running(): boolean {
    return [...this.#open.values()].some((profile) => profile.running)
  }

  /** The profile's context, its Chromium started (and its folder made) on first use; two first opens start one. */
  context(name: string): Promise<BrowserContext> {
    checkName(name)
    const running = this.#open.get(name)
    if (running?.running) return running.context()
    const starting = this.#starting.get(name)
    if (starting) return starting
    const launch = (async () => {
      const folder = this.#folder(name)
      await mkdir(join(folder, 'chromium'), { recursive: true, mode: 0o700 })
      await chmod(folder, 0o700)
      if ((await this.#record(folder)) === undefined) await this.#write(folder, { name, createdAt: (this.#options.now ?? Date.now)(), origins: [] })
      const { executablePath, args, viewport, prepare, onCrash } = this.#options
      const profile = new PersonProfile({
        profileDir: join(folder, 'chromium'), executablePath, args, viewport, prepare, label: `the browser profile "${name}"`,
        onCrash: () => onCrash(name),
      })
      this.#open.set(name, profile)
      return profile.context()
    })().finally(() => this.#starting.delete(name))
    this.#starting.set(name, launch)
    return launch
  }

  /** Notes that `origin` was opened in the profile, for the listing. */
  async noteOrigin(name: string, origin: string): Promise<void> {
    const folder = this.#folder(name)
    const record = await this.#record(folder)
    if (!record || record.origins.includes(origin)) return
    await this.#write(folder, { ...record, origins: [...record.origins, origin].slice(-ORIGINS_KEPT) })
  }

  async #record(folder: string): Promise<ProfileRecord | undefined> {
    const text = await readFile(join(folder, 'profile.json'), 'utf8').catch(() => undefined)
    if (text === undefined) return undefined
    try {
      return recordSchema.parse(JSON.parse(text))
    } catch {
      return undefined
    }
  }

  async #write(folder: string, record: ProfileRecord): Promise<void> {
    const temporary = join(folder, 'profile.json.tmp')
    await writeFile(temporary, JSON.stringify(record), { mode: 0o600 })
    await rename(temporary, join(folder, 'profile.json'))
  }

  /** Every named profile of the data directory, by name. */
  async list(): Promise<NamedProfileEntry[]> {
    const folders = await readdir(this.#options.dir).catch(() => [] as string[])
    const entries: NamedProfileEntry[] = []
    for (const folder of folders.filter((entry) => /^[0-9a-f]{64}$/.test(entry))) {
      const record = await this.#record(join(this.#options.dir, folder))
      if (record && this.#folder(record.name).endsWith(folder)) {
        entries.push({ ...record, running: this.#open.get(record.name)?.running ?? false })
      }
    }
    return entries.sort((a, b) => a.name.localeCompare(b.name))
  }

  /** Stops the profile's Chromium (if running) and removes the profile with its logins; false when there was none. */
  async delete(name: string): Promise<boolean> {
    checkName(name)
    await this.#starting.get(name)?.catch(() => undefined)
    await this.close(name)
    const folder = this.#folder(name)
    const existed = (await this.#record(folder)) !== undefined
    await rm(folder, { recursive: true, force: true })
    return existed
  }

  async close(name: string): Promise<void> {
    const profile = this.#open.get(name)
    this.#open.delete(name)
    await profile?.close()
  }

  async closeAll(): Promise<void> {
    const open = [...this.#open.values()]
    this.#open.clear()
    await Promise.all(open.map((profile) => profile.close()))
  }
}
