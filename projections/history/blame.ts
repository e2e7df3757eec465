import { diffLines } from 'diff'
import { documentStream } from '../../core/documents/events.js'
import { DocumentState } from '../../core/documents/documentState.js'
import { revisionToken } from '../../core/documents/revision.js'
import type { EventLog } from '../../core/log/eventLog.js'
import { actorName } from '../audit/auditIndex.js'

/** Who last changed a line: an assistant's name, `person`, `disk` or `system`, when, and at which log position. */
export interface Attribution {
  readonly by: string
  readonly at: number
  readonly position: number
}

export interface BlameLine extends Attribution {
  /** 1-based. */
  readonly line: number
  readonly text: string
}

/** A run of characters [from, to) whose lines the same change last wrote. */
export interface BlameSpan extends Attribution {
  readonly from: number
  readonly to: number
}

export interface Blame {
  readonly revision: string
  readonly lines: readonly BlameLine[]
  readonly spans: readonly BlameSpan[]
}

/**
 * Each line of a document (as of log position `to`, default now) with who last changed it: the document's stream
 * folded event by event, and each change's text compared line by line with the text before it; a line the change
 * wrote or altered is its author's, the others keep theirs.
 */
export async function blameDocument(log: Pick<EventLog, 'readStream'>, docId: string, to = Number.MAX_SAFE_INTEGER): Promise<Blame> {
  const state = new DocumentState(docId)
  let owners: Attribution[] = []
  let text = ''
  try {
    for await (const event of log.readStream(documentStream(docId))) {
      if (event.position > to) break
      state.apply(event)
      const next = state.content
      if (next === text) continue
      const by: Attribution = { by: actorName(event.actor), at: event.at, position: event.position }
      const carried: Attribution[] = []
      let old = 0
      for (const part of diffLines(text, next)) {
        const count = part.count ?? 0
        if (part.removed) old += count
        else if (part.added) for (let i = 0; i < count; i++) carried.push(by)
        else for (let i = 0; i < count; i++) carried.push(owners[old++]!)
      }
      owners = carried
      text = next
    }
    const lineTexts = text.match(/[^\n]*\n|[^\n]+$/g) ?? []
    const lines = lineTexts.map((lineText, index) => ({ line: index + 1, text: lineText.replace(/\n$/, ''), ...owners[index]! }))
    const spans: BlameSpan[] = []
    let offset = 0
    lineTexts.forEach((lineText, index) => {
      const owner = owners[index]!
      const last = spans[spans.length - 1]
      if (last && last.position === owner.position) spans[spans.length - 1] = { ...last, to: offset + lineText.length }
      else spans.push({ ...owner, from: offset, to: offset + lineText.length })
      offset += lineText.length
    })
    return { revision: state.revision, lines, spans }
  } finally {
    state.destroy()
  }
}
