/** A command that will not go on, for a reason the person can act on, said in one line (exit status 1). */
export class RefusedError extends Error {}
