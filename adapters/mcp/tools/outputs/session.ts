import { z } from 'zod'
import { revision } from './common.js'

const documentTab = z.object({
  id: z.string(),
  filePath: z.string().nullable(),
  title: z.string(),
  dirty: z.boolean(),
  revision,
  kind: z.enum(['markdown', 'yaml-workflow']),
  active: z.boolean(),
  visible: z.boolean(),
})

/** The embedded browser's tabs: the assistant's own with title and URL, the person's with the origin until attached. */
const browserTab = z.object({
  id: z.string(),
  kind: z.literal('browser'),
  active: z.boolean(),
  title: z.string().optional(),
  url: z.string(),
  loading: z.boolean(),
  generation: z.int(),
  automationMode: z.enum(['human', 'ai-sandbox', 'ai-shared']),
  attached: z.boolean().optional(),
})

export const SESSION_OUTPUTS = {
  get_state: z.object({
    windows: z.array(
      z.object({
        label: z.string(),
        focused: z.boolean(),
        activeWorkspaceInstanceId: z.string().nullable(),
        tabs: z.array(z.union([documentTab, browserTab])),
      }),
    ),
    capabilities: z.object({ version: z.string(), supportedKinds: z.array(z.string()), mcpProtocol: z.string() }),
  }),
}
