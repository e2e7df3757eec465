import { z } from 'zod'
import { defineEvent } from '../events/schema.js'

/** Windows, tabs and workspace roots all live in one stream: the layout a person sees is one story. */
export const WORKSPACE_STREAM = 'workspace'

/** Every document window has a label; `main` always exists, even with no browser attached. */
export const MAIN_WINDOW = 'main'

const id = z.string().min(1)

/** A document window other than `main` was opened. */
export const WindowOpened = defineEvent({
  type: 'window.opened',
  version: 1,
  schema: z.object({ label: id }),
})

/** Someone asked for a window to be brought to the front (presence decides whether it really has focus). */
export const WindowFocusRequested = defineEvent({
  type: 'window.focus-requested',
  version: 1,
  schema: z.object({ label: id }),
})

/** A folder was opened as a workspace instance of a window and became what that window shows. */
export const WorkspaceOpened = defineEvent({
  type: 'workspace.opened',
  version: 1,
  schema: z.object({ instanceId: id, root: z.string().min(1), windowLabel: id, approval: z.string().nullable() }),
})

export const WorkspaceClosed = defineEvent({
  type: 'workspace.closed',
  version: 1,
  schema: z.object({ instanceId: id }),
})

/**
 * A tab was opened on a document. `path` is the document's file at that moment (null for untitled); `active` says
 * whether it became its window's current tab (`workspace.open` never activates, `new` does).
 */
export const TabOpened = defineEvent({
  type: 'tab.opened',
  version: 1,
  schema: z.object({
    tabId: id,
    docId: id,
    windowLabel: id,
    instanceId: z.string().nullable(),
    path: z.string().nullable(),
    active: z.boolean(),
  }),
})

/** A tab became its window's current tab (and its workspace instance the one the window shows). */
export const TabActivated = defineEvent({
  type: 'tab.activated',
  version: 1,
  schema: z.object({ tabId: id }),
})

export const TabClosed = defineEvent({
  type: 'tab.closed',
  version: 1,
  schema: z.object({ tabId: id, forced: z.boolean() }),
})

/** Only a person pins or unpins; a pinned tab is never closed by an assistant (WS.CLOSE.4). */
export const TabPinned = defineEvent({
  type: 'tab.pinned',
  version: 1,
  schema: z.object({ tabId: id, pinned: z.boolean() }),
})

/** A document's file changed name or place (save_as): tabs on it now show `path`. */
export const DocumentRetargeted = defineEvent({
  type: 'document.retargeted',
  version: 1,
  schema: z.object({ docId: id, path: z.string().min(1) }),
})

export const workspaceEvents = [
  WindowOpened,
  WindowFocusRequested,
  WorkspaceOpened,
  WorkspaceClosed,
  TabOpened,
  TabActivated,
  TabClosed,
  TabPinned,
  DocumentRetargeted,
] as const
