import { chmod, lstat, mkdir, readdir } from 'node:fs/promises'
import { homedir } from 'node:os'
import { join, resolve } from 'node:path'

/**
 * The data directory: `--home DIR`, else `$QUIRE_HOME`, else the XDG data directory
 * (`$XDG_DATA_HOME/quire`, defaulting to `~/.local/share/quire`).
 */
export function resolveHome(explicit?: string, env: NodeJS.ProcessEnv = process.env): string {
  if (explicit) return resolve(explicit)
  if (env.QUIRE_HOME) return resolve(env.QUIRE_HOME)
  const dataHome = env.XDG_DATA_HOME && env.XDG_DATA_HOME.startsWith('/') ? env.XDG_DATA_HOME : join(homedir(), '.local', 'share')
  return join(dataHome, 'quire')
}

/** Quire's LevelDB directories (the log, the read models): all Quire's, every level of them. */
const LOG_DIRECTORY = 'log'
export const READ_MODELS_DIRECTORY = 'readmodels'
const WALKED = new Set([LOG_DIRECTORY, READ_MODELS_DIRECTORY])

/**
 * Makes the data directory the person's alone (issue 11, finding 6): creates it 0700 if needed, and takes from what an
 * earlier version (or another umask) left every permission of the group and of others, keeping the owner's: the
 * directory itself, every entry in it (files 0644 become 0600, directories 0755 become 0700; whatever Quire keeps
 * there — the port file, the owner's pid, files later versions add), and everything in the log's and the read models'
 * directories, at every level. Symlinks are left alone. Other directories are tightened themselves but not walked: with the data directory
 * at 0700 nobody else can reach inside them anyway, and a `--home` pointed at a folder with other things in it keeps
 * their owner's permissions (no lost execute bit). New files stay private because the process runs with umask 077
 * (adapters/fs/fileModes.ts).
 */
export async function makeHomePrivate(home: string): Promise<void> {
  await mkdir(home, { recursive: true, mode: 0o700 })
  await ownerOnly(home)
  for (const name of await readdir(home)) await ownerOnly(join(home, name), WALKED.has(name))
}

/** Drops the group's and others' permission bits of `path` (and, when `walk`, of everything below it). */
async function ownerOnly(path: string, walk = false): Promise<void> {
  const info = await lstat(path).catch(() => undefined)
  if (!info || info.isSymbolicLink()) return
  if ((info.mode & 0o077) !== 0) await restrict(path, info.mode & 0o7700)
  if (walk && info.isDirectory()) for (const name of await readdir(path).catch(() => [])) await ownerOnly(join(path, name), true)
}

/**
 * chmod, except where it cannot apply: an entry gone meanwhile has nothing to protect, and one owned by someone else
 * (a data directory another user shares for reading, say) is theirs to set; either way the command still runs.
 */
async function restrict(path: string, mode: number): Promise<void> {
  await chmod(path, mode).catch((error: { code?: string }) => {
    if (error.code !== 'ENOENT' && error.code !== 'EPERM') throw error
  })
}
