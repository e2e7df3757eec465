import { parseArgs } from 'node:util'
import { describeActor } from '../../../core/events/actor.js'
import type { AuditEntry } from '../../../projections/audit/auditIndex.js'
import { formatAuditEvent, type AuditColumns } from '../../../projections/audit/auditEvent.js'
import { isTypingSession, KeystrokeFolder, type TypingSession } from '../../../projections/history/keystrokeSessions.js'
import type { LogLine, LogQuery } from '../../host/auditAnswers.js'
import { withOwner } from '../owner.js'
import { parseTime } from '../timeArgument.js'
import { UsageError } from '../usage.js'

/**
 * Lines the text form measures its columns over before printing them: every listing up to this long is aligned as a
 * whole; a longer one keeps the widths it had and widens them only for what comes later.
 */
const ALIGNED_LINES = 10_000
/** Events one answer of the owning process carries; the next page starts after the last. */
const LOG_PAGE = 10_000

/**
 * `quire log`: the audit trail, oldest first, from the audit index (of the running daemon when one owns the data
 * directory), filtered by actor, type, document and time; writes that did not apply are marked.
 */
export async function logCommand(home: string, args: string[], out: (line: string) => void): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      stream: { type: 'string' },
      actor: { type: 'string' },
      type: { type: 'string', multiple: true },
      doc: { type: 'string' },
      since: { type: 'string' },
      until: { type: 'string' },
      after: { type: 'string' },
      limit: { type: 'string' },
      json: { type: 'boolean', default: false },
      'no-keystrokes': { type: 'boolean', default: false },
    },
  })
  // `--since N` (a whole number) is a log position, as before `--after` took that over.
  const positionSince = values.since !== undefined && /^\d+$/.test(values.since)
  const query: LogQuery = {
    ...(values.actor === undefined ? {} : { actor: values.actor }),
    ...(values.type === undefined ? {} : { types: values.type }),
    ...(values.doc === undefined ? {} : { doc: values.doc, cwd: process.cwd() }),
    ...(values.stream === undefined ? {} : { stream: values.stream }),
    ...(values.since === undefined || positionSince ? {} : { since: parseTime(values.since) }),
    ...(values.until === undefined ? {} : { until: parseTime(values.until) }),
    after: values.after !== undefined ? parseCount('--after', values.after) : positionSince ? Number(values.since) : 0,
    full: values.json,
  }
  const limit = values.limit === undefined ? Number.POSITIVE_INFINITY : parseCount('--limit', values.limit)
  const print = values.json ? jsonPrinter(out) : textPrinter(out)
  const folder = values['no-keystrokes'] ? new KeystrokeFolder(print.item) : undefined
  await withOwner(
    home,
    async (owner) => {
      let after = query.after ?? 0
      for (let left = limit; left > 0; ) {
        const page = Math.min(LOG_PAGE, left)
        const { lines } = await owner.request<{ lines: LogLine[] }>('GET', `/admin/log?${logParams({ ...query, after, limit: page })}`)
        for (const line of lines) folder ? folder.push(line.entry) : print.line(line)
        if (lines.length < page) return
        after = lines[lines.length - 1]!.entry.position
        left -= lines.length
      }
    },
    async (services) => {
      const { auditLogPages } = await import('../../host/auditAnswers.js')
      await auditLogPages(services.readModels, services.engine.store, { ...query, ...(Number.isFinite(limit) ? { limit } : {}) }, (lines) => {
        for (const line of lines) folder ? folder.push(line.entry) : print.line(line)
      })
    },
  )
  folder?.finish()
  print.finish()
  return 0
}

function logParams(query: LogQuery): URLSearchParams {
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue
    if (name === 'types') for (const type of value as string[]) params.append('type', type)
    else if (name === 'full') params.set('full', value ? '1' : '0')
    else params.set(name, String(value))
  }
  return params
}

interface Printer {
  line(line: LogLine): void
  item(item: AuditEntry | TypingSession): void
  finish(): void
}

/** What the text form says of a write that did not change the document. */
const OUTCOME_MARKS = { 'not-applied': '  [NOT APPLIED: aborted, refused or rolled back]', pending: '  [not applied yet]', applied: '' } as const

function textPrinter(out: (line: string) => void): Printer {
  let columns: AuditColumns = { actor: 18, type: 17 }
  let page: Array<{ position: number; at: string; actor: AuditEntry['actor']; type: string; stream: string; summary: string }> = []
  const flush = () => {
    for (const event of page) columns = { actor: Math.max(columns.actor, describeActor(event.actor).length), type: Math.max(columns.type, event.type.length) }
    for (const event of page) out(formatAuditEvent(event, columns))
    page = []
  }
  const item = (item: AuditEntry | TypingSession) => {
    if (isTypingSession(item)) {
      const minutes = Math.max(1, Math.round((item.until - item.at) / 60_000))
      page.push({ ...item, at: new Date(item.at).toISOString(), type: 'typing', summary: `${item.keystrokes} keystroke${item.keystrokes === 1 ? '' : 's'} over ${minutes} min, until ${new Date(item.until).toISOString()}` })
    } else {
      page.push({ ...item, at: new Date(item.at).toISOString(), summary: `${item.summary}${item.outcome ? OUTCOME_MARKS[item.outcome] : ''}` })
    }
    if (page.length === ALIGNED_LINES) flush()
  }
  return { item, line: (line) => item(line.entry), finish: flush }
}

function jsonPrinter(out: (line: string) => void): Printer {
  return {
    line: ({ entry, event }) => out(JSON.stringify({ ...(event ?? entry), ...(entry.outcome ? { outcome: entry.outcome } : {}) })),
    item: (item) => out(JSON.stringify(isTypingSession(item) ? { ...item, type: 'typing', at: new Date(item.at).toISOString(), until: new Date(item.until).toISOString() } : { ...item, at: new Date(item.at).toISOString() })),
    finish: () => undefined,
  }
}

function parseCount(flag: string, value: string): number {
  if (!/^\d+$/.test(value)) throw new UsageError(`${flag} takes a non-negative whole number, not ${JSON.stringify(value)}`)
  return Number(value)
}
