import type { ConsoleCommentThread } from '../../../adapters/http/consoleCommentsApi.js'
import { h } from '../dom.js'
import type { CommentDecision } from './commentsApi.js'

export interface ThreadActions {
  readonly onReply: (body: string) => void
  readonly onDecide: (decision: CommentDecision) => void
}

/** `user` is the person ("You"); an assistant is named by its principal and marked as AI. */
export function authorLabel(author: string): string {
  if (author === 'user') return 'You'
  return author.startsWith('mcp:') ? `${author.slice(4)} (AI)` : author
}

/**
 * One thread: state badge, the quoted text, the opening comment, replies (an assistant's marked as such), a reply
 * box and the person's decisions. Resolve only while not resolved; Reopen only once addressed or resolved, as the
 * server allows (a thread already open has nothing to reopen).
 */
export function renderThread(thread: ConsoleCommentThread, actions: ThreadActions): HTMLElement {
  const badge = h('span', { className: `comment-state state-${thread.state}`, text: thread.state })
  const quote = h('blockquote', {
    className: `comment-quote${thread.anchorLost ? ' lost' : ''}`,
    text: thread.quote + (thread.quoteTruncated ? '…' : ''),
    title: thread.anchorLost ? 'The commented text was removed; this is what it said.' : '',
  })
  const head = h('div', { className: 'comment-head' }, badge, h('span', { className: 'comment-author', text: authorLabel(thread.author) }), h('time', { className: 'comment-time', text: shortTime(thread.createdAt), attrs: { datetime: thread.createdAt } }))
  const body = h('p', { className: 'comment-body', text: thread.body })
  const replies = h(
    'ol',
    { className: 'comment-replies' },
    ...thread.replies.map((reply) =>
      h(
        'li',
        { className: `comment-reply${reply.author.startsWith('mcp:') ? ' ai' : ''}`, attrs: { 'data-reply-id': reply.id, 'data-author': reply.author } },
        h('div', { className: 'comment-head' }, h('span', { className: 'comment-author', text: authorLabel(reply.author) }), h('time', { className: 'comment-time', text: shortTime(reply.at), attrs: { datetime: reply.at } })),
        h('p', { className: 'comment-body', text: reply.body }),
      ),
    ),
  )
  const input = h('textarea', { className: 'comment-reply-input', attrs: { rows: '2', placeholder: 'Reply…', 'aria-label': 'Reply' } })
  const send = h('button', { className: 'comment-reply-send', text: 'Reply', attrs: { type: 'button' }, onClick: () => submit() })
  const submit = () => {
    const text = input.value.trim()
    if (text !== '') actions.onReply(text)
  }
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) submit()
  })
  const decide = (decision: CommentDecision, text: string) =>
    h('button', { className: `comment-${decision}`, text, attrs: { type: 'button' }, onClick: () => actions.onDecide(decision) })
  const buttons: HTMLElement[] = []
  if (thread.state !== 'resolved') buttons.push(decide('resolve', 'Resolve'))
  if (thread.state === 'resolved' || thread.state === 'addressed') buttons.push(decide('reopen', 'Reopen'))
  buttons.push(decide('delete', 'Delete'))
  return h(
    'li',
    { className: `comment-thread state-${thread.state}`, attrs: { 'data-comment-id': thread.id, 'data-state': thread.state } },
    head,
    quote,
    body,
    replies,
    h('div', { className: 'comment-compose' }, input, send),
    h('div', { className: 'comment-actions' }, ...buttons),
  )
}

function shortTime(iso: string): string {
  const date = new Date(iso)
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })
}
