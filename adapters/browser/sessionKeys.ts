import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import { access, chmod, open, readFile, stat } from 'node:fs/promises'
import { delimiter, join } from 'node:path'
import { BrowserError } from './errors.js'

/**
 * Where the saved-session store's AES-256 key lives: the OS keyring through `secret-tool` (libsecret) when one is
 * installed, otherwise a key file of its own, mode 0600, made on first use. Each saved session names the source its
 * key came from, so a session stays readable whichever source a later save would pick.
 */
export const KEY_BYTES = 32

export type KeySourceKind = 'file' | 'keyring'

export interface KeySource {
  readonly kind: KeySourceKind
  /** The key, or null when none was made yet. */
  read(): Promise<Buffer | null>
  /** The key, made and kept now if there was none. */
  readOrCreate(): Promise<Buffer>
}

function decodeKey(text: string, where: string): Buffer {
  const key = Buffer.from(text.trim(), 'base64')
  if (key.length !== KEY_BYTES || key.toString('base64') !== text.trim()) {
    throw new BrowserError('SESSION_KEY_UNAVAILABLE', `${where} does not hold a session key (${KEY_BYTES} bytes in base64)`)
  }
  return key
}

/** The key file: created exclusively with mode 0600; refused when others may read it (the key would not be secret). */
export class KeyFile implements KeySource {
  readonly kind = 'file'

  constructor(readonly path: string) {}

  async read(): Promise<Buffer | null> {
    let mode: number
    try {
      mode = (await stat(this.path)).mode
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
      throw error
    }
    if ((mode & 0o077) !== 0) {
      throw new BrowserError('SESSION_KEY_UNAVAILABLE', `the session key file ${this.path} may be read by other users (mode ${(mode & 0o777).toString(8)}); run chmod 600 on it`)
    }
    return decodeKey(await readFile(this.path, 'utf8'), `the session key file ${this.path}`)
  }

  async readOrCreate(): Promise<Buffer> {
    const existing = await this.read()
    if (existing) return existing
    const key = randomBytes(KEY_BYTES)
    let handle
    try {
      // `wx`: of two first saves at once, one makes the file and the other reads it.
      handle = await open(this.path, 'wx', 0o600)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return (await this.read())!
      throw error
    }
    try {
      await handle.writeFile(`${key.toString('base64')}\n`)
      await handle.sync()
    } finally {
      await handle.close()
    }
    // The umask can only take bits away from 0600; set it anyway, so the file is 0600 whatever made it.
    await chmod(this.path, 0o600)
    return key
  }
}

/** `secret-tool` on PATH, or null. */
export async function findSecretTool(path: string | undefined = process.env.PATH): Promise<string | null> {
  for (const dir of (path ?? '').split(delimiter)) {
    if (dir === '') continue
    const candidate = join(dir, 'secret-tool')
    if (await access(candidate, constants.X_OK).then(() => true, () => false)) return candidate
  }
  return null
}

interface Ran {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

const SECRET_TOOL_MS = 10_000

function run(executable: string, args: readonly string[], input: string): Promise<Ran> {
  return new Promise((resolve, reject) => {
    // No shell: the attributes are arguments, the secret goes through stdin only (never on a command line).
    const child = spawn(executable, args, { stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    const timer = setTimeout(() => child.kill('SIGKILL'), SECRET_TOOL_MS)
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    child.on('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
    // A tool that exits before reading its stdin (lookup needs none) must not take the process down with EPIPE.
    child.stdin.on('error', () => undefined)
    child.stdin.end(input)
  })
}

/**
 * The key in the OS keyring, one entry per store (its attributes name the store's folder), through libsecret's
 * `secret-tool`: `lookup` prints the secret and exits 0, or exits 1 with nothing on stderr when there is none;
 * `store` reads the secret from stdin.
 */
export class SecretToolKeyring implements KeySource {
  readonly kind = 'keyring'

  constructor(
    private readonly executable: string,
    /** The store's folder: keys of two data directories never mix. */
    private readonly store: string,
  ) {}

  #attributes(): string[] {
    return ['application', 'quire', 'purpose', 'browser-sessions', 'store', this.store]
  }

  async read(): Promise<Buffer | null> {
    const found = await run(this.executable, ['lookup', ...this.#attributes()], '').catch((error: Error) => {
      throw new BrowserError('SESSION_KEY_UNAVAILABLE', `the OS keyring could not be asked (secret-tool): ${error.message}`)
    })
    if (found.code === 0 && found.stdout.trim() !== '') return decodeKey(found.stdout, 'the OS keyring entry for the session store')
    if (found.code === 1 && found.stderr.trim() === '') return null
    throw new BrowserError('SESSION_KEY_UNAVAILABLE', `the OS keyring did not answer (secret-tool lookup exited ${found.code}): ${found.stderr.trim().split('\n', 1)[0] ?? ''}`)
  }

  async readOrCreate(): Promise<Buffer> {
    const existing = await this.read()
    if (existing) return existing
    const key = randomBytes(KEY_BYTES)
    const stored = await run(this.executable, ['store', `--label=Quire browser sessions (${this.store})`, ...this.#attributes()], key.toString('base64')).catch((error: Error) => {
      throw new BrowserError('SESSION_KEY_UNAVAILABLE', `the OS keyring could not be asked (secret-tool): ${error.message}`)
    })
    if (stored.code !== 0) {
      throw new BrowserError('SESSION_KEY_UNAVAILABLE', `the OS keyring did not keep the key (secret-tool store exited ${stored.code}): ${stored.stderr.trim().split('\n', 1)[0] ?? ''}`)
    }
    // Read back what the keyring kept, so a key that did not survive the round trip is never used to encrypt.
    const kept = await this.read()
    if (!kept || !kept.equals(key)) throw new BrowserError('SESSION_KEY_UNAVAILABLE', 'the OS keyring did not give back the key it was given')
    return kept
  }
}
