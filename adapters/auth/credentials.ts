import { timingSafeEqual } from 'node:crypto'

/** The bearer token of a request, if any. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null
  return match?.[1]
}

/** Whether two secrets are equal, compared in constant time (a timing side channel leaks nothing of the token). */
export function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}
