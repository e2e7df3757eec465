import { parseArgs } from 'node:util'
import { resolveDocument } from '../../../core/audit/resolve.js'
import { QuireError } from '../../../core/errors.js'
import { USER } from '../../../core/events/actor.js'
import type { ReviewOutcome, SessionUndone } from '../../../core/review/commands.js'
import type { ChangeView } from '../../../core/review/views.js'
import type { ReviewDone, ReviewListing } from '../../http/adminReview.js'
import { withOwner } from '../owner.js'
import { parseTimeOrRevision } from '../timeArgument.js'
import { UsageError } from '../usage.js'

const USAGE = 'review list PATH_OR_ID [--all] [--json] | keep|undo|redo PATH_OR_ID CHANGE_ID [--hunk N]... | undo PATH_OR_ID --agent NAME [--since TIME_OR_REVISION] | mark PATH_OR_ID'

/**
 * `quire review`: the person's review of AI changes from a shell (DESIGN §11), through the daemon when one runs, else
 * on the data directory. `list` shows each change (id, agent, time, revision, characters inserted and deleted, state);
 * `keep` marks a change (or hunks of it) reviewed; `undo` takes it back, keeping everything anyone else typed, or
 * takes back every pending change of one assistant (`--agent`, since a time or revision); `redo` undoes an undo;
 * `mark` is the console's "Mark all reviewed". Each prints what it did and the document's revision after.
 */
export async function reviewCommand(home: string, args: string[], out: (line: string) => void): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { all: { type: 'boolean' }, json: { type: 'boolean' }, hunk: { type: 'string', multiple: true }, agent: { type: 'string' }, since: { type: 'string' } },
  }).valueOf() as { values: { all?: boolean; json?: boolean; hunk?: string[]; agent?: string; since?: string }; positionals: string[] }
  const [action, doc, change, ...rest] = positionals
  if (!action || !doc || rest.length > 0) throw new UsageError(USAGE)
  const cwd = process.cwd()
  const hunks = values.hunk?.map((value) => {
    if (!/^\d+$/.test(value)) throw new UsageError(`--hunk takes a hunk's number (0, 1, …; review list --json shows them), not ${JSON.stringify(value)}`)
    return Number(value)
  })
  switch (action) {
    case 'list': {
      if (change !== undefined) throw new UsageError(USAGE)
      const listing = await withOwner<ReviewListing>(
        home,
        (owner) => owner.request<ReviewListing>('GET', `/admin/review?${new URLSearchParams({ doc, cwd, ...(values.all ? { all: '1' } : {}) })}`),
        async ({ engine, review }) => {
          const docId = await resolveDocument(engine, doc, cwd)
          return { docId, changes: (await review.list(docId)).filter((one) => values.all || one.state === 'pending') }
        },
      )
      if (values.json) for (const one of listing.changes) out(JSON.stringify(one))
      else printListing(listing, values.all === true, out)
      return 0
    }
    case 'keep':
    case 'redo':
    case 'undo': {
      if (action === 'undo' && values.agent !== undefined) {
        if (change !== undefined || hunks !== undefined) throw new UsageError('review undo PATH_OR_ID --agent NAME [--since TIME_OR_REVISION] takes no change id or --hunk')
        const since = values.since === undefined ? undefined : parseTimeOrRevision(values.since)
        const done = await withOwner<ReviewDone>(
          home,
          (owner) => owner.request<ReviewDone>('POST', '/admin/review/undo', { doc, cwd, agent: values.agent, ...(since === undefined ? {} : { since }) }),
          async ({ engine, review }) => {
            const docId = await resolveDocument(engine, doc, cwd)
            return { docId, ...(await review.undoBy(docId, { principal: values.agent!, since }, USER)) }
          },
        )
        printSession(done as { docId: string } & SessionUndone, values.agent, out)
        return 0
      }
      if (!change) throw new UsageError(USAGE)
      const done = await withOwner<ReviewDone>(
        home,
        (owner) => owner.request<ReviewDone>('POST', `/admin/review/${action}`, { doc, cwd, change, ...(hunks ? { hunks } : {}) }),
        async ({ engine, review }) => {
          const docId = await resolveDocument(engine, doc, cwd)
          const act = action === 'keep' ? review.keep.bind(review) : action === 'undo' ? review.undo.bind(review) : review.redo.bind(review)
          return { docId, ...(await act(docId, change, hunks, USER)) }
        },
      )
      printOutcome(action, done as { docId: string } & ReviewOutcome, out)
      return 0
    }
    case 'mark': {
      if (change !== undefined) throw new UsageError(USAGE)
      const marked = await withOwner(
        home,
        (owner) => owner.request<{ docId: string; revision: string; reviewed: number }>('POST', '/admin/review', { doc, cwd }),
        async ({ engine, review }) => {
          const docId = await resolveDocument(engine, doc, cwd)
          const state = await engine.documents.get(docId)
          if (!state) throw new QuireError('NOT_FOUND', `no document ${docId}`)
          const reviewed = await review.unreviewed(docId)
          await review.markReviewed(docId, state.revision, USER)
          return { docId, revision: state.revision, reviewed }
        },
      )
      const changes = marked.reviewed === 1 ? '1 AI change' : `${marked.reviewed} AI changes`
      out(`${marked.docId}: reviewed up to ${marked.revision} (${marked.reviewed === 0 ? 'nothing was unreviewed' : `${changes} marked reviewed`})`)
      return 0
    }
    default:
      throw new UsageError(USAGE)
  }
}

