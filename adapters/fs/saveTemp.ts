/** Names of the temp files a save writes beside its target (atomicWrite.ts) and the start-up sweep removes (staleTemps.ts). */

/** Anything named like a save's temp file: Quire's own, never opened or written for anyone (pathScope.ts). */
export const isSaveTempName = (name: string): boolean => name.startsWith('.quire-save-') && name.endsWith('.tmp')
