import { parseArgs } from 'node:util'
import type { Engine } from '../../../core/engine.js'
import { describeActor } from '../../../core/events/actor.js'
import type { RecordedEvent } from '../../../core/log/eventStore.js'
import { UsageError } from '../usage.js'

/** `quire log`: the audit trail, oldest first. */
export async function logCommand(engine: Engine, args: string[], out: (line: string) => void): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      stream: { type: 'string' },
      since: { type: 'string' },
      limit: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  })
  const since = values.since === undefined ? 0 : parseCount('--since', values.since)
  const limit = values.limit === undefined ? Number.POSITIVE_INFINITY : parseCount('--limit', values.limit)
  let printed = 0
  const events = values.stream
    ? streamAfter(engine, values.stream, since)
    : engine.store.readAll(since)
  for await (const event of events) {
    if (printed >= limit) break
    out(values.json ? JSON.stringify(toJson(event)) : formatEvent(event))
    printed++
  }
  return 0
}

async function* streamAfter(engine: Engine, stream: string, since: number): AsyncGenerator<RecordedEvent> {
  for await (const event of engine.store.readStream(stream)) if (event.position > since) yield event
}

function parseCount(flag: string, value: string): number {
  if (!/^\d+$/.test(value)) throw new UsageError(`${flag} takes a non-negative whole number, not ${JSON.stringify(value)}`)
  return Number(value)
}

export function formatEvent(event: RecordedEvent): string {
  const time = new Date(event.at).toISOString()
  return `${String(event.position).padStart(8)}  ${time}  ${describeActor(event.actor).padEnd(18)}  ${event.type.padEnd(17)}  ${event.stream}  ${summarize(event)}`
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
      return `${data.operation} of ${(data.text as string).length} chars on ${data.baseRevision}`
    case 'document.saved':
      return `${data.reason} ${data.path} (${data.length} chars, sha256 ${(data.sha256 as string).slice(0, 12)})`
    case 'document.diverged':
      return `${data.path} changed on disk under unsaved changes`
    case 'document.divergence-resolved':
      return `${data.choice}`
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
      return `${data.approvalId} ${data.decision}`
    case 'approval.consumed':
      return `${data.approvalId}`
    case 'setting.changed':
      return `${data.key} = ${JSON.stringify(data.value)}`
    case 'agent.added':
    case 'agent.revoked':
      return `${data.name}`
    default:
      return Object.keys(data ?? {}).join(', ')
  }
}

function toJson(event: RecordedEvent): Record<string, unknown> {
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

/** Bytes become `{"base64": ...}` so JSON output stays lossless. */
function jsonSafe(value: unknown): unknown {
  if (value instanceof Uint8Array) return { base64: Buffer.from(value).toString('base64') }
  if (Array.isArray(value)) return value.map(jsonSafe)
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, jsonSafe(inner)]))
  }
  return value
}
