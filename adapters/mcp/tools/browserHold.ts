import { askBeforeLoading, holdRequest } from '../../../core/browser/hold.js'
import { savedStateOwner } from '../../../core/browser/savedState.js'
import type { LoadedNavigation } from '../../browser/engine.js'
import { BrowserError } from '../../browser/errors.js'
import { authorize, BrowserRefusal, type ActionTrace } from '../browserCalls.js'
import type { ToolContext } from '../context.js'

/**
 * The MCP side of a held tab (core/browser/hold.ts: a Shared-posture tab, or a named profile's). Before an
 * assistant's navigation loads a new origin in one, the person is asked; a hop the engine's guard stopped on the way
 * (a redirect, or the page moving on as it loaded) asks for that hop's origin the same way, and once approved the
 * navigation is made again. Refused, the answer is `NOT_GRANTED` naming the request and the hop, with the retry on
 * that tab (BR.GEN.9, APPR.8, BR.OPEN.5, BR.OPEN.8).
 */

/** Asks the person before `tabId` loads `target` when its hold needs it, and lets the tab load that origin once approved. */
export async function askToLoad(context: ToolContext, principal: string, tabId: string, currentUrl: string | null, target: string, trace: ActionTrace): Promise<void> {
  const engine = context.services.browser
  // A URL no tab may load (the daemon's own) is refused before the person is asked about it.
  engine.checkDestination(target)
  const request = askBeforeLoading(engine.holdOf(principal, tabId), tabId, currentUrl, target, savedStateOwner(context.caller.principal))
  if (request === undefined) return
  await authorize(context, request, trace)
  engine.approveOrigin(principal, tabId, request.origin)
}

/** Every origin of a redirect chain may be asked for once per call: a chain this long is not a sign-in. */
const HOPS_ASKED_AT_MOST = 5

/**
 * Runs `load` (an open or a navigate to `url`); each hop to an origin the person has not approved for the tab asks
 * for it and, approved, navigates the tab to `url` again.
 */
export async function followingApprovals(
  context: ToolContext,
  principal: string,
  trace: ActionTrace,
  url: string,
  timeoutMs: number | undefined,
  load: () => Promise<LoadedNavigation>,
): Promise<LoadedNavigation> {
  const engine = context.services.browser
  const asked = new Set<string>()
  for (let next = load; ;) {
    try {
      return await next()
    } catch (error) {
      if (!(error instanceof BrowserError) || error.code !== 'DESTINATION_NOT_APPROVED') throw error
      const { tabId, origin, url: hop } = error.data as { tabId: string; origin: string; url: string }
      const hold = engine.holdOf(principal, tabId)
      if (hold === undefined || asked.has(origin) || asked.size >= HOPS_ASKED_AT_MOST) throw error
      asked.add(origin)
      trace.tabId = tabId
      try {
        await authorize(context, holdRequest(hold, tabId, origin, savedStateOwner(context.caller.principal)), trace)
      } catch (refused) {
        if (!(refused instanceof BrowserRefusal)) throw refused
        throw new BrowserRefusal(refused.token, `the navigation reached ${hop}, not approved for this tab: nothing was sent there; ${refused.reason}`, {
          ...refused.data, blocked: { url: hop, origin }, retry: { action: 'navigate', tabId },
        })
      }
      engine.approveOrigin(principal, tabId, origin)
      next = () => engine.navigate(principal, tabId, url, { timeoutMs })
    }
  }
}
