import { z } from 'zod'
import { QuireError } from '../../../core/errors.js'
import { enginePrincipal } from '../browserCalls.js'
import { defineTool } from '../defineTool.js'
import { personWait } from '../personWait.js'
import { WORKSPACE_OUTPUTS } from './outputs/workspace.js'
import { id, kind, path } from '../schemas.js'

/** `workspace`: file and window lifecycle, never the text inside a document (WS.*). */
export const workspaceTool = defineTool({
  name: 'workspace',
  title: 'Quire workspace and files',
  description:
    'Tabs, files and windows. new {kind?, windowLabel?} → {tabId}; open {filePath, windowLabel?} opens a file in a ' +
    'background tab; open_workspace {folderPath} needs the user\'s approval (first call returns needsApproval: ask ' +
    'the user, then retry the same call); save {tabId?}; save_as {tabId?, filePath}; close {tabId, force?}; ' +
    'switch_tab {tabId}; focus_window {windowLabel}. Paths must be absolute and inside an open workspace or the ' +
    'folder of an open document.',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  args: {
    tabId: id.optional(),
    windowLabel: id.optional(),
    kind: kind.optional(),
    filePath: path.optional(),
    folderPath: path.optional(),
    force: z.boolean().optional(),
  },
  outputs: WORKSPACE_OUTPUTS,
  actions: (action) => ({
    new: action({
      run: async (args, { services, caller }) => {
        const { tabId } = await services.workspace.newTab(args.kind ?? 'markdown', args.windowLabel, caller)
        return { tabId }
      },
    }),
    open: action({
      required: ['filePath'],
      requiredHint: '(an absolute path)',
      run: async (args, { services, caller }) => ({ ...(await services.files.open(args.filePath, args.windowLabel, caller)) }),
    }),
    open_workspace: action({
      required: ['folderPath'],
      refuse: (args) =>
        args.windowLabel !== undefined ? 'workspace.open_workspace does not take windowLabel: the folder opens in the window the request came to' : undefined,
      run: async (args, context) => ({ ...(await context.services.workspace.openWorkspace(args.folderPath, context.caller, personWait(context, 0))) }),
    }),
    save: action({
      run: async (args, { services, caller }) => ({ ...(await services.files.save(args.tabId, caller)) }),
    }),
    save_as: action({
      required: ['filePath'],
      requiredHint: '(an absolute path)',
      run: async (args, context) => ({ ...(await context.services.files.saveAs(args.tabId, args.filePath, context.caller, personWait(context, 0))) }),
    }),
    close: action({
      required: ['tabId'],
      run: async (args, { services, caller }) => {
        // A browser tab is no document tab (WS.CLOSE, §13.1 INVALID_TAB): say where it is closed instead.
        const principal = enginePrincipal(caller)
        const browserTab = (await services.browser.listTabs()).find((tab) => tab.tabId === args.tabId && (tab.automationMode === 'human' || tab.principal === principal))
        if (browserTab) throw new QuireError('INVALID_TAB', `${args.tabId} is a browser tab: close it with browser.close`)
        return { ...(await services.workspace.close(args.tabId, args.force ?? false, caller)) }
      },
    }),
    switch_tab: action({
      required: ['tabId'],
      run: async (args, { services, caller }) => ({ ...(await services.workspace.switchTab(args.tabId, caller)) }),
    }),
    focus_window: action({
      required: ['windowLabel'],
      run: async (args, { services, caller }) => ({ ...(await services.workspace.focusWindow(args.windowLabel, caller)) }),
    }),
  }),
})
