import type {
  BrowserInputSent, BrowserLocated, BrowserRecordings, BrowserRecordingStopped, BrowserRunCancelled, BrowserRuns, BrowserSaved,
  BrowserSavedDeleted, BrowserTabClosed, BrowserTabOpened, BrowserTabs, PersonInput,
} from '../../../adapters/http/consoleBrowserApi.js'
import { consoleRequest } from '../request.js'

/** The Browser view's calls to `/console/api/browser/*` (contract in adapters/http/consoleBrowserApi.ts). */
export class BrowserApi {
  tabs(): Promise<BrowserTabs> {
    return consoleRequest('GET', '/console/api/browser/tabs')
  }

  open(url: string): Promise<BrowserTabOpened> {
    return consoleRequest('POST', '/console/api/browser/tabs', { url })
  }

  navigate(tabId: string, url: string): Promise<BrowserTabOpened> {
    return consoleRequest('POST', `/console/api/browser/tabs/${encodeURIComponent(tabId)}/navigate`, { url })
  }

  close(tabId: string): Promise<BrowserTabClosed> {
    return consoleRequest('POST', `/console/api/browser/tabs/${encodeURIComponent(tabId)}/close`)
  }

  input(tabId: string, input: PersonInput): Promise<BrowserInputSent> {
    return consoleRequest('POST', `/console/api/browser/tabs/${encodeURIComponent(tabId)}/input`, { input })
  }

  locate(tabId: string, role: string, name: string): Promise<BrowserLocated> {
    const query = new URLSearchParams({ role, name })
    return consoleRequest('GET', `/console/api/browser/tabs/${encodeURIComponent(tabId)}/locate?${query}`)
  }

  runs(): Promise<BrowserRuns> {
    return consoleRequest('GET', '/console/api/browser/runs')
  }

  cancelRun(runId: string): Promise<BrowserRunCancelled> {
    return consoleRequest('POST', `/console/api/browser/runs/${encodeURIComponent(runId)}/cancel`)
  }

  saved(): Promise<BrowserSaved> {
    return consoleRequest('GET', '/console/api/browser/saved')
  }

  deleteSaved(kind: 'session' | 'profile', name: string): Promise<BrowserSavedDeleted> {
    return consoleRequest('POST', `/console/api/browser/${kind === 'session' ? 'sessions' : 'profiles'}/${encodeURIComponent(name)}/delete`)
  }

  recordings(): Promise<BrowserRecordings> {
    return consoleRequest('GET', '/console/api/browser/recordings')
  }

  stopRecording(tabId: string): Promise<BrowserRecordingStopped> {
    return consoleRequest('POST', `/console/api/browser/tabs/${encodeURIComponent(tabId)}/recording/stop`)
  }

  /** The tab's live frames (Server-Sent Events; the session cookie goes along, same origin). */
  frames(tabId: string): EventSource {
    return new EventSource(`/console/api/browser/tabs/${encodeURIComponent(tabId)}/frames`)
  }
}
