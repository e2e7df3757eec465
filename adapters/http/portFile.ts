import { randomBytes } from 'node:crypto'
import { open, readFile, rename, rm } from 'node:fs/promises'
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
