import type {
  PanelAgentAdded, PanelAgents, PanelApprovalDecided, PanelApprovals, PanelApprovalScope, PanelDivergences, PanelSettingChange, PanelSettings,
} from '../../../adapters/http/consolePanelsApi.js'
import { consoleRequest } from '../request.js'

/**
 * The panels' calls to `/console/api/panels/*` (contract in adapters/http/consolePanelsApi.ts), with the same port
 * file token as the rest of the console. A refused token is left to the console app, which signs out on its next poll.
 */
export class PanelsApi {

  approvals(): Promise<PanelApprovals> {
    return this.call('GET', '/panels/approvals')
  }

  decide(approvalId: string, decision: 'approve' | 'deny', scope?: PanelApprovalScope): Promise<PanelApprovalDecided> {
    return this.call('POST', `/panels/approvals/${encodeURIComponent(approvalId)}/${decision}${scope ? `?scope=${scope}` : ''}`)
  }

  settings(): Promise<PanelSettings> {
    return this.call('GET', '/panels/settings')
  }

  setSetting(change: PanelSettingChange): Promise<PanelSettings> {
    return this.call('POST', '/panels/settings', change)
  }

  divergences(): Promise<PanelDivergences> {
    return this.call('GET', '/panels/divergences')
  }

  resolveDivergence(docId: string, choice: 'keep' | 'reload'): Promise<PanelDivergences> {
    return this.call('POST', `/panels/divergences/${encodeURIComponent(docId)}/${choice}`)
  }

  agents(): Promise<PanelAgents> {
    return this.call('GET', '/panels/agents')
  }

  addAgent(name: string): Promise<PanelAgentAdded> {
    return this.call('POST', '/panels/agents', { name })
  }

  revokeAgent(name: string): Promise<PanelAgents> {
    return this.call('POST', `/panels/agents/${encodeURIComponent(name)}/revoke`)
  }

  endAgentSession(name: string, session: string): Promise<PanelAgents> {
    return this.call('POST', `/panels/agents/${encodeURIComponent(name)}/sessions/${encodeURIComponent(session)}/end`)
  }

  private call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    return consoleRequest<T>(method, `/console/api${path}`, body)
  }

}
