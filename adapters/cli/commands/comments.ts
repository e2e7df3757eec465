import { parseArgs } from 'node:util'
import { resolveDocument } from '../../../core/audit/resolve.js'
import { USER } from '../../../core/events/actor.js'
import type { ThreadView } from '../../../core/comments/views.js'
import { withOwner } from '../owner.js'
import { UsageError } from '../usage.js'

const USAGE = 'comments list PATH_OR_ID | add PATH_OR_ID --from N --to N BODY | reply PATH_OR_ID COMMENT_ID BODY | resolve|reopen|delete PATH_OR_ID COMMENT_ID'

/**
 * `quire comments ...`: the person's side of review threads. Only the person opens threads (anchored to a range of
 * the text by character offsets) and resolves, reopens or deletes them; assistants list, reply and mark addressed.
 */
export async function commentsCommand(home: string, args: string[], out: (line: string) => void): Promise<number> {
  const { positionals, values } = parseArgs({
    args, allowPositionals: true, options: { from: { type: 'string' }, to: { type: 'string' } },
  })
  const [action, doc, ...rest] = positionals
  if (!action || !doc) throw new UsageError(USAGE)
  const cwd = process.cwd()
  if (action === 'list') {
    if (rest.length > 0) throw new UsageError(USAGE)
    const { docId, threads } = await withOwner(
      home,
      (owner) => owner.request<{ docId: string; threads: ThreadView[] }>('GET', `/admin/comments?doc=${encodeURIComponent(doc)}&cwd=${encodeURIComponent(cwd)}`),
      async (services) => {
        const docId = await resolveDocument(services.engine, doc, cwd)
        return { docId, threads: await services.comments.threads(docId) }
      },
    )
    out(`comments of ${docId}`)
    if (threads.length === 0) out('no comments')
    for (const thread of threads) formatThread(thread, out)
    return 0
  }
  if (action === 'add') {
    const from = offset(values.from, '--from')
    const to = offset(values.to, '--to')
    if (rest.length !== 1) throw new UsageError(USAGE)
    const body = rest[0]!
    const created = await withOwner(
      home,
      (owner) => owner.request<{ comment: string; commentGen: string }>('POST', '/admin/comments', { doc, cwd, from, to, body }),
      async (services) => services.comments.create(await resolveDocument(services.engine, doc, cwd), { from, to }, body, USER),
    )
    out(created.comment)
    return 0
  }
  if (action === 'reply') {
    const [commentId, body, ...extra] = rest
    if (!commentId || body === undefined || extra.length > 0) throw new UsageError(USAGE)
    const replied = await withOwner(
      home,
      (owner) => owner.request<{ reply: string }>('POST', `/admin/comments/${encodeURIComponent(commentId)}/replies`, { doc, cwd, body }),
      async (services) => services.comments.reply(await resolveDocument(services.engine, doc, cwd), commentId, body, undefined, USER),
    )
    out(replied.reply)
    return 0
  }
  if (action === 'resolve' || action === 'reopen' || action === 'delete') {
    const [commentId, ...extra] = rest
    if (!commentId || extra.length > 0) throw new UsageError(USAGE)
    await withOwner(
      home,
      (owner) => owner.request('POST', `/admin/comments/${encodeURIComponent(commentId)}/${action}`, { doc, cwd }),
      async (services) => {
        const docId = await resolveDocument(services.engine, doc, cwd)
        if (action === 'resolve') return services.comments.resolve(docId, commentId, USER)
        if (action === 'reopen') return services.comments.reopen(docId, commentId, USER)
        return services.comments.delete(docId, commentId, USER)
      },
    )
    out(`${commentId}: ${action === 'delete' ? 'deleted' : action === 'resolve' ? 'resolved' : 'reopened'}`)
    return 0
  }
  throw new UsageError(USAGE)
}

function offset(value: string | undefined, name: string): number {
  if (value === undefined || !/^\d+$/.test(value)) throw new UsageError(`comments add needs ${name} N (a character offset)`)
  return Number(value)
}

const bodyText = (item: { body?: string; bodyBase64?: string }): string =>
  item.body ?? Buffer.from(item.bodyBase64 ?? '', 'base64').toString('utf8')

function formatThread(thread: ThreadView, out: (line: string) => void): void {
  const { head } = thread
  const lost = head.anchorLost ? ' (anchor gone)' : ''
  out(`${head.comment}  ${head.state.padEnd(9)} ${head.commentGen}  on ${JSON.stringify(head.quote)}${lost}`)
  out(`    ${head.author}: ${bodyText(head)}`)
  for (const reply of thread.replies) out(`    ${reply.reply} ${reply.author}: ${bodyText(reply)}`)
}
