import { QuireError } from '../../core/errors.js'
import { previousPort } from '../http/portFile.js'

/** Listen errors that mean "this port is not ours to take now": another program holds it, or it is privileged. */
const PORT_UNAVAILABLE = new Set(['EADDRINUSE', 'EACCES'])
const unavailable = (error: unknown): boolean => PORT_UNAVAILABLE.has((error as NodeJS.ErrnoException).code ?? '')

/**
 * Starts the daemon's server. With `--port N`, on N or not at all. Without, on the port this data directory's
 * previous daemon used (portFile.ts `previousPort`), so the console's address survives a restart, and on a free
 * port when there was none or another program has it now. The port file then says which one it got.
 */
export async function listenForServe<T>(home: string, requested: number | undefined, listen: (port: number) => Promise<T>): Promise<T> {
  if (requested !== undefined) {
    try {
      return await listen(requested)
    } catch (error) {
      if (!unavailable(error)) throw error
      throw new QuireError('UNAVAILABLE', `port ${requested} is not free (${(error as NodeJS.ErrnoException).code}); choose another --port, or leave it out for the previous or a free one`)
    }
  }
  const previous = await previousPort(home)
  if (previous !== undefined) {
    try {
      return await listen(previous)
    } catch (error) {
      if (!unavailable(error)) throw error
    }
  }
  return listen(0)
}
