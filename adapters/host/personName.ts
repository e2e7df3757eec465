import { execFile } from 'node:child_process'

/** A git that hangs (a credential helper, a network home) must not hold up a grant. */
const GIT_TIMEOUT_MS = 2_000
const FALLBACK = 'unknown-human'

/**
 * The person's name as the coherence ledger records a human actor (VMark's rule: `git config user.name` in the
 * workspace, else $USER or $USERNAME, else "unknown-human"). Git failing for any reason — not installed, not a
 * repository, no name set, too slow — falls through to the environment.
 */
export async function personName(workspace: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const fromGit = await gitUserName(workspace)
  if (fromGit !== undefined) return fromGit
  for (const variable of ['USER', 'USERNAME']) {
    const value = env[variable]?.trim()
    if (value) return value
  }
  return FALLBACK
}

function gitUserName(workspace: string | undefined): Promise<string | undefined> {
  return new Promise((resolve) => {
    try {
      execFile(
        'git',
        ['config', 'user.name'],
        { cwd: workspace, timeout: GIT_TIMEOUT_MS, windowsHide: true, encoding: 'utf8' },
        (error, stdout) => resolve(error ? undefined : stdout.trim() || undefined),
      )
    } catch {
      // A cwd that vanished makes execFile throw synchronously on some platforms.
      resolve(undefined)
    }
  })
}
