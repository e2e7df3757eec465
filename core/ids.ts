import { randomBytes } from 'node:crypto'

/** A fresh identifier like `tab-3f9a1c0b2e`: a readable kind prefix and 40 random bits, unique in practice. */
export const newId = (prefix: string): string => `${prefix}-${randomBytes(5).toString('hex')}`
