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
