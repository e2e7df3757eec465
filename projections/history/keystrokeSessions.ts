import { describeActor } from '../../core/events/actor.js'
import { SESSION_GAP_MS } from './editSessions.js'
import type { AuditEntry } from '../audit/auditIndex.js'

/** The person's keystrokes in one document, one after the other with no more than five minutes between them. */
export interface TypingSession {
  readonly position: number
  readonly at: number
  readonly until: number
  readonly actor: AuditEntry['actor']
  readonly stream: string
  readonly keystrokes: number
}

/**
 * Folds runs of keystrokes (`quire log --no-keystrokes`): consecutive keystroke entries of one peer in one stream
 * become one session; any other entry, another peer or stream, or a pause longer than an editing session's ends it.
 */
export class KeystrokeFolder {
  private open: { -readonly [K in keyof TypingSession]: TypingSession[K] } | undefined

  constructor(private readonly emit: (item: AuditEntry | TypingSession) => void) {}

  push(entry: AuditEntry): void {
    const open = this.open
    if (entry.keystroke && open && open.stream === entry.stream && describeActor(open.actor) === describeActor(entry.actor) && entry.at - open.until <= SESSION_GAP_MS) {
      open.until = entry.at
      open.keystrokes++
      return
    }
    this.finish()
    if (entry.keystroke) this.open = { position: entry.position, at: entry.at, until: entry.at, actor: entry.actor, stream: entry.stream, keystrokes: 1 }
    else this.emit(entry)
  }

  finish(): void {
    if (this.open) this.emit(this.open)
    this.open = undefined
  }
}

export const isTypingSession = (item: AuditEntry | TypingSession): item is TypingSession => 'keystrokes' in item
