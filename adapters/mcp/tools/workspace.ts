import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import type { ToolContext } from '../context.js'
import { fromError, plainError, success } from '../results.js'
import { id, kind, path } from '../schemas.js'

const actions = ['new', 'open', 'open_workspace', 'save', 'save_as', 'close', 'switch_tab', 'focus_window'] as const

/** `workspace`: file and window lifecycle, never the text inside a document (WS.*). */
export function registerWorkspace(server: McpServer, context: ToolContext): void {
  server.registerTool(
    'workspace',
    {
      title: 'Quire workspace and files',
      description:
        'Tabs, files and windows. new {kind?, windowLabel?} → {tabId}; open {filePath, windowLabel?} opens a file in a ' +
        'background tab; open_workspace {folderPath} needs the user\'s approval (first call returns needsApproval: ask ' +
        'the user, then retry the same call); save {tabId?}; save_as {tabId?, filePath}; close {tabId, force?}; ' +
        'switch_tab {tabId}; focus_window {windowLabel}. Paths must be absolute and inside an open workspace or the ' +
        'folder of an open document.',
      inputSchema: {
        action: z.enum(actions),
        tabId: id.optional(),
        windowLabel: id.optional(),
        kind: kind.optional(),
        filePath: path.optional(),
        folderPath: path.optional(),
        force: z.boolean().optional(),
      },
      annotations: { title: 'Quire workspace and files', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    async (args) => {
      const { services, caller } = context
      try {
        switch (args.action) {
          case 'new': {
            const { tabId } = await services.workspace.newTab(args.kind ?? 'markdown', args.windowLabel, caller)
            return success({ tabId })
          }
          case 'open': {
            if (args.filePath === undefined) return plainError('workspace.open needs filePath (an absolute path)')
            return success({ ...(await services.files.open(args.filePath, args.windowLabel, caller)) })
          }
          case 'open_workspace': {
            if (args.folderPath === undefined) return plainError('workspace.open_workspace needs folderPath')
            if (args.windowLabel !== undefined) {
              return plainError('workspace.open_workspace does not take windowLabel: the folder opens in the window the request came to')
            }
            const outcome = await services.workspace.openWorkspace(args.folderPath, caller)
            return success({ ...outcome })
          }
          case 'save':
            return success({ ...(await services.files.save(args.tabId, caller)) })
          case 'save_as': {
            if (args.filePath === undefined) return plainError('workspace.save_as needs filePath (an absolute path)')
            return success({ ...(await services.files.saveAs(args.tabId, args.filePath, caller)) })
          }
          case 'close': {
            if (args.tabId === undefined) return plainError('workspace.close needs tabId')
            return success({ ...(await services.workspace.close(args.tabId, args.force ?? false, caller)) })
          }
          case 'switch_tab': {
            if (args.tabId === undefined) return plainError('workspace.switch_tab needs tabId')
            return success({ ...(await services.workspace.switchTab(args.tabId, caller)) })
          }
          case 'focus_window': {
            if (args.windowLabel === undefined) return plainError('workspace.focus_window needs windowLabel')
            return success({ ...(await services.workspace.focusWindow(args.windowLabel, caller)) })
          }
        }
      } catch (error) {
        return fromError(error)
      }
    },
  )
}
