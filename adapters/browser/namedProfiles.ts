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
 * A profile is its agent's own: agent A's "work" and agent B's "work" are two profiles, so a login made through one
 * assistant is not another's (the person may share one: core/browser/profileShares.ts). The owner is the agent's
 * name, or `(person)` for the person's own MCP connections.
 *
 * On disk: `<dir>/<sha256(owner + "\n" + name)>/` (a digest, so names differing only in case stay apart on any disk),
 * mode 0700, holding `chromium/` (the profile itself) and `profile.json` (its name, owner, when it was made, the
 * origins opened in it: what the console lists, never a credential). A profile made before profiles had owners sits
 * at `<sha256(name)>/` with no owner: it is listed, and deleted with its name, but no agent opens it.
 */

const recordSchema = z
  .object({
    name: z.string(),
    owner: z.string().optional(),
    createdAt: z.number().int(),
    origins: z.array(z.string()),
  })
  .strict()
type ProfileRecord = z.infer<typeof recordSchema>

/** A named profile as the console lists it: its name, its agent, and the origins opened in it. */
export interface NamedProfileEntry {
  readonly name: string
  /** The agent whose profile it is; absent for one made before profiles had owners. */
  readonly owner?: string
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
  readonly onCrash: (owner: string, name: string) => void
  readonly now?: () => number
}

/** The most origins a profile's record lists (the newest kept): a listing, not a history. */
const ORIGINS_KEPT = 50

function checkName(name: string): void {
  const problem = savedNameProblem(name)
  if (problem !== undefined) throw new BrowserError('INVALID_ARGUMENT', `profile ${problem}`)
}

/** The key of one agent's profile: its folder's digest and the key of the maps of running profiles. */
export function profileKey(owner: string | undefined, name: string): string {
  return createHash('sha256').update(owner === undefined ? name : `${owner}\n${name}`, 'utf8').digest('hex')
}

export class NamedProfiles {
  readonly #options: NamedProfilesOptions
  readonly #open = new Map<string, PersonProfile>()
  readonly #starting = new Map<string, Promise<BrowserContext>>()

  constructor(options: NamedProfilesOptions) {
    this.#options = options
  }

  #folder(owner: string | undefined, name: string): string {
    return join(this.#options.dir, profileKey(owner, name))
  }

  get running(): boolean {
    return [...this.#open.values()].some((profile) => profile.running)
  }

  /** `owner`'s profile's context, its Chromium started (and its folder made) on first use; two first opens start one. */
  context(owner: string, name: string): Promise<BrowserContext> {
    checkName(name)
    const key = profileKey(owner, name)
    const running = this.#open.get(key)
    if (running?.running) return running.context()
    const starting = this.#starting.get(key)
    if (starting) return starting
    const launch = (async () => {
      const folder = this.#folder(owner, name)
      await mkdir(join(folder, 'chromium'), { recursive: true, mode: 0o700 })
      await chmod(folder, 0o700)
      if ((await this.#record(folder)) === undefined) await this.#write(folder, { name, owner, createdAt: (this.#options.now ?? Date.now)(), origins: [] })
      const { executablePath, args, viewport, prepare, onCrash } = this.#options
      const profile = new PersonProfile({
        profileDir: join(folder, 'chromium'), executablePath, args, viewport, prepare, label: `the browser profile "${name}"`,
        onCrash: () => onCrash(owner, name),
      })
      this.#open.set(key, profile)
      return profile.context()
    })().finally(() => this.#starting.delete(key))
    this.#starting.set(key, launch)
    return launch
  }

  /** Notes that `origin` was opened in `owner`'s profile, for the listing. */
  async noteOrigin(owner: string, name: string, origin: string): Promise<void> {
    const folder = this.#folder(owner, name)
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
      if (record && profileKey(record.owner, record.name) === folder) {
        entries.push({ ...record, running: this.#open.get(folder)?.running ?? false })
      }
    }
    return entries.sort((a, b) => a.name.localeCompare(b.name) || (a.owner ?? '').localeCompare(b.owner ?? ''))
  }

  /**
   * Stops the Chromium of each profile named `name` (of `owner` only, when given) and removes it with its logins;
   * false when there was none.
   */
  async delete(name: string, owner?: string): Promise<boolean> {
    checkName(name)
    const doomed = (await this.list()).filter((entry) => entry.name === name && (owner === undefined || entry.owner === owner))
    for (const entry of doomed) {
      const key = profileKey(entry.owner, entry.name)
      await this.#starting.get(key)?.catch(() => undefined)
      await this.#close(key)
      await rm(this.#folder(entry.owner, entry.name), { recursive: true, force: true })
    }
    return doomed.length > 0
  }

  async #close(key: string): Promise<void> {
    const profile = this.#open.get(key)
    this.#open.delete(key)
    await profile?.close()
  }

  async closeAll(): Promise<void> {
    const open = [...this.#open.values()]
    this.#open.clear()
    await Promise.all(open.map((profile) => profile.close()))
  }
}
