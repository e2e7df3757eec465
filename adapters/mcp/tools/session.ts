import { sessionView } from '../../../projections/session/sessionView.js'
import type { ToolContext } from '../context.js'
import { defineTool } from '../defineTool.js'
import { RECOVERY } from '../results.js'

export const SUPPORTED_KINDS = ['markdown', 'yaml-workflow'] as const
export const MCP_PROTOCOL = '0.2.0'

/** `session.get_state`: every window and tab, and the server's capabilities, in one read-only call (SES.*). */
export const sessionTool = defineTool({
  name: 'session',
  title: 'Quire session state',
  description:
    'One-shot orientation: every document window, each tab with {id, filePath, title, dirty, revision, kind, active, ' +
    'visible}, and the server capabilities. Call once at the start; pass a tab\'s revision as expected_revision.',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  args: {},
  actions: (action) => ({
    get_state: action({ recovery: RECOVERY.sessionGetState, run: (_args, context) => sessionState(context) }),
  }),
})

export async function sessionState(context: ToolContext): Promise<Record<string, unknown>> {
  const { rail, windows } = await sessionView(context.services.engine)
  return {
    windows: windows.map((window) => ({
      label: window.label,
      // Focus is presence: a window has it while one of its editors reports the browser window focused; with no
      // editor attached, or the person typing in another program, none has (SES.GET_STATE.12–13).
      focused: context.services.presence.forWindow(window.label).some((editor) => editor.focused),
      activeWorkspaceInstanceId: rail ? window.activeInstanceId : null,
      tabs: window.tabs.map((tab) => ({
        id: tab.tabId, filePath: tab.filePath, title: tab.title, dirty: tab.dirty, revision: tab.revision, kind: tab.kind, active: tab.active, visible: tab.visible,
      })),
    })),
    capabilities: { version: context.services.version, supportedKinds: [...SUPPORTED_KINDS], mcpProtocol: MCP_PROTOCOL },
  }
}
