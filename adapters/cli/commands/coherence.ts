import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { trustedWriters } from '../../../core/coherence/delegationAuthority.js'
import { isCoherenceRefusal } from '../../../core/coherence/refusal.js'
import { WRITER_ID_FILE } from '../../../core/coherence/writerId.js'
import { USER } from '../../../core/events/actor.js'
import type { SettingValue } from '../../../core/settings/events.js'
import type { CoherenceStatus } from '../../../core/coherence/commands.js'
import type { CoherenceBreakdown, CoherenceGranted, CoherenceGrants, CoherenceRow } from '../../http/consoleCoherenceApi.js'
import {
  breakdownView, chosenRoot, grantDelegation, grantsView, parseGrantDays, parseScopeNames, revokeDelegation,
} from '../../http/consoleCoherenceViews.js'
import { withOwner } from '../owner.js'
import { UsageError } from '../usage.js'

const USAGE = 'coherence status [ROOT] | edges [ROOT] | grants [--root ROOT] | grant AGENT [--scope accept-newer,waive] [--days 1|7|30] [--root ROOT] | revoke GRANT_ID [--root ROOT] | trust WRITER | distrust WRITER'

/** A writer id as segments are named by it (spec §2.2: a UUIDv7; any lower-case UUID is read). */
const WRITER_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

const TRUSTED_SETTING = 'coherenceTrustedWriters'

/**
 * `quire coherence …`: the person's side of the workspaces' coherence ledgers from a shell — what the console's
 * Coherence panel shows and does, but resolving: the status, the stale edges, the delegations with what each
 * authorized, granting an agent a delegation (it always expires: 1, 7 or 30 days) and revoking one; and trusting a
 * VMark writer, whose delegation lines then count as the person's (the setting `coherenceTrustedWriters`). Through
 * the daemon when one runs (`/admin/coherence/*`, `/admin/settings`), else on the data directory itself. ROOT
 * defaults to the only open workspace.
 */
export async function coherenceCommand(home: string, args: string[], out: (line: string) => void): Promise<number> {
  const [action, ...rest] = args
  try {
    switch (action) {
      case 'status':
        return await status(home, rootArgument(rest), out)
      case 'edges':
        return await edges(home, rootArgument(rest), out)
      case 'grants':
        return await grants(home, rest, out)
      case 'grant':
        return await grant(home, rest, out)
      case 'revoke':
        return await revoke(home, rest, out)
      case 'trust':
        return await trust(home, rest, out, true)
      case 'distrust':
        return await trust(home, rest, out, false)
      default:
        throw new UsageError(USAGE)
    }
  } catch (error) {
    // A refusal of the core when no daemon runs: said like the daemon's (main prints those), not as a crash.
    if (!isCoherenceRefusal(error)) throw error
    process.stderr.write(`quire: ${error.message}\n`)
    return 1
  }
}

async function status(home: string, root: string | undefined, out: (line: string) => void): Promise<number> {
  const answer = await withOwner(
    home,
    (owner) => owner.request<{ root: string; status: CoherenceStatus }>('GET', `/admin/coherence/status${query(root)}`),
    async (services) => {
      const chosen = await chosenRoot(services, root)
      return { root: chosen, status: await services.coherence.status(chosen) }
    },
  )
  const { status: current } = answer
  out(`workspace    ${answer.root}`)
  out(`ledger       ${current.initialized ? '.vmark/ (initialized)' : 'none yet (made on the first captured save; `quire settings set trackProvenance true`)'}`)
  out(`objects      ${current.objects}`)
  out(`open items   ${current.open_items}`)
  out(`quarantined  ${current.quarantined}`)
  out(`writer       ${current.writer}`)
  return 0
}

async function edges(home: string, root: string | undefined, out: (line: string) => void): Promise<number> {
  const breakdown = await withOwner(
    home,
    (owner) => owner.request<CoherenceBreakdown>('GET', `/admin/coherence/edges${query(root)}`),
    async (services) => breakdownView(services, await chosenRoot(services, root)),
  )
  const [context, ...others] = breakdown.contexts
  const rows = context?.rows ?? []
  if (context !== undefined && context.errors.length > 0) out(`context ${context.name}${context.degraded ? ' degraded' : ''}: ${context.errors.join('; ')}`)
  if (rows.length === 0) out(`no stale edges in ${breakdown.root}`)
  for (const row of rows) out(formatRow(row))
  // The other contexts the workspace defines, each under its name (resolutions apply to the default one).
  for (const other of others) {
    out(`context ${other.name}${other.degraded ? ' (degraded)' : ''}:${other.rows.length === 0 ? ' no stale edges' : ''}`)
    for (const row of other.rows) out(`  ${formatRow(row)}`)
  }
  return 0
}

async function grants(home: string, args: string[], out: (line: string) => void): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { root: { type: 'string' } } })
  if (positionals.length > 0) throw new UsageError('coherence grants [--root ROOT]')
  const answer = await withOwner(
    home,
    (owner) => owner.request<CoherenceGrants>('GET', `/admin/coherence/grants${query(values.root)}`),
    async (services) => grantsView(services, await chosenRoot(services, values.root)),
  )
  printGrants(answer, out)
  return 0
}

