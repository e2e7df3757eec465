import { expect } from 'vitest'
import { isQuireError } from '../../core/errors.js'
import type { EventInput, RecordedEvent } from '../../core/log/eventLog.js'

/**
 * Emmett's given/when/then for a pure decider: given the events a stream already holds (folded with its `evolve`),
 * when a command is decided, then exactly these events are decided, or this refusal (a QuireError code) is thrown.
 * Nothing is appended anywhere: the decider is a function of the command and the state.
 */
export function deciderSpec<Command, State>(
  stream: string,
  decide: (command: Command, state: State) => readonly EventInput[],
  evolve: (state: State, event: RecordedEvent) => State,
  initial: () => State,
) {
  return {
    given(history: readonly EventInput[], at = 1_000) {
      const state = history.reduce(
        (folded, input, index) =>
          evolve(folded, { position: index + 1, stream, streamVersion: index + 1, v: 1, at, type: input.type, actor: input.actor, data: input.data }),
        initial(),
      )
      return {
        state,
        when(command: Command) {
          return {
            then(expected: readonly EventInput[]) {
              expect(decide(command, state)).toEqual(expected)
            },
            thenRefuses(code: string, message?: RegExp) {
              let thrown: unknown
              try {
                decide(command, state)
              } catch (error) {
                thrown = error
              }
              expect(isQuireError(thrown, code), `expected the refusal ${code}, got ${String(thrown)}`).toBe(true)
              if (message) expect((thrown as Error).message).toMatch(message)
            },
          }
        },
      }
    },
  }
}
