import { Hono, type Context } from 'hono'
import { z } from 'zod'
import { USER } from '../../core/events/actor.js'
import { isQuireError } from '../../core/errors.js'
import { tabTitle } from '../../projections/session/sessionView.js'
import { settingEntries, settingsSchema, type SettingValue } from '../../core/settings/events.js'
import type { ApprovalView } from '../../core/approvals/commands.js'
import { parseApprovalScope } from '../../core/approvals/events.js'
import type { Services } from '../host/services.js'
import type { ConsoleError } from './consoleApi.js'
import { agentList, endAgentSessions, type AgentSessions } from './adminAgents.js'
import type {
  PanelAgent, PanelAgentAdded, PanelAgents, PanelApproval, PanelApprovalDecided, PanelApprovals, PanelDivergence,
  PanelDivergences, PanelSetting, PanelSettings,
} from './consolePanelsApi.js'

/** How many decided, used or expired approvals the panel lists under the pending ones. */
const RECENT_APPROVALS = 20

/**
 * The console's person-side panels (contract in consolePanelsApi.ts): approvals, settings, divergences and agent
 * tokens, the decisions `quire approvals|settings|divergence|agent` make. Mounted under `/console/api` after the
 * console's token check, so only the port file's token reaches it; everything is recorded as the person's (`user`).
 */
export function consolePanelRoutes(services: Services, sessions: AgentSessions): Hono {
  const app = new Hono()
  app.onError((error, c) => {
    if (isQuireError(error)) return fail(c, error.code, error.message, error.code === 'NOT_FOUND' ? 404 : 400)
    throw error
  })

  app.get('/panels/approvals', (c) => c.json(approvals(services), 200, NO_STORE))
  app.post('/panels/approvals/:id/:decision{approve|deny}', async (c) => {
    const decision = c.req.param('decision') === 'approve' ? 'approved' : 'denied'
    const scope = parseApprovalScope(c.req.query('scope'))
    // Deciding a withdrawn request is refused, so a decided one is never withdrawn.
    const decided = (await services.approvals.decide(c.req.param('id'), decision, USER, scope)) as ShownApproval
    const body: PanelApprovalDecided = { approval: panelApproval(decided) }
    return c.json(body)
  })

  app.get('/panels/settings', (c) => c.json(settings(services), 200, NO_STORE))
  app.post('/panels/settings', async (c) => {
    const body = z.object({ key: z.string().min(1), value: z.union([z.boolean(), z.string(), z.number()]) }).safeParse(await c.req.json().catch(() => null))
    if (!body.success) return fail(c, 'INVALID_ARGUMENT', 'expected {"key": "...", "value": true | "text" | 1}', 400)
    await services.settings.set(body.data.key, body.data.value, USER)
    return c.json(settings(services))
  })

  app.get('/panels/divergences', async (c) => c.json(await divergences(services), 200, NO_STORE))
  app.post('/panels/divergences/:docId/:choice{keep|reload}', async (c) => {
    const choice = c.req.param('choice') === 'keep' ? 'keep' : 'reload'
    await services.files.resolveDivergence(c.req.param('docId'), choice, USER)
    return c.json(await divergences(services))
  })

  const agents = (): PanelAgent[] => panelAgents(services, sessions)
  app.get('/panels/agents', (c) => c.json<PanelAgents>({ agents: agents() }, 200, NO_STORE))
  app.post('/panels/agents', async (c) => {
    const body = z.object({ name: z.string() }).safeParse(await c.req.json().catch(() => null))
    if (!body.success) return fail(c, 'INVALID_ARGUMENT', 'expected {"name": "..."}', 400)
    const token = await services.agents.add(body.data.name, USER)
    const added: PanelAgentAdded = { name: body.data.name, token, agents: agents() }
    return c.json(added, 200, NO_STORE)
  })
  app.post('/panels/agents/:name/revoke', async (c) => {
    await services.agents.revoke(c.req.param('name'), USER)
    return c.json<PanelAgents>({ agents: agents() })
  })
  // The End button of one session: the client is cut off (404 from then on); its token stays live.
  app.post('/panels/agents/:name/sessions/:session/end', (c) => {
    endAgentSessions(services, sessions, c.req.param('name'), c.req.param('session'))
    return c.json<PanelAgents>({ agents: agents() })
  })
  return app
}

const NO_STORE = { 'cache-control': 'no-store' }