async function grant(home: string, args: string[], out: (line: string) => void): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { root: { type: 'string' }, scope: { type: 'string' }, days: { type: 'string' } } })
  const usage = 'coherence grant AGENT [--scope accept-newer,waive] [--days 1|7|30] [--root ROOT]'
  if (positionals.length !== 1) throw new UsageError(usage)
  const scope = parseScopeNames(values.scope)
  if (scope === undefined) throw new UsageError(`--scope is accept-newer, waive or both (comma-separated); ${usage}`)
  const days = parseGrantDays(values.days)
  if (days === undefined) throw new UsageError(`--days is 1, 7 or 30 (a delegation always expires); ${usage}`)
  const body = { ...(values.root === undefined ? {} : { root: values.root }), delegate: positionals[0]!, scope, days }
  const granted = await withOwner(
    home,
    (owner) => owner.request<CoherenceGranted>('POST', '/admin/coherence/grants', body),
    async (services) => {
      const root = await chosenRoot(services, values.root)
      return { ...(await grantDelegation(services, root, body)), grants: await grantsView(services, root) }
    },
  )
  const made = granted.grants.grants.find((each) => each.delegation === granted.delegation)
  out(`${granted.delegation}: granted ${positionals[0]} ${scope.join(', ')} until ${made?.expires ?? `${days} days from now`}`)
  return 0
}

async function revoke(home: string, args: string[], out: (line: string) => void): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { root: { type: 'string' } } })
  if (positionals.length !== 1) throw new UsageError('coherence revoke GRANT_ID [--root ROOT]')
  const delegation = positionals[0]!
  await withOwner(
    home,
    (owner) => owner.request<CoherenceGrants>('POST', `/admin/coherence/grants/${encodeURIComponent(delegation)}/revoke`, values.root === undefined ? {} : { root: values.root }),
    async (services) => {
      const root = await chosenRoot(services, values.root)
      await revokeDelegation(services, root, delegation)
      return grantsView(services, root)
    },
  )
  out(`${delegation}: revoked`)
  return 0
}

/**
 * `trust WRITER` / `distrust WRITER`: the person says whether the delegation lines of a VMark writer (its segment
 * `.vmark/ledger/WRITER.jsonl`) count as theirs. Quire's own writer is never listed: its grants count only as the
 * person made them through Quire (core/coherence/delegationAuthority.ts).
 */
async function trust(home: string, args: string[], out: (line: string) => void, trusting: boolean): Promise<number> {
  const usage = `coherence ${trusting ? 'trust' : 'distrust'} WRITER`
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} })
  if (positionals.length !== 1) throw new UsageError(usage)
  const writer = positionals[0]!.trim().toLowerCase()
  if (!WRITER_ID.test(writer)) throw new UsageError(`WRITER is a writer id, the UUID that names its segment in .vmark/ledger/ (WRITER.jsonl); ${usage}`)
  if (writer === (await ownWriter(home))) throw new UsageError(`${writer} is Quire's own writer: its grants count only as you made them in Quire; ${usage}`)
  const change = (current: string): string => {
    const writers = new Set(trustedWriters(current))
    if (trusting) writers.add(writer)
    else writers.delete(writer)
    return [...writers].join(',')
  }
  const trusted = await withOwner(
    home,
    async (owner) => {
      const { settings } = await owner.request<{ settings: Record<string, SettingValue> }>('GET', '/admin/settings')
      const value = change(String(settings[TRUSTED_SETTING] ?? ''))
      await owner.request('POST', '/admin/settings', { key: TRUSTED_SETTING, value })
      return value
    },
    async (services) => {
      const value = change(services.settings.state.coherenceTrustedWriters)
      await services.settings.set(TRUSTED_SETTING, value, USER)
      return value
    },
  )
  out(`${writer}: ${trusting ? 'trusted: its delegations count as yours' : 'not trusted: its delegations authorize nothing'} (trusted writers: ${trusted === '' ? 'none' : trusted})`)
  return 0
}

/** This installation's writer id, if it has one yet. */
async function ownWriter(home: string): Promise<string | undefined> {
  return (await readFile(join(home, WRITER_ID_FILE), 'utf8').catch(() => '')).trim() || undefined
}

/** `status [ROOT]` and `edges [ROOT]` take the workspace as their one optional argument (or `--root`). */
function rootArgument(args: string[]): string | undefined {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { root: { type: 'string' } } })
  if (positionals.length > 1 || (positionals.length === 1 && values.root !== undefined)) throw new UsageError(USAGE)
  return values.root ?? positionals[0]
}

function query(root: string | undefined): string {
  return root === undefined ? '' : `?root=${encodeURIComponent(root)}`
}

function formatRow(row: CoherenceRow): string {
  const now = row.selected === null ? '' : `, now ${row.selected}`
  const detail = row.detail === null ? '' : ` (${row.detail})`
  return `${row.state.padEnd(19)}  ${row.downstreamPath ?? row.downstream}  from ${row.upstreamPath ?? row.upstream} at ${row.pinned}${now}  [${row.txf}#${row.input}]${detail}`
}

function printGrants(answer: CoherenceGrants, out: (line: string) => void): void {
  if (answer.grants.length === 0) out(`no delegations in ${answer.root} (grant one with \`quire coherence grant AGENT\`)`)
  for (const each of answer.grants) {
    const conflicts = each.conflicts > 0 ? `  ${each.conflicts} conflicting` : ''
    out(`${each.delegation}  ${each.standing.padEnd(7)}  ${each.delegate}  ${each.scope.join(',') || '(none)'}  expires ${each.expires}  granted by ${each.grantedBy}  authorized ${each.authorized.length}${conflicts}`)
    for (const resolution of each.authorized) {
      const reason = resolution.reason === null ? '' : `  "${resolution.reason}"`
      out(`    ${resolution.time}  ${resolution.kind.padEnd(12)}  by ${resolution.actor}  [${resolution.txf}#${resolution.input}] against ${resolution.resolvedAgainst}${reason}`)
    }
  }
}
