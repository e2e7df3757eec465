import type {
  CoherenceBreakdown, CoherenceGranted, CoherenceGrantRequest, CoherenceGrants, CoherenceResolved, CoherenceResolveRequest,
  CoherenceWorkspaces,
} from '../../../adapters/http/consoleCoherenceApi.js'
import { consoleRequest } from '../request.js'

/** The Coherence panel's calls (contract in adapters/http/consoleCoherenceApi.ts), as the person (the session cookie). */
export class CoherenceApi {
  workspaces(): Promise<CoherenceWorkspaces> {
    return consoleRequest('GET', '/console/api/coherence/workspaces')
  }

  breakdown(root: string): Promise<CoherenceBreakdown> {
    return consoleRequest('GET', `/console/api/coherence/breakdown?root=${encodeURIComponent(root)}`)
  }

  resolve(request: CoherenceResolveRequest): Promise<CoherenceResolved> {
    return consoleRequest('POST', '/console/api/coherence/resolve', request)
  }

  grants(root: string): Promise<CoherenceGrants> {
    return consoleRequest('GET', `/console/api/coherence/grants?root=${encodeURIComponent(root)}`)
  }

  grant(request: CoherenceGrantRequest): Promise<CoherenceGranted> {
    return consoleRequest('POST', '/console/api/coherence/grants', request)
  }

  revoke(root: string, delegation: string): Promise<CoherenceGrants> {
    return consoleRequest('POST', `/console/api/coherence/grants/${encodeURIComponent(delegation)}/revoke`, { root })
  }
}