function fail(c: Context, error: string, message: string, status: 400 | 404) {
  return c.json<ConsoleError>({ error, message }, status)
}

function approvals(services: Services): PanelApprovals {
  // A request its assistant withdrew (it cancelled its call) asks the person nothing and is not theirs to see.
  const all = services.approvals.list().filter(notWithdrawn).map(panelApproval)
  return {
    pending: all.filter((approval) => approval.status === 'pending').reverse(),
    recent: all.filter((approval) => approval.status !== 'pending').slice(0, RECENT_APPROVALS),
    now: services.engine.now(),
  }
}

/** An approval the person is shown: any but one its assistant withdrew. */
type ShownApproval = ApprovalView & { readonly status: PanelApproval['status'] }

function notWithdrawn(view: ApprovalView): view is ShownApproval {
  return view.status !== 'withdrawn'
}

function panelApproval(view: ShownApproval): PanelApproval {
  const { approvalId, kind, subject, origin, scopes, scope, connection, principal, requestedAt, decidedAt, status, expiresAt } = view
  return { approvalId, kind, subject, origin, scopes, scope, connection, principal, requestedAt, decidedAt, status, expiresAt }
}

function settings(services: Services): PanelSettings {
  return { settings: settingEntries(services.settings.state).map(([key, value]) => describeSetting(key, value)) }
}

/**
 * What the panel needs to render a setting, read from the settings schema itself: a new setting shows up in the
 * panel with the right control without touching this file.
 */
function describeSetting(key: string, value: SettingValue): PanelSetting {
  const [group, leaf] = key.split('.') as [string, string | undefined]
  const groupSchema: z.ZodType | undefined = (settingsSchema.shape as Record<string, z.ZodType>)[group]
  const schema = leaf !== undefined && groupSchema instanceof z.ZodObject ? (groupSchema.shape as Record<string, z.ZodType>)[leaf] : groupSchema
  const choices = schema ? choicesOf(schema) : undefined
  if (choices) return { key, value, type: 'choice', choices }
  if (typeof value === 'boolean') return { key, value, type: 'boolean' }
  if (typeof value === 'number') return { key, value, type: 'number', ...boundsOf(schema) }
  // An open text setting (none today): offered as its current value only, never lost.
  return { key, value, type: 'choice', choices: [value] }
}

function boundsOf(schema: z.ZodType | undefined): { min?: number; max?: number } {
  if (!(schema instanceof z.ZodNumber)) return {}
  const { minValue, maxValue } = schema
  return {
    ...(minValue !== null && Number.isFinite(minValue) ? { min: minValue } : {}),
    ...(maxValue !== null && Number.isFinite(maxValue) ? { max: maxValue } : {}),
  }
}

/** The closed set of values an enum, a literal or a union of literals allows; undefined for an open type. */
function choicesOf(schema: z.ZodType): Array<string | number> | undefined {
  if (schema instanceof z.ZodEnum) return (schema.options as Array<string | number>).slice()
  if (schema instanceof z.ZodLiteral) return [...(schema.values as Set<unknown>)].filter((v): v is string | number => typeof v === 'string' || typeof v === 'number')
  if (schema instanceof z.ZodUnion) {
    const parts = (schema.options as z.ZodType[]).map(choicesOf)
    return parts.every((part) => part !== undefined) ? parts.flat() : undefined
  }
  return undefined
}

/** The documents open in tabs whose file changed on disk under unsaved changes and that the person has not decided. */
async function divergences(services: Services): Promise<PanelDivergences> {
  const { engine } = services
  const byDoc = new Map<string, string[]>()
  for (const tab of engine.views.workspace.state.tabs.values()) byDoc.set(tab.docId, [...(byDoc.get(tab.docId) ?? []), tab.tabId])
  const found: PanelDivergence[] = []
  for (const [docId, tabIds] of byDoc) {
    const document = await engine.documents.get(docId)
    if (!document?.divergence || document.divergence.kept) continue
    const path = document.meta?.path ?? null
    found.push({ docId, title: tabTitle(path, document.meta), path, tabIds })
  }
  return { divergences: found }
}

/** Live agents first, newest first, each with its open sessions. */
function panelAgents(services: Services, sessions: AgentSessions): PanelAgent[] {
  return agentList(services, sessions).sort((a, b) => Number(a.revoked) - Number(b.revoked) || b.addedAt - a.addedAt)
}
