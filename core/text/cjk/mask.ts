import { findProtectedRegions, type ProtectedRegionOptions } from './protectedRegions.js'

/**
 * A document with each protected region replaced by one placeholder character (see placeholders.ts): the rules
 * rewrite `masked`, which is pure prose plus placeholders, and {@link unmask} puts the regions back byte for byte.
 */
export interface Masked {
  readonly masked: string
  readonly atoms: readonly string[]
}

export function mask(text: string, options: ProtectedRegionOptions = {}): Masked {
  const regions = findProtectedRegions(text, options)
  if (regions.length === 0) return { masked: text, atoms: [] }
  const pieces: string[] = []
  const atoms: string[] = []
  let at = 0
  for (const region of regions) {
    pieces.push(text.slice(at, region.start), region.placeholder)
    atoms.push(text.slice(region.start, region.end))
    at = region.end
  }
  pieces.push(text.slice(at))
  return { masked: pieces.join(''), atoms }
}

/**
 * Restores the protected regions in order. Throws if the rules lost or duplicated a placeholder: that is a bug in a
 * rule, and returning a document with a code block missing would be far worse than failing the transform.
 */
export function unmask(masked: string, atoms: readonly string[]): string {
  if (atoms.length === 0) return masked
  // Split and join are native copies; a replace with a callback per placeholder is thousands of calls per megabyte.
  const prose = masked.split(PLACEHOLDER)
  if (prose.length - 1 > atoms.length) throw new Error('CJK transform produced more placeholders than protected regions')
  if (prose.length - 1 !== atoms.length) throw new Error('CJK transform lost a protected region')
  const pieces = new Array<string>(prose.length * 2 - 1)
  for (let index = 0; index < atoms.length; index++) {
    pieces[2 * index] = prose[index]!
    pieces[2 * index + 1] = atoms[index]!
  }
  pieces[pieces.length - 1] = prose[prose.length - 1]!
  return pieces.join('')
}

const PLACEHOLDER = /[\uE000-\uE004]/
