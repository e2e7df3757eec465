import type { ConsoleError } from '../../adapters/http/consoleApi.js'

/**
 * One call to the console's JSON API as the person: the browser sends the session cookie itself (HttpOnly: this
 * script never holds a credential). The body as JSON when there is one, never cached, and a refusal turned into an
 * Error carrying the server's code and message.
 */
export async function consoleRequest<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = {}
  if (body !== undefined) headers['content-type'] = 'application/json'
  const response = await fetch(path, { method, headers, cache: 'no-store', ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
  const answer: unknown = await response.json().catch(() => ({}))
  if (!response.ok) {
    const error = answer as Partial<ConsoleError>
    throw new Error(`${error.error ?? response.status}: ${error.message ?? response.statusText}`)
  }
  return answer as T
}
