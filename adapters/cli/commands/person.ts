import { parseArgs } from 'node:util'
import { resolveDocument } from '../../../core/audit/resolve.js'
import { USER } from '../../../core/events/actor.js'
import { parseSettingValue, settingEntries, type SettingValue } from '../../../core/settings/events.js'
import type { ApprovalView } from '../../../core/approvals/commands.js'
import type { AgentListing, AgentSessionsEnded } from '../../http/adminAgents.js'
import { withOwner } from '../owner.js'
import { UsageError } from '../usage.js'
import { parseApprovalScope } from '../../../core/approvals/events.js'

// The person's commands: agent tokens, approvals, divergences, settings. Each goes to the process that owns the data
// directory when one is running, and otherwise opens the directory itself (withOwner), so they work either way.

/**
 * `quire agent add NAME | list | revoke NAME | end-session NAME [SESSION]`: tokens for AI clients (the agent's name is
 * the principal on that client's events). `add` prints the new token, the only time it is shown; `list` never shows
 * one, and shows each agent's MCP sessions open on the daemon; `end-session` ends one of them (by the id `list`
 * shows), or all of the agent's, without revoking its token.
 */
export async function agentCommand(home: string, args: string[], out: (line: string) => void): Promise<number> {
  const [action, name, ...rest] = args
  if (action === 'add' && name && rest.length === 0) {
    const token = await withOwner(
      home,
      async (owner) => (await owner.request<{ token: string }>('POST', '/admin/agents', { name })).token,
      (services) => services.agents.add(name, USER),
    )
    out(token)
    return 0
  }
  if (action === 'list' && name === undefined) {
    const agents = await withOwner(
      home,
      async (owner) => (await owner.request<{ agents: AgentListing[] }>('GET', '/admin/agents')).agents,
      // Loaded with the core, only when no daemon answers (as in withOwner); no daemon, no sessions.
      async (services) => (await import('../../http/adminAgents.js')).agentList(services, undefined),
    )
    if (agents.length === 0) out('no agents (add one with `quire agent add NAME`)')
    for (const agent of agents) {
      const open = agent.sessions.length
      const sessions = open === 0 ? '' : `  ${open} open MCP session${open === 1 ? '' : 's'}`
      out(`${agent.name.padEnd(24)}  added ${new Date(agent.addedAt).toISOString()}  ${agent.revoked ? 'revoked' : 'live'}${sessions}`)
      for (const session of agent.sessions) {
        const via = session.bridgePid === null ? '' : `  (quire mcp, pid ${session.bridgePid})`
        out(
          `  ${session.session}  opened ${new Date(session.openedAt).toISOString()}  last request ${new Date(session.lastRequestAt).toISOString()}  ` +
            `${session.client ?? 'unnamed client'}${via}`,
        )
      }
    }
    return 0
  }
  if (action === 'end-session' && name && rest.length <= 1) {
    const session = rest[0]
    const { ended } = await withOwner(
      home,
      (owner) => owner.request<AgentSessionsEnded>('POST', `/admin/agents/${encodeURIComponent(name)}/end-session`, session === undefined ? {} : { session }),
      async (services) => ({ name, ended: (await import('../../http/adminAgents.js')).endAgentSessions(services, undefined, name, session) }),
    )
    if (ended.length === 0) out(`${name}: no open MCP sessions`)
    for (const each of ended) out(`${name}: ended ${each}`)
    return 0
  }
  if (action === 'revoke' && name && rest.length === 0) {
    // Through the daemon when one runs, so the sessions on that token end at once (it watches its agents view).
    await withOwner(
      home,
      (owner) => owner.request('POST', `/admin/agents/${encodeURIComponent(name)}/revoke`),
      (services) => services.agents.revoke(name, USER),
    )
    out(`${name}: revoked`)
    return 0
  }
  throw new UsageError('agent add NAME | list | revoke NAME | end-session NAME [SESSION]')
}