function printListing(listing: ReviewListing, all: boolean, out: (line: string) => void): void {
  if (listing.changes.length === 0) {
    out(`${listing.docId}: ${all ? 'no AI change' : 'no pending AI change (review list --all shows the reviewed ones)'}`)
    return
  }
  const agentWidth = Math.max(5, ...listing.changes.map((change) => change.agent.length))
  out(`${'change'.padEnd(10)}  ${'agent'.padEnd(agentWidth)}  ${'time'.padEnd(24)}  ${'revision'.padEnd(10)}  ${'+chars'.padStart(7)}  ${'-chars'.padStart(7)}  state`)
  for (const change of listing.changes) out(changeLine(change, agentWidth))
}

function changeLine(change: ChangeView, agentWidth: number): string {
  const hunks = change.hunks.length === 1 ? '' : ` (${change.hunks.map((hunk) => hunk.state[0]).join('')})`
  return `${change.id.padEnd(10)}  ${change.agent.padEnd(agentWidth)}  ${change.at.padEnd(24)}  ${change.revision.padEnd(10)}  ${`+${change.inserted}`.padStart(7)}  ${`-${change.deleted}`.padStart(7)}  ${change.state}${hunks}`
}

const PAST = { keep: 'kept', undo: 'undid', redo: 'redid' } as const

function printOutcome(action: 'keep' | 'undo' | 'redo', done: { docId: string } & ReviewOutcome, out: (line: string) => void): void {
  const hunks = done.done.length === 0 ? 'nothing' : `hunk${done.done.length === 1 ? '' : 's'} ${done.done.join(', ')}`
  out(`${done.docId}: ${PAST[action]} ${hunks} of ${done.change}; now ${done.revision}`)
  for (const skipped of done.skipped) out(`  hunk ${skipped.index} left as it is: ${skipped.reason}`)
}

function printSession(done: { docId: string } & SessionUndone, agent: string, out: (line: string) => void): void {
  const undone = done.changes.filter((change) => change.undone.length > 0).length
  out(`${done.docId}: undid ${undone} change${undone === 1 ? '' : 's'} by ${agent} (${done.changes.map((change) => change.change).join(', ')}); now ${done.revision}`)
  for (const change of done.changes) for (const skipped of change.skipped) out(`  ${change.change} hunk ${skipped.index} left as it is: ${skipped.reason}`)
}
