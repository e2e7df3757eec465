import { QuireError } from '../errors.js'

/**
 * The names a person's saved browser state goes by: a session's `handle` (BR.SESSION_SAVE.1) and a named profile
 * (BR.OPEN.4). Both are 1–128 characters of `[A-Za-z0-9._-]`. A name made only of dots (`.`, `..`) matches that set
 * but names a folder's self or parent on every file system, so it is refused too: no name can point the store
 * outside itself.
 */
export const SAVED_NAME_PATTERN = /^[A-Za-z0-9._-]{1,128}$/
export const SAVED_NAME_MAX = 128

/** Why `name` cannot be a handle or a profile name, or undefined when it can. */
export function savedNameProblem(name: string): string | undefined {
  if (!SAVED_NAME_PATTERN.test(name)) return `must be 1–${SAVED_NAME_MAX} characters of letters, digits, ".", "_" and "-"`
  if (/^\.+$/.test(name)) return 'must not be only dots'
  return undefined
}

/** Throws INVALID_ARGUMENT naming what is wrong with `name` (`what`: "handle" or "profile"). */
export function checkSavedName(what: 'handle' | 'profile', name: string): string {
  const problem = savedNameProblem(name)
  if (problem !== undefined) throw new QuireError('INVALID_ARGUMENT', `${what} ${problem}`)
  return name
}
