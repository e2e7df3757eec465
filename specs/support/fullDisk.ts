import { execFileSync } from 'node:child_process'
import { mkdtemp, open, rmdir } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * A small tmpfs for the full-disk tests: a filesystem that really fills up, which an injected failure cannot stand in
 * for (LevelDB makes a failed synced write sticky). Mounting needs root or CAP_SYS_ADMIN (CI runs as root); where it
 * is impossible the test fails and says so, it never skips.
 */
export async function mountTmpfs(prefix: string, size: string): Promise<string> {
  const mountPoint = await mkdtemp(join(tmpdir(), prefix))
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', mountPoint], { stdio: 'pipe' })
  } catch (error) {
    throw new Error(
      `this test needs a small tmpfs to fill, and mounting one at ${mountPoint} failed ` +
        `(it needs root or CAP_SYS_ADMIN): ${(error as { stderr?: Buffer }).stderr?.toString().trim() ?? (error as Error).message}`,
    )
  }
  return mountPoint
}

export async function unmountTmpfs(mountPoint: string | undefined): Promise<void> {
  if (!mountPoint) return
  try {
    execFileSync('umount', [mountPoint], { stdio: 'pipe' })
  } catch {
    execFileSync('umount', ['-l', mountPoint], { stdio: 'pipe' })
  }
  await rmdir(mountPoint)
}

/** Writes zeros into `path` until the filesystem refuses, down to single bytes; returns the bytes written. */
export async function fill(path: string): Promise<number> {
  const file = await open(path, 'a')
  let written = 0
  try {
    for (const size of [1 << 20, 1 << 16, 1 << 12, 1 << 9, 1]) {
      const zeros = new Uint8Array(size)
      for (;;) {
        try {
          await file.write(zeros)
          written += size
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error
          break
        }
      }
    }
  } finally {
    await file.close()
  }
  return written
}
