import type { JournalOperation } from './events.js'

/** What an assistant's edit is, as the checks of other concepts see it. */
export interface EditHookInput {
  readonly docId: string
  readonly operation: JournalOperation
  /** The comment ids the edit says it addresses (COM.ADDR.*); absent when it names none. */
  readonly addresses: readonly string[] | undefined
}

/**
 * A check an assistant's edit must pass, owned by another concept and registered under its name (Hocuspocus's
 * named hooks): the review backlog (DOC.WRITE.18), the comment addresses (COM.ADDR.4–6), the person's IME
 * composition (DOC.WRITE.15). Each refuses by throwing the QuireError its rule names; none changes anything.
 */
export interface EditHook {
  readonly name: string
  /** Before the document's write turn is taken; may read the log (the backlog folds the document's stream). */
  beforeTurn?(input: EditHookInput): Promise<void>
  /** In the turn, right before the journal entry: synchronous, so nothing can come between the check and the entry. */
  inTurn?(input: EditHookInput): void
}

/** The registered edit checks, run in registration order. */
export class EditHooks {
  private readonly hooks: EditHook[] = []

  register(hook: EditHook): void {
    if (this.hooks.some((known) => known.name === hook.name)) throw new Error(`edit hook ${hook.name} registered twice`)
    this.hooks.push(hook)
  }

  async beforeTurn(input: EditHookInput): Promise<void> {
    for (const hook of this.hooks) await hook.beforeTurn?.(input)
  }

  inTurn(input: EditHookInput): void {
    for (const hook of this.hooks) hook.inTurn?.(input)
  }
}
