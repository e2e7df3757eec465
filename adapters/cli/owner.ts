import { readPortFile } from '../http/portFile.js'

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
