import { describeActor, type Actor } from '../../core/events/actor.js'
import type { RecordedEvent } from '../../core/log/eventLog.js'
import { BrowserActionRecorded } from '../../core/browser/events.js'
import { dataOf } from '../../core/events/schema.js'
import { browserStory } from './browserStory.js'
import { changeToken } from '../../core/documents/aiChanges.js'

/** An event as the audit shows it: JSON-safe (bytes become `{"base64": ...}`), with a one-line summary. */
export interface AuditEvent {
  readonly position: number
  readonly at: string
  readonly actor: Actor
  readonly type: string
  readonly v: number
  readonly stream: string
  readonly streamVersion: number
  readonly summary: string
  readonly data: unknown
}

export function toAuditEvent(event: RecordedEvent): AuditEvent {
  return {
    position: event.position,
    at: new Date(event.at).toISOString(),
    actor: event.actor,
    type: event.type,
    v: event.v,
    stream: event.stream,
    streamVersion: event.streamVersion,
    summary: summarize(event),
    data: jsonSafe(event.data),
  }
}

/** The widths of the text form's actor and type columns: at least as wide as their longest entry keeps them aligned. */
export interface AuditColumns {
  readonly actor: number
  readonly type: number
}

/** The text form `quire log` prints: position, time, actor, type, stream, summary. */
export function formatAuditEvent(event: Pick<AuditEvent, 'position' | 'at' | 'actor' | 'type' | 'stream' | 'summary'>, columns: AuditColumns = { actor: 18, type: 17 }): string {
  return `${String(event.position).padStart(8)}  ${event.at}  ${describeActor(event.actor).padEnd(columns.actor)}  ${event.type.padEnd(columns.type)}  ${event.stream}  ${event.summary}`
}

/** One line saying what an event did, without dumping its payload. */
export function summarize(event: RecordedEvent): string {
  const data = event.data as Record<string, unknown>
  switch (event.type) {
    case 'document.created':
      return `${data.kind} ${data.path ?? JSON.stringify(data.title)} from ${data.origin} (${(data.update as Uint8Array).length} B update)`
    case 'document.changed':
      return `${(data.update as Uint8Array).length} B update` + (data.journal ? ` applying journal entry ${data.journal}` : '')
    case 'journal.recorded':
      return `${data.operation}${data.detail ? ` ${abbreviate(data.detail as string, 80)}` : ''} of ${data.length as number} chars on ${data.baseRevision}` +
        (data.edit ? ` (journaled as ${(data.edit as { hunks: unknown[] }).hunks.length} changes from ${(data.edit as { from: string }).from})` : '')
    case 'document.saved':
      return `${data.reason} ${data.path} (${data.length} chars, sha256 ${(data.sha256 as string).slice(0, 12)})`
    case 'document.diverged':
      return `${data.path} changed on disk under unsaved changes`
    case 'document.divergence-resolved':
      return `${data.choice}`
    case 'document.seen':
      return `seen through ${data.tabId}` + (data.written ? ` (its own ${(data.written as { length: number }).length} chars, merged from ${(data.written as { origin: string }).origin})` : '')
    case 'document.retargeted':
      return `${data.docId} now at ${data.path}`
    case 'tab.opened':
      return `${data.tabId} on ${data.docId} in ${data.windowLabel}${data.active ? ' (current)' : ''}${data.path ? ` ${data.path}` : ''}`
    case 'tab.activated':
    case 'tab.closed':
      return `${data.tabId}${data.forced ? ' (forced)' : ''}`
    case 'tab.pinned':
      return `${data.tabId} ${data.pinned ? 'pinned' : 'unpinned'}`
    case 'workspace.opened':
      return `${data.instanceId} ${data.root} in ${data.windowLabel}${data.approval ? ` (approval ${data.approval})` : ''}`
    case 'approval.requested':
      return `${data.approvalId} ${data.kind} ${data.subject} for ${data.principal ?? 'anonymous'} on ${data.connection}`
    case 'approval.decided':
      return `${data.approvalId} ${data.decision}${data.scope !== undefined && data.scope !== 'once' ? ` for the ${data.scope}` : ''}`
    case 'browser.action':
      return browserStory(dataOf(event, BrowserActionRecorded))
    case 'coherence.appended':
      return coherenceStory(data.lines as readonly string[], data.segment as string, data.recovered === true)
    case 'coherence.refused':
      return `refused: ${String(data.message)}`
    case 'approval.consumed':
    case 'approval.withdrawn':
      return `${data.approvalId}`
    case 'setting.changed':
      return `${data.key} = ${JSON.stringify(data.value)}`
    case 'agent.added':
    case 'agent.revoked':
      return `${data.name}`
    case 'comment.created':
    case 'comment.replied':
      return `${data.commentId}${data.replyId ? ` reply ${data.replyId}` : ''} (${String(data.body ?? '').length} chars)`
    case 'comment.addressed':
    case 'comment.resolved':
    case 'comment.reopened':
    case 'comment.deleted':
    case 'comment.withdrawn':
      return `${data.commentId ?? ''}`
    case 'review.marked':
      return `AI changes up to position ${data.upToPosition} reviewed`
    case 'review.kept':
      return `kept ${changeToken(data.change as number)}${data.hunks ? ` hunks ${(data.hunks as number[]).join(', ')}` : ''}`
    case 'review.undone': {
      const skipped = (data.skipped as { index: number }[] | undefined) ?? []
      return `undid ${changeToken(data.change as number)} hunks ${(data.hunks as { index: number }[]).map((hunk) => hunk.index).join(', ')}` +
        (skipped.length > 0 ? ` (left ${skipped.map((hunk) => hunk.index).join(', ')}: could not be undone cleanly)` : '')
    }
    case 'review.redone':
      return `redid ${changeToken(data.change as number)} hunks ${(data.hunks as { index: number }[]).map((hunk) => hunk.index).join(', ')}`
    default:
      return Object.keys(data ?? {}).join(', ')
  }
}

/** Bytes become `{"base64": ...}` so JSON output stays lossless. */
function jsonSafe(value: unknown): unknown {
  if (value instanceof Uint8Array) return { base64: Buffer.from(value).toString('base64') }
  if (Array.isArray(value)) return value.map(jsonSafe)
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, jsonSafe(inner)]))
  }
  return value
}

const abbreviate = (text: string, max: number): string => (text.length <= max ? text : `${text.slice(0, max - 1)}…`)

/** What a coherence append recorded: each line's kind (and a resolution's edge), as the ledger's entries say. */
function coherenceStory(lines: readonly string[], segment: string, recovered: boolean): string {
  const kinds = lines.map((line) => {
    try {
      const entry = JSON.parse(line) as { kind?: unknown; body?: { edge?: { txf?: unknown; input?: unknown }; delegation?: unknown } }
      const edge = entry.body?.edge
      if ((entry.kind === 'ratification' || entry.kind === 'waiver') && edge !== undefined) return `${entry.kind} of ${String(edge.txf)}#${String(edge.input)}`
      if (entry.kind === 'delegation') return `delegation ${String(entry.body?.delegation)}`
      return String(entry.kind)
    } catch {
      return 'unreadable line'
    }
  })
  return `${kinds.join(', ')} to ${segment}${recovered ? ' (recovered after a crash)' : ''}`
}
