import { readPortFile } from '../http/portFile.js'
import type { Services } from '../host/services.js'

/**
 * Talking to the process that owns a data directory. A daemon (or an embedded `quire mcp`) holds the directory's
 * lock, so the person's commands go to it over its loopback HTTP admin API, with the port file's access token.
 */
export interface OwnerClient {
  readonly url: string
  request<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T>
}

export class OwnerRequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

/** A client for the live owner of `home`, or undefined when no process answers on the port file's address. */
export async function findOwner(home: string): Promise<OwnerClient | undefined> {
  const portFile = await readPortFile(home)
  if (!portFile) return undefined
  const url = `http://127.0.0.1:${portFile.port}`
  const client: OwnerClient = {
    url,
    async request<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: { authorization: `Bearer ${portFile.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      })
      const payload = (await response.json().catch(() => ({}))) as { error?: string; message?: string }
      if (!response.ok) throw new OwnerRequestError(response.status, payload.error ?? 'ERROR', payload.message ?? payload.error ?? `HTTP ${response.status}`)
      return payload as T
    },
  }
  try {
    await client.request('GET', '/admin/status')
    return client
  } catch {
    // A stale port file from a process that is gone.
    return undefined
  }
}

/**
 * A person's command, through the process that owns `home` when one runs, else on the directory itself. The host
 * (the whole core) is loaded only in the second case: a command the daemon answers starts without it.
 */
export async function withOwner<T>(home: string, remote: (owner: OwnerClient) => Promise<T>, local: (services: Services) => Promise<T>): Promise<T> {
  const owner = await findOwner(home)
  if (owner) return remote(owner)
  const { openQuire } = await import('../host/quire.js')
  // A person's command holds the directory for a moment: watching files for it would only race its close.
  const quire = await openQuire(home, { watchDisk: false })
  try {
    return await local(quire.services)
  } finally {
    await quire.close()
  }
}
