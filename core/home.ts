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

/** What Quire keeps in its data directory: the log (LevelDB), the owner's pid, the port file and their temp files. */
const isQuireEntry = (name: string): boolean =>
  name === 'log' || name === 'owner.pid' || name === 'port' || name === 'log-space-probe' || (name.startsWith('port.') && name.endsWith('.tmp'))

/**
 * Makes the data directory the person's alone (issue 11, finding 6): creates it 0700 if needed, and tightens what an
 * earlier version (or another umask) left: the directory itself to 0700, and Quire's own entries in it — every
 * directory 0700, every file 0600, symlinks untouched. Anything else a person keeps there is theirs and left as it
 * is, so `--home` pointed at a folder with other things in it loses none of their permissions. New files stay
 * private because the process runs with umask 077 (adapters/fs/fileModes.ts).
 */
export async function makeHomePrivate(home: string): Promise<void> {
  await mkdir(home, { recursive: true, mode: 0o700 })
  await restrict(home, 0o700)
  for (const name of await readdir(home)) if (isQuireEntry(name)) await tighten(join(home, name))
}

async function tighten(path: string): Promise<void> {
  const info = await lstat(path).catch(() => undefined)
  if (info?.isDirectory()) {
    await restrict(path, 0o700)
    for (const name of await readdir(path).catch(() => [])) await tighten(join(path, name))
  } else if (info?.isFile()) {
    await restrict(path, 0o600)
  }
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
