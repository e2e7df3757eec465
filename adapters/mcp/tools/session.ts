import { titleOfPath } from '../../../core/documents/kind.js'
import { isVisible } from '../../../core/workspace/tabs.js'
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
  const { engine } = context.services
  const workspace = engine.views.workspace.state
  const rail = engine.views.settings.state.workspaceRail
  const windows = []
  for (const window of workspace.windows.values()) {
    const tabs = []
    for (const tabId of window.tabIds) {
      const tab = workspace.tabs.get(tabId)!
      const document = await engine.documents.get(tab.docId)
      tabs.push({
        id: tab.tabId,
        filePath: tab.path,
        // A file's tab is named after the file; an untitled (or trace) document keeps the title it was made with.
        title: tab.path !== null ? titleOfPath(tab.path) : (document?.meta?.title ?? titleOfPath(null)),
        dirty: document?.dirty ?? false,
        revision: document?.revision ?? null,
        kind: document?.meta?.kind ?? 'markdown',
        active: window.activeTabId === tab.tabId,
        visible: isVisible(workspace, tab, rail),
      })
    }
    windows.push({
      label: window.label,
      // Focus is presence: a window has it while one of its editors reports the browser window focused; with no
      // editor attached, or the person typing in another program, none has (SES.GET_STATE.12–13).
      focused: context.services.presence.forWindow(window.label).some((editor) => editor.focused),
      activeWorkspaceInstanceId: rail ? window.activeInstanceId : null,
      tabs,
    })
  }
  return {
    windows,
    capabilities: { version: context.services.version, supportedKinds: [...SUPPORTED_KINDS], mcpProtocol: MCP_PROTOCOL },
  }
}
