import { isExpectedVersionConflict } from '../log/errors.js'

/**
 * How many times an owner decides again after another node appended to its stream first. Each retry follows a
 * reload that brings in the winner's events, so a second conflict needs yet another node's append in between.
 */
export const CONFLICT_RETRIES = 5

/**
 * Runs `attempt`; when its append meets ExpectedVersionConflictError (only a log that several nodes share raises it:
 * on one node the stream's step keeps its appends in line), calls `catchUp` to fold what the other node appended
 * and runs `attempt` again, at most CONFLICT_RETRIES times. Any other failure, and the last conflict, go to the
 * caller. `attempt` must decide from the state afresh each time.
 */
export async function retryingConflicts<T>(attempt: () => Promise<T>, catchUp: () => Promise<void>): Promise<T> {
  for (let tries = 0; ; tries += 1) {
    try {
      return await attempt()
    } catch (error) {
      if (!isExpectedVersionConflict(error) || tries >= CONFLICT_RETRIES) throw error
      await catchUp()
    }
  }
}
