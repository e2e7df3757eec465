/**
 * Quire's own files are private; the person's documents keep the person's permissions (issue 11, finding 6).
 *
 * At start-up the process sets its umask to 077 (`keepOwnFilesPrivate`, called by the CLI before it opens anything):
 * every file that LevelDB (which creates files as long as it runs), the port file or anything else of Quire's creates
 * is then 0600 and every directory 0700, whatever umask the person started it with. Documents are not Quire's: a new
 * one gets the mode the person's umask gives (0666 & ~umask, as with any editor), so that umask is remembered here.
 */
let personUmask: number | undefined

/** Remembers the person's umask and sets the process's to 077. Idempotent. */
export function keepOwnFilesPrivate(): void {
  personUmask ??= process.umask()
  process.umask(0o077)
}

/** The permission bits for a document file Quire creates (save_as): 0666 minus the person's umask. */
export function newDocumentMode(): number {
  // `process.umask()` without an argument only reads it (setting and restoring it would race file creations on
  // libuv's threads); in-process embedders that never called keepOwnFilesPrivate get the current umask.
  return 0o666 & ~(personUmask ?? process.umask())
}

/** The permission bits for a folder the person creates from the console: 0777 minus the person's umask. */
export function newFolderMode(): number {
  return 0o777 & ~(personUmask ?? process.umask())
}