/** `quire approvals list|approve ID|deny ID`: the person's side of every approval. */
export async function approvalsCommand(home: string, args: string[], out: (line: string) => void): Promise<number> {
  const [action = 'list', id, ...rest] = args
  const usage = 'approvals list | approve ID [--scope once|site|navigation] | deny ID'
  const scopeFlag = rest[0] === '--scope' && rest.length === 2 && action === 'approve' ? rest[1] : undefined
  if (rest.length > 0 && scopeFlag === undefined) throw new UsageError(usage)
  const scope = parseApprovalScope(scopeFlag)
  if (action === 'list') {
    if (id !== undefined) throw new UsageError('approvals list takes no argument')
    const approvals = await withOwner(
      home,
      async (owner) => (await owner.request<{ approvals: ApprovalView[] }>('GET', '/admin/approvals')).approvals,
      async (services) => services.approvals.list(),
    )
    if (approvals.length === 0) out('no approvals')
    for (const approval of approvals) out(formatApproval(approval))
    return 0
  }
  if ((action !== 'approve' && action !== 'deny') || !id) throw new UsageError(usage)
  const decision = action === 'approve' ? 'approved' : 'denied'
  const approval = await withOwner(
    home,
    async (owner) => (await owner.request<{ approval: ApprovalView }>('POST', `/admin/approvals/${encodeURIComponent(id)}/${action}${scope ? `?scope=${scope}` : ''}`)).approval,
    (services) => services.approvals.decide(id, decision, USER, scope),
  )
  out(formatApproval(approval))
  return 0
}

function formatApproval(approval: ApprovalView): string {
  const who = approval.principal ?? 'anonymous'
  const expires = approval.expiresAt === null ? '' : ` (expires ${new Date(approval.expiresAt).toISOString()})`
  // A pending request lists the scopes the person may give; a decided one the scope it was given.
  const scopes = approval.status === 'pending' ? (approval.scopes.length > 1 ? `  [--scope ${approval.scopes.join('|')}]` : '') : approval.decision === 'approved' && approval.scope !== 'once' ? `  (${approval.scope})` : ''
  return `${approval.approvalId}  ${approval.status.padEnd(8)}  ${approval.kind} ${approval.subject}  for ${who} on ${approval.connection}${expires}${scopes}`
}

/** `quire divergence keep|reload DOC`: the person's decision when a file changed on disk under unsaved changes. */
export async function divergenceCommand(home: string, args: string[], out: (line: string) => void): Promise<number> {
  const [choice, target, ...rest] = args
  if ((choice !== 'keep' && choice !== 'reload') || !target || rest.length > 0) throw new UsageError('divergence keep|reload PATH_OR_ID')
  const docId = await withOwner(
    home,
    async (owner) => (await owner.request<{ docId: string }>('POST', '/admin/divergence', { doc: target, choice, cwd: process.cwd() })).docId,
    async (services) => {
      const id = await resolveDocument(services.engine, target)
      await services.files.resolveDivergence(id, choice, USER)
      return id
    },
  )
  out(`${docId}: ${choice === 'keep' ? "kept the tab's version" : "reloaded the file's version"}`)
  return 0
}

/**
 * `quire settings [list | set KEY VALUE]`: the person's settings, such as `cjkFormatting.quoteStyle corner` for
 * `document.transform {kind: "cjk-format"}`. Each change is a `setting.changed` event in the log.
 */
export async function settingsCommand(home: string, args: string[], out: (line: string) => void): Promise<number> {
  const [action = 'list', key, value, ...rest] = args
  let settings: Record<string, SettingValue>
  if (action === 'list' && key === undefined) {
    settings = await withOwner(
      home,
      async (owner) => (await owner.request<{ settings: Record<string, SettingValue> }>('GET', '/admin/settings')).settings,
      async (services) => Object.fromEntries(settingEntries(services.settings.state)),
    )
  } else if (action === 'set' && key !== undefined && value !== undefined && rest.length === 0) {
    settings = await withOwner(
      home,
      async (owner) => {
        const current = (await owner.request<{ settings: Record<string, SettingValue> }>('GET', '/admin/settings')).settings
        const typed = parseSettingValue(current, key, value)
        return (await owner.request<{ settings: Record<string, SettingValue> }>('POST', '/admin/settings', { key, value: typed })).settings
      },
      async (services) => {
        await services.settings.set(key, parseSettingValue(Object.fromEntries(settingEntries(services.settings.state)), key, value), USER)
        return Object.fromEntries(settingEntries(services.settings.state))
      },
    )
    out(`${key} = ${JSON.stringify(settings[key])}`)
    return 0
  } else {
    throw new UsageError('settings [list | set KEY VALUE]')
  }
  for (const [name, current] of Object.entries(settings)) out(`${name.padEnd(44)} ${JSON.stringify(current)}`)
  return 0
}
