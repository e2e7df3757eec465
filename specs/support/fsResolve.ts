import { lstatSync, readlinkSync, statSync } from 'node:fs'

/**
 * An independent model of how the kernel resolves a path, for the path-scope property test: walk the components
 * one by one with `lstat`/`readlink` (never `realpath`), expanding symlinks in place (relative targets against the
 * link's directory), `..` against the resolved directory, 40 links at most. It is the oracle `realpath` is checked
 * against, so it shares no code with adapters/fs.
 */
export type KernelResolution =
  /** Everything resolved; `real` is the symlink-free location. */
  | { readonly kind: 'exists'; readonly real: string }
  /** Everything but the last component resolved, and that one does not exist: `parent` is its real directory. */
  | { readonly kind: 'missing'; readonly parent: string; readonly name: string }
  /** Resolution failed before the last component (a missing or non-directory component, a loop). */
  | { readonly kind: 'error'; readonly code: 'ENOENT' | 'ENOTDIR' | 'ELOOP' }

const MAX_LINKS = 40

const isDirectory = (path: string): boolean => {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

const parentOf = (path: string): string => (path === '/' ? '/' : path.slice(0, path.lastIndexOf('/')) || '/')
const child = (directory: string, name: string): string => (directory === '/' ? `/${name}` : `${directory}/${name}`)

export function resolveLikeTheKernel(absolute: string): KernelResolution {
  if (!absolute.startsWith('/')) throw new Error('absolute paths only')
  const pending = absolute.split('/').slice(1)
  let current = '/'
  let links = 0
  while (pending.length > 0) {
    const component = pending.shift()!
    // Whatever comes next (a name, `.`, `..`, or the empty component of `//` or a trailing `/`) needs a directory.
    if (!isDirectory(current)) return { kind: 'error', code: 'ENOTDIR' }
    if (component === '' || component === '.') continue
    if (component === '..') {
      current = parentOf(current)
      continue
    }
    const next = child(current, component)
    let isLink: boolean
    try {
      isLink = lstatSync(next).isSymbolicLink()
    } catch {
      if (pending.length === 0) return { kind: 'missing', parent: current, name: component }
      return { kind: 'error', code: 'ENOENT' }
    }
    if (isLink) {
      if (++links > MAX_LINKS) return { kind: 'error', code: 'ELOOP' }
      const target = readlinkSync(next)
      if (target.startsWith('/')) current = '/'
      pending.unshift(...target.split('/').filter((part, index) => !(index === 0 && part === '')))
      continue
    }
    current = next
  }
  return { kind: 'exists', real: current }
}

/** `candidate` is `root` or below it, compared as lists of path segments (no string prefixes involved). */
export function segmentsWithin(candidate: string, root: string): boolean {
  const segments = (path: string): string[] => path.split('/').filter((part) => part !== '')
  const inner = segments(candidate)
  const outer = segments(root)
  return outer.length <= inner.length && outer.every((part, index) => inner[index] === part)
}
