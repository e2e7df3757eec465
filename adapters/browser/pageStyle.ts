import { BrowserError } from './errors.js'
import type { TabHandle } from './tabHandle.js'

/**
 * `browser.style` (BR.STYLE.1, BR.STYLE.3): one target, a ref or a CSS selector, and exactly one change, made from the
 * isolated world. `set` writes inline declarations (`{color: 'red'}`, camelCase or kebab-case, `!important` allowed,
 * every one checked with CSS.supports first so none is half applied); `addClasses` / `removeClasses` take class
 * names; `injectCss` appends one `<style data-quire-style>` sheet to each document or shadow root the targets are in.
 */

/** The largest injected style sheet, in UTF-8 bytes (VMark's MAX_SCRIPT_BYTES). */
export const MAX_CSS_BYTES = 65_536

export type StyleTarget = { readonly ref: string } | { readonly selector: string }
export type StyleChange =
  | { readonly set: Readonly<Record<string, string>> }
  | { readonly addClasses: readonly string[] }
  | { readonly removeClasses: readonly string[] }
  | { readonly injectCss: string }

export interface StyleResult {
  readonly changed: 'set' | 'addClasses' | 'removeClasses' | 'injectCss'
  /** How many elements the target named (0 when a selector matched nothing: nothing changed). */
  readonly elements: number
  readonly url: string
  readonly generation: number
}

const CHANGES = ['set', 'addClasses', 'removeClasses', 'injectCss'] as const
const TARGETS = ['ref', 'selector'] as const

function invalid(message: string): BrowserError {
  return new BrowserError('INVALID_ARGUMENT', message)
}

function checkClasses(field: string, value: unknown): readonly string[] {
  if (!Array.isArray(value) || value.length === 0) throw invalid(`${field} must be a non-empty list of class names`)
  for (const name of value) {
    if (typeof name !== 'string' || name === '' || /\s/.test(name)) throw invalid(`${field} holds class names without spaces, not ${JSON.stringify(name)}`)
  }
  return value as string[]
}

/** `request` holds the target and the change together, or the change comes as its own argument. */
export async function runStyle(tab: TabHandle, request: StyleTarget | (StyleTarget & StyleChange), change?: StyleChange): Promise<StyleResult> {
  if (typeof request !== 'object' || request === null) throw invalid('style takes a target and a change')
  const all: Record<string, unknown> = { ...request, ...(change ?? {}) }
  for (const field of Object.keys(all)) {
    if (all[field] !== undefined && !(CHANGES as readonly string[]).includes(field) && !(TARGETS as readonly string[]).includes(field)) {
      throw invalid(`style does not take ${field}`)
    }
  }
  const targets = TARGETS.filter((field) => all[field] !== undefined)
  const changes = CHANGES.filter((field) => all[field] !== undefined)
  if (targets.length !== 1) throw invalid('style takes exactly one target: ref or selector')
  if (changes.length !== 1) throw invalid('style takes exactly one change: set, addClasses, removeClasses or injectCss')
  const changed = changes[0]!
  const args: Record<string, unknown> = {}
  if (targets[0] === 'ref') {
    if (typeof all.ref !== 'string') throw invalid('ref must be a string')
    args.ref = tab.localRef(all.ref)
  } else {
    if (typeof all.selector !== 'string' || all.selector.trim() === '') throw new BrowserError('INVALID_SELECTOR', 'selector must be a non-empty CSS selector')
    args.selector = all.selector
  }
  if (changed === 'set') {
    const set = all.set
    if (typeof set !== 'object' || set === null || Array.isArray(set) || Object.keys(set).length === 0) throw invalid('set must be {property: value}, at least one')
    for (const [property, value] of Object.entries(set)) {
      if (!/^(--)?[A-Za-z][\w-]*$/.test(property)) throw invalid(`${JSON.stringify(property)} is not a CSS property name`)
      if (typeof value !== 'string') throw invalid(`the value of ${property} must be a string`)
    }
    args.set = set
  } else if (changed === 'injectCss') {
    if (typeof all.injectCss !== 'string' || all.injectCss === '') throw invalid('injectCss must be a non-empty style sheet')
    if (Buffer.byteLength(all.injectCss, 'utf8') > MAX_CSS_BYTES) throw invalid(`injectCss must be at most ${MAX_CSS_BYTES} UTF-8 bytes`)
    args.injectCss = all.injectCss
  } else {
    args[changed] = checkClasses(changed, all[changed])
  }
  const generation = tab.generation()
  const page = await tab.session.evaluate<{ missingRef?: true; invalidSelector?: string; invalidStyle?: string; elements?: number }>(
    `__quireAgent.style(${JSON.stringify(args)})`, { once: true },
  )
  if (page.missingRef) {
    if (tab.generation() !== generation) throw new BrowserError('STALE_REF', 'the page navigated since this ref was read; read it again', { generation: tab.generation() })
    throw new BrowserError('REF_NOT_FOUND', 'the element of this ref is no longer in the page')
  }
  if (page.invalidSelector !== undefined) throw new BrowserError('INVALID_SELECTOR', page.invalidSelector)
  if (page.invalidStyle !== undefined) throw new BrowserError('INVALID_STYLE', `the page's CSS does not take ${page.invalidStyle}`)
  return { changed, elements: page.elements ?? 0, url: tab.url(), generation: tab.generation() }
}
