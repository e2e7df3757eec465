import { randomBytes } from 'node:crypto'
import { open, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

/**
 * The port file: `{port}:{token}` in the data directory, mode 0600, so only the person's own processes can find
 * and talk to the daemon that owns the directory. Written atomically (temp, fsync, rename).
 */
export const portFilePath = (home: string): string => join(home, 'port')

export interface PortFile {
  readonly port: number
  readonly token: string
}

export const newAccessToken = (): string => `qp_${randomBytes(24).toString('base64url')}`

export async function writePortFile(home: string, contents: PortFile): Promise<void> {
  const path = portFilePath(home)
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`
  const handle = await open(temp, 'wx', 0o600)
  try {
    await handle.writeFile(`${contents.port}:${contents.token}\n`)
    await handle.sync()
  } finally {
    await handle.close()
  }
  await rename(temp, path)
  // Outlives the port file (removed when the server closes), so the next daemon can take the same port again.
  await writeFile(lastPortPath(home), `${contents.port}\n`)
}

/** The port the last server on this directory listened on (no secret: the token stays in the port file). */
export const lastPortPath = (home: string): string => join(home, 'last-port')

/**
 * The port a new daemon tries first, so the console's address and clients configured with it keep working across
 * restarts: the port file's (left behind by a server that was killed), else the last port any server here used.
 */
export async function previousPort(home: string): Promise<number | undefined> {
  const fromPortFile = await readPortFile(home)
  if (fromPortFile) return fromPortFile.port
  const text = await readFile(lastPortPath(home), 'utf8').catch(() => '')
  const match = /^(\d{1,5})\s*$/.exec(text)
  const port = match ? Number(match[1]) : 0
  return port > 0 && port < 65_536 ? port : undefined
}

export async function readPortFile(home: string): Promise<PortFile | undefined> {
  let text: string
  try {
    text = await readFile(portFilePath(home), 'utf8')
  } catch {
    return undefined
  }
  const match = /^(\d{1,5}):(\S+)\s*$/.exec(text)
  if (!match) return undefined
  const port = Number(match[1])
  return port > 0 && port < 65_536 ? { port, token: match[2]! } : undefined
}

export async function removePortFile(home: string): Promise<void> {
  await rm(portFilePath(home), { force: true })
}
