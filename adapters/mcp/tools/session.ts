import { standingGrant } from '../../../core/browser/grants.js'
import { originOnly } from '../../../core/browser/url.js'
import { sessionView } from '../../../projections/session/sessionView.js'
import { enginePrincipal } from '../browserCalls.js'
import type { ToolContext } from '../context.js'
import { defineTool } from '../defineTool.js'
import { SESSION_OUTPUTS } from './outputs/session.js'
import { RECOVERY } from '../results.js'

export const SUPPORTED_KINDS = ['markdown', 'yaml-workflow'] as const
export const MCP_PROTOCOL = '0.2.0'

/** `session.get_state`: every window and tab, and the server's capabilities, in one read-only call (SES.*). */
export const sessionTool = defineTool({
  name: 'session',
  title: 'Quire session state',
  description:
    'One-shot orientation: every document window, each tab with {id, filePath, title, dirty, revision, kind, active, ' +
    'visible}, your embedded-browser tabs ({id, kind: "browser", url, title, loading, generation, automationMode}), and ' +
    'the server capabilities. Call once at the start; pass a tab\'s revision as expected_revision.',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  args: {},
  outputs: SESSION_OUTPUTS,
  actions: (action) => ({
    get_state: action({ recovery: RECOVERY.sessionGetState, run: (_args, context) => sessionState(context) }),
  }),
})

export async function sessionState(context: ToolContext): Promise<Record<string, unknown>> {
  const { rail, windows } = await sessionView(context.services.engine)
  const browserTabs = await browserTabsOf(context)
  // The embedded browser's tabs belong to no document window: they are listed in the one every request can reach.
  const home = windows.find((window) => window.label === 'main') ?? windows[0]
  return {
    windows: windows.map((window) => ({
      label: window.label,
      // Focus is presence: a window has it while one of its editors reports the browser window focused; with no
      // editor attached, or the person typing in another program, none has (SES.GET_STATE.12–13).
      focused: context.services.presence.forWindow(window.label).some((editor) => editor.focused),
      activeWorkspaceInstanceId: rail ? window.activeInstanceId : null,
      tabs: [
        ...window.tabs.map((tab): Record<string, unknown> => ({
          id: tab.tabId, filePath: tab.filePath, title: tab.title, dirty: tab.dirty, revision: tab.revision, kind: tab.kind, active: tab.active, visible: tab.visible,
        })),
        ...(window === home ? browserTabs : []),
      ],
    })),
    capabilities: { version: context.services.version, supportedKinds: [...SUPPORTED_KINDS], mcpProtocol: MCP_PROTOCOL },
  }
}

/**
 * The browser tabs this caller may know of, as VMark lists them: its own AI tabs, and the person's tabs — of those
 * only the origin and no title until the person has attached the tab to this connection. `active` marks the tab an
 * action without `tabId` would use.
 */
async function browserTabsOf(context: ToolContext): Promise<Record<string, unknown>[]> {
  const { services, caller } = context
  const principal = enginePrincipal(caller)
  const front = services.browser.foregroundTab(principal)?.tabId
  const tabs = await services.browser.listTabs()
  return tabs
    .filter((tab) => tab.automationMode === 'human' || tab.principal === principal)
    .map((tab) => {
      const common = { id: tab.tabId, kind: 'browser', active: tab.tabId === front }
      const state = { loading: tab.loading, generation: tab.generation, automationMode: tab.automationMode }
      if (tab.automationMode !== 'human') return { ...common, title: tab.title, url: tab.url, ...state }
      const attached = isAttached(context, tab.tabId, tab.url, tab.generation)
      return attached
        ? { ...common, title: tab.title, url: tab.url, ...state, attached }
        : { ...common, url: originOnly(tab.url), ...state, attached }
    })
}

/** Whether the person attached their tab to this connection until it navigates (an "Allow once" is used by one read). */
function isAttached(context: ToolContext, tabId: string, url: string, generation: number): boolean {
  const request = { kind: 'attach', origin: originOnly(url), tabId, generation, reads: 'once' } as const
  return standingGrant(context.services.approvals.state, request, context.caller.connection, context.services.engine.now()) !== undefined
}
