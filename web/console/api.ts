import type { ConsoleActivation, ConsoleError, ConsoleState } from '../../adapters/http/consoleApi.js'

/** The server refused the session: this browser was never signed in, or the daemon restarted since. */
export class UnauthorizedError extends Error {}

/** The console's calls to `/console/api/*` (contract in adapters/http/consoleApi.ts). */
export class ConsoleApi {
  state(): Promise<ConsoleState> {
    return this.call<ConsoleState>('GET', '/console/api/state')
  }

  /** The person switches to a tab: the server makes it current in its window (and its workspace, with the rail). */
  activate(tabId: string): Promise<ConsoleActivation> {
    return this.call<ConsoleActivation>('POST', `/console/api/tabs/${encodeURIComponent(tabId)}/activate`)
  }

  private async call<T>(method: 'GET' | 'POST', path: string): Promise<T> {
    // The session cookie goes with the request on its own (same origin); no credential is held here.
    const response = await fetch(path, { method, cache: 'no-store' })
    if (response.status === 401) throw new UnauthorizedError('the console link is no longer valid')
    const body: unknown = await response.json()
    if (!response.ok) {
      const error = body as Partial<ConsoleError>
      throw new Error(`${error.error ?? response.status}: ${error.message ?? response.statusText}`)
    }
    return body as T
  }
}
