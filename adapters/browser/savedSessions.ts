import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto'
import { chmod, mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { z } from 'zod'
import { savedNameProblem } from '../../core/browser/savedNames.js'
import { BrowserError } from './errors.js'
import { findSecretTool, KeyFile, SecretToolKeyring, type KeySource, type KeySourceKind } from './sessionKeys.js'

/**
 * The saved browser sessions of one data directory (`browser.session_save` / `session_load`), encrypted at rest with
 * AES-256-GCM. A handle is its owner's (an agent's name, or the person's: core/browser/savedState.ts), so one
 * agent's "login" is not another's. One file per owner and handle, `<sha256(owner + "\n" + handle)>.session` (a
 * digest, so two handles differing only in case stay two files on a case-insensitive disk), mode 0600 in a folder
 * of mode 0700:
 *
 *   { header: {format, name, owner, profile?, origin, savedAt, cookies, localStorage, key}, iv, tag, data }
 *
 * The header (what the console lists: name, owner, origin, counts, and the named profile it was saved from) is
 * readable without the key and authenticated with the ciphertext as its additional data, so a changed header (its
 * owner or profile too) fails the load like changed ciphertext. `data` holds the cookies and localStorage items: no
 * value of a session is ever outside it. A session saved before handles had owners has none: it is at
 * `<sha256(handle)>.session`, listed and deleted by name, and loaded only by a call that names no owner.
 */

export const SESSION_FORMAT = 'quire.browser-session/1'

/** A cookie as Chromium reports it and takes it back (playwright-core's Cookie, its stable fields). */
export const sessionCookieSchema = z
  .object({
    name: z.string(),
    value: z.string(),
    domain: z.string(),
    path: z.string(),
    /** Seconds since the epoch; -1 for a cookie that ends with the browser session. */
    expires: z.number(),
    httpOnly: z.boolean(),
    secure: z.boolean(),
    sameSite: z.enum(['Strict', 'Lax', 'None']),
  })
  .strict()
export type SessionCookie = z.infer<typeof sessionCookieSchema>

const contentsSchema = z
  .object({
    cookies: z.array(sessionCookieSchema),
    localStorage: z.array(z.tuple([z.string(), z.string()])),
  })
  .strict()

/** What one tab's committed origin holds: its cookies and its localStorage items. */
export interface SessionSnapshot {
  readonly origin: string
  readonly cookies: readonly SessionCookie[]
  readonly localStorage: readonly (readonly [string, string])[]
}

const headerSchema = z
  .object({
    format: z.literal(SESSION_FORMAT),
    name: z.string(),
    owner: z.string().optional(),
    /** The named profile whose tab it was saved from: its logins, and its rules, go with it. */
    profile: z.string().optional(),
    origin: z.string(),
    savedAt: z.number().int(),
    cookies: z.number().int().min(0),
    localStorage: z.number().int().min(0),
    key: z.enum(['file', 'keyring']),
  })
  .strict()
type Header = z.infer<typeof headerSchema>

const fileSchema = z
  .object({
    header: headerSchema,
    iv: z.string(),
    tag: z.string(),
    data: z.string(),
  })
  .strict()

/** A saved session as the console lists it: never a value, only its name, owner, origin, when, and counts. */
export interface SavedSessionEntry {
  readonly name: string
  readonly owner?: string
  /** Saved from a tab of this named profile. */
  readonly profile?: string
  readonly origin: string
  readonly savedAt: number
  readonly cookies: number
  readonly localStorage: number
}

export interface SavedSessionsOptions {
  /** The store's folder (made 0700 on first save). */
  readonly dir: string
  /** The key file used when there is no keyring (default `<dir>/session.key`). */
  readonly keyFile?: string
  /** The OS keyring; null for none; `detect` (the default): `secret-tool` if it is on PATH. */
  readonly keyring?: KeySource | null | 'detect'
  readonly now?: () => number
}

/** The header's bytes in one fixed order: the additional data the tag covers (a session without owner as it always was). */
function headerBytes(header: Header): Buffer {
  const { format, name, owner, profile, origin, savedAt, cookies, localStorage, key } = header
  const owned = { ...(owner !== undefined ? { owner } : {}), ...(profile !== undefined ? { profile } : {}) }
  return Buffer.from(JSON.stringify({ format, name, ...owned, origin, savedAt, cookies, localStorage, key }), 'utf8')
}

/** The file name of `owner`'s session `name` (a session without owner: the digest of its name alone). */
function fileOf(owner: string | undefined, name: string): string {
  return `${createHash('sha256').update(owner === undefined ? name : `${owner}\n${name}`, 'utf8').digest('hex')}.session`
}

function checkName(name: string): void {
  const problem = savedNameProblem(name)
  if (problem !== undefined) throw new BrowserError('INVALID_ARGUMENT', `handle ${problem}`)
}

export class SavedSessions {
  readonly #dir: string
  readonly #file: KeyFile
  readonly #keyringOption: KeySource | null | 'detect'
  #keyringFound: Promise<KeySource | null> | undefined
  readonly #now: () => number

  constructor(options: SavedSessionsOptions) {
    this.#dir = options.dir
    this.#file = new KeyFile(options.keyFile ?? join(options.dir, 'session.key'))
    this.#keyringOption = options.keyring === undefined ? 'detect' : options.keyring
    this.#now = options.now ?? Date.now
  }

  /** The keyring, looked for once (on the first save or load that needs a key). */
  #keyring(): Promise<KeySource | null> {
    const option = this.#keyringOption
    if (option !== 'detect') return Promise.resolve(option)
    this.#keyringFound ??= findSecretTool().then((tool) => (tool === null ? null : new SecretToolKeyring(tool, this.#dir)))
    return this.#keyringFound
  }

  #path(name: string, owner: string | undefined): string {
    return join(this.#dir, fileOf(owner, name))
  }

  /**
   * The key a new save encrypts with: the key file once it exists (the store began with it), else the keyring when
   * there is one and it answers, else a new key file.
   */
  async #keyForSave(): Promise<{ kind: KeySourceKind; key: Buffer }> {
    const fromFile = await this.#file.read()
    if (fromFile) return { kind: 'file', key: fromFile }
    const keyring = await this.#keyring()
    if (keyring) {
      // A keyring that does not answer (locked, no session bus) leaves the store to its key file.
      const fromKeyring = await keyring.readOrCreate().catch(() => null)
      if (fromKeyring) return { kind: 'keyring', key: fromKeyring }
    }
    return { kind: 'file', key: await this.#file.readOrCreate() }
  }

  async #keyFor(kind: KeySourceKind, name: string): Promise<Buffer> {
    const source = kind === 'file' ? this.#file : await this.#keyring()
    if (!source) throw new BrowserError('SESSION_KEY_UNAVAILABLE', `session "${name}" was saved with a key in the OS keyring, and no keyring (secret-tool) is available now`)
    const key = await source.read()
    if (!key) throw new BrowserError('SESSION_KEY_UNAVAILABLE', `the key session "${name}" was saved with is gone (${kind === 'file' ? 'the key file was removed' : 'the keyring entry was removed'}); the session cannot be read`)
    return key
  }

  /**
   * Encrypts and keeps `snapshot` under `owner`'s `name`, replacing what was saved under it; answers the counts.
   * `profile`: the named profile whose tab it was saved from.
   */
  async save(name: string, snapshot: SessionSnapshot, options: { readonly owner?: string; readonly profile?: string } = {}): Promise<SavedSessionEntry> {
    checkName(name)
    await mkdir(this.#dir, { recursive: true, mode: 0o700 })
    await chmod(this.#dir, 0o700)
    const { kind, key } = await this.#keyForSave()
    const { owner, profile } = options
    const header: Header = {
      format: SESSION_FORMAT, name, ...(owner !== undefined ? { owner } : {}), ...(profile !== undefined ? { profile } : {}), origin: snapshot.origin,
      savedAt: this.#now(), cookies: snapshot.cookies.length, localStorage: snapshot.localStorage.length, key: kind,
    }
    const iv = randomBytes(12)
    const cipher = createCipheriv('aes-256-gcm', key, iv)
    cipher.setAAD(headerBytes(header))
    const plain = Buffer.from(JSON.stringify({ cookies: snapshot.cookies, localStorage: snapshot.localStorage }), 'utf8')
    const data = Buffer.concat([cipher.update(plain), cipher.final()])
    plain.fill(0)
    const text = JSON.stringify({ header, iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') })
    const target = this.#path(name, owner)
    const temporary = `${target}.${randomBytes(6).toString('hex')}.tmp`
    const handle = await open(temporary, 'wx', 0o600)
    try {
      await handle.writeFile(text)
      await handle.sync()
    } finally {
      await handle.close()
    }
    await chmod(temporary, 0o600)
    // Whole or not at all: a reader sees the old session or the new one, never half of one.
    await rename(temporary, target)
    return entryOf(header)
  }

  async #readFile(name: string, owner: string | undefined): Promise<z.infer<typeof fileSchema>> {
    checkName(name)
    let text: string
    try {
      text = await readFile(this.#path(name, owner), 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new BrowserError('SESSION_NOT_FOUND', `no saved session "${name}"`)
      throw error
    }
    let parsed: z.infer<typeof fileSchema>
    try {
      parsed = fileSchema.parse(JSON.parse(text))
    } catch {
      throw new BrowserError('SESSION_UNREADABLE', `the file of saved session "${name}" is not a saved session (it was changed or cut short)`)
    }
    if (parsed.header.name !== name || parsed.header.owner !== owner) {
      throw new BrowserError('SESSION_UNREADABLE', `the file of saved session "${name}" holds another session; it was moved or changed`)
    }
    return parsed
  }

  /** `owner`'s saved session's name, origin, profile and counts, read without the key (the checks before a load asks). */
  async describe(name: string, owner?: string): Promise<SavedSessionEntry> {
    return entryOf((await this.#readFile(name, owner)).header)
  }

  /**
   * The saved session, decrypted. Refused with SESSION_UNREADABLE when the key is not the one it was saved with or
   * any byte of the file (header included) was changed: nothing half-decrypted is ever answered.
   */
  async load(name: string, owner?: string): Promise<SessionSnapshot> {
    const file = await this.#readFile(name, owner)
    const key = await this.#keyFor(file.header.key, name)
    let plain: Buffer
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(file.iv, 'base64'))
      decipher.setAAD(headerBytes(file.header))
      decipher.setAuthTag(Buffer.from(file.tag, 'base64'))
      plain = Buffer.concat([decipher.update(Buffer.from(file.data, 'base64')), decipher.final()])
    } catch {
      throw new BrowserError('SESSION_UNREADABLE', `saved session "${name}" could not be decrypted: the key is not the one it was saved with, or the file was changed`)
    }
    let contents: z.infer<typeof contentsSchema>
    try {
      contents = contentsSchema.parse(JSON.parse(plain.toString('utf8')))
    } catch {
      throw new BrowserError('SESSION_UNREADABLE', `saved session "${name}" decrypted to something that is not a session`)
    } finally {
      plain.fill(0)
    }
    return { origin: file.header.origin, cookies: contents.cookies, localStorage: contents.localStorage }
  }

  /** Every saved session, by name: names, origins and counts only. A file that is not a session is left out. */
  async list(): Promise<SavedSessionEntry[]> {
    let names: string[]
    try {
      names = await readdir(this.#dir)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
      throw error
    }
    const entries: SavedSessionEntry[] = []
    for (const file of names.filter((entry) => /^[0-9a-f]{64}\.session$/.test(entry))) {
      const text = await readFile(join(this.#dir, file), 'utf8').catch(() => null)
      const parsed = text === null ? undefined : safeParse(text)
      if (parsed && fileOf(parsed.header.owner, parsed.header.name) === file) entries.push(entryOf(parsed.header))
    }
    return entries.sort((a, b) => a.name.localeCompare(b.name) || (a.owner ?? '').localeCompare(b.owner ?? ''))
  }

  /** Removes the saved sessions `name` (only `owner`'s, when given; every owner's otherwise); false when there was none. */
  async delete(name: string, owner?: string): Promise<boolean> {
    checkName(name)
    const owners = owner !== undefined ? [owner] : [undefined, ...(await this.list()).filter((entry) => entry.name === name).map((entry) => entry.owner)]
    let deleted = false
    for (const each of new Set(owners)) {
      try {
        await rm(this.#path(name, each))
        deleted = true
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
      }
    }
    return deleted
  }
}

function safeParse(text: string): z.infer<typeof fileSchema> | undefined {
  try {
    return fileSchema.parse(JSON.parse(text))
  } catch {
    return undefined
  }
}

function entryOf(header: Header): SavedSessionEntry {
  const { name, owner, profile, origin, savedAt, cookies, localStorage } = header
  return { name, ...(owner !== undefined ? { owner } : {}), ...(profile !== undefined ? { profile } : {}), origin, savedAt, cookies, localStorage }
}
