import { z } from 'zod'
import { journaled, revision } from './common.js'

export const WORKSPACE_OUTPUTS = {
  new: z.object({ tabId: z.string() }),
  open: z.object({ tabId: z.string(), workspaceInstanceId: z.string().nullable(), activationChanged: z.boolean(), workspaceSwitched: z.boolean() }),
  open_workspace: z.union([
    z.object({ opened: z.literal(true), workspaceInstanceId: z.string(), folderPath: z.string() }),
    z.object({ needsApproval: z.literal(true), approvalId: z.string(), folderPath: z.string() }),
  ]),
  save: z.object({ filePath: z.string(), revision, journaled }),
  save_as: z.object({ revision, journaled }),
  close: z.union([z.object({ closed: z.literal(true) }), z.object({ closed: z.literal(false), reason: z.enum(['DIRTY', 'DIVERGENT', 'PINNED']) })]),
  switch_tab: z.object({ activated: z.boolean(), workspaceSwitched: z.boolean(), workspaceInstanceId: z.string().nullable(), activeTabId: z.string().nullable() }),
  focus_window: z.object({ windowLabel: z.string(), focused: z.boolean() }),
}
