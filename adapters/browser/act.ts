import { BrowserError } from './errors.js'
import { redactUrl } from './url.js'
import type { TabHandle } from './tabHandle.js'

/**
 * `browser.act` (BR.ACT.1–18) on the engine's side: checks the request, runs the page half (actLib.ts) in the isolated
 * world, and turns its answer into a success or an ACT_REFUSED refusal. Authorization is not here: the caller has
 * already decided the action may run; the result names the element acted on (role + name) so it can check that an
 * approval bound that element.
 *
 * A success is returned; a refusal is thrown as `BrowserError('ACT_REFUSED', message, ActRefusalData)`. Both carry
 * matchedTotal, matchedVisible, url and generation (BR.ACT.14), and popup when the page tried to open a window
 * meanwhile (BR.ACT.15). Nothing was done when it refuses, with one exception: `rejected-value` means the text was put
 * in and the page changed or refused it, so the field holds what the page made of it.
 */

export const ACT_OPERATIONS = ['click', 'type', 'scroll', 'key'] as const
export type ActOperation = (typeof ACT_OPERATIONS)[number]

export const ACT_TEXT_CAP = 100_000
export const ACT_DY_CAP = 100_000
const NAME_CAP = 200
const WALK_CAP = 100_000

/** Keys `key` presses besides single characters; `Space` is the same as `" "`. */
export const NAMED_KEYS: readonly string[] = [
  'Enter', 'Tab', 'Escape', 'Backspace', 'Delete', 'Space', 'ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight', 'Home',
  'End', 'PageUp', 'PageDown', ...Array.from({ length: 12 }, (_, i) => `F${i + 1}`),
]

export interface ActModifiers {
  readonly ctrl?: boolean
  readonly shift?: boolean
  readonly alt?: boolean
  readonly meta?: boolean
}

/** An element to act on: a ref from a read of this generation, or an exact role + accessible name. */
export type ActTargetSpec = { readonly ref: string } | { readonly role: string; readonly name: string }

/**
 * One act. The target may be given as `target` or flat (`ref`, or `role` + `name`), not both. Per operation:
 * click and type take exactly one target (type also `text`, which replaces the field's content); scroll takes a `ref`
 * (brought to the viewport's centre) or `dy` (a wheel of that many pixels); key takes `key`, optionally a `ref` to
 * focus first (else the focused element gets it) and `modifiers`.
 */
export interface ActRequest {
  readonly operation: ActOperation
  readonly target?: ActTargetSpec
  readonly ref?: string
  readonly role?: string
  readonly name?: string
  readonly text?: string
  readonly dy?: number
  readonly key?: string
  readonly modifiers?: ActModifiers
}

/** The element acted on; `role` is null for an element without one (a key pressed on the page's body). */
export interface ActTarget {
  readonly ref: string
  readonly role: string | null
  readonly name: string
}

/** What `key` did in place of the browser's default action (BR.ACT.18); `prevented` when the page cancelled the key. */
export type KeyDefaultAction = 'none' | 'prevented' | 'submit' | 'activate' | 'focus-next' | 'focus-previous' | 'insert-text' | 'delete-text'

/** What every act answer carries (BR.ACT.14). The counts are 0 when no element was named (scroll dy, key without ref). */
interface ActOutcome {
  readonly matchedTotal: number
  readonly matchedVisible: number
  readonly url: string
  readonly generation: number
  readonly popup?: { readonly url: string }
}

export interface ActSuccess extends ActOutcome {
  readonly ok: true
  readonly operation: ActOperation
  /** Absent only for a `dy` scroll, which has no element. */
  readonly target?: ActTarget
  /** type: the field is a password field (an audit log keeps only the length of what was typed). */
  readonly isPassword?: boolean
  /** click: the page cancelled the click event (its handlers ran; the default action did not). */
  readonly defaultPrevented?: boolean
  /** key. */
  readonly defaultAction?: KeyDefaultAction
  /** key Tab: where the focus went. */
  readonly focused?: ActTarget
  /** scroll dy: the pixels the page actually moved (0 at an end, or when the page cancelled the wheel). */
  readonly scrolledBy?: number
}

export type ActRefusalReason =
  | 'hidden' | 'ambiguous' | 'offscreen' | 'obscured' | 'disabled' | 'upload' | 'rejected-value' | 'no-such-option'
  | 'not-editable' | 'readonly'

/** The `data` of an ACT_REFUSED BrowserError. */
export interface ActRefusalData extends ActOutcome {
  readonly reason: ActRefusalReason
  readonly operation: ActOperation
  /** The element it would have acted on, when there was exactly one. */
  readonly target?: ActTarget
  /** type: the target, or before one is known any match, is a password field. */
  readonly isPassword?: boolean
  /** ambiguous: every visible match, each with the text around it (page data) to tell them apart (BR.ACT.11). */
  readonly candidates?: readonly { readonly ref: string; readonly text: string }[]
  /** obscured: the covering element, as `tag#id.class` (page data, BR.ACT.10). */
  readonly by?: string
  /** disabled: `inert` (inside an inert subtree) or `pointer-events` (pointer-events: none); absent for a disabled control. */
  readonly detail?: 'inert' | 'pointer-events'
  /** no-such-option: the select's option labels (the first 20). */
  readonly options?: readonly string[]
}

interface CheckedRequest {
  readonly operation: ActOperation
  readonly ref?: string
  readonly role?: string
  readonly name?: string
  readonly text?: string
  readonly dy?: number
  readonly key?: string
  readonly modifiers: Required<ActModifiers>
}

function invalid(message: string): BrowserError {
  return new BrowserError('INVALID_ARGUMENT', message)
}

const FIELDS_OF: Readonly<Record<ActOperation, readonly string[]>> = {
  click: ['ref', 'role', 'name'],
  type: ['ref', 'role', 'name', 'text'],
  scroll: ['ref', 'dy'],
  key: ['ref', 'key', 'modifiers'],
}

/** The request's own rules (BR.ACT.1, 2, 4, 5), before anything reaches the page. */
export function checkActRequest(raw: ActRequest): CheckedRequest {
  if (typeof raw !== 'object' || raw === null) throw invalid('act takes an object')
  const operation = raw.operation
  if (!ACT_OPERATIONS.includes(operation)) throw invalid(`operation must be one of ${ACT_OPERATIONS.join(', ')}`)
  const flat: Record<string, unknown> = { ...raw }
  delete flat.operation
  if (raw.target !== undefined) {
    if (typeof raw.target !== 'object' || raw.target === null) throw invalid('target must be {ref} or {role, name}')
    if (raw.ref !== undefined || raw.role !== undefined || raw.name !== undefined) throw invalid('give the target once: as target, or as ref or role + name')
    delete flat.target
    Object.assign(flat, raw.target)
  }
  for (const [field, value] of Object.entries(flat)) {
    if (value === undefined) continue
    if (!FIELDS_OF[operation].includes(field)) throw invalid(`act ${operation} does not take ${field}`)
  }
  const { ref, role, name, text, dy, key, modifiers } = flat as Omit<ActRequest, 'operation' | 'target'>
  for (const [field, value] of [['ref', ref], ['role', role], ['name', name], ['text', text], ['key', key]] as const) {
    if (value !== undefined && typeof value !== 'string') throw invalid(`${field} must be a string`)
  }
  const byRole = role !== undefined || name !== undefined
  if (byRole && (role === undefined || name === undefined || role === '')) throw invalid('an element is named by role and name together')
  if (ref !== undefined && byRole) throw invalid('act takes exactly one target: ref, or role + name')
  if ((operation === 'click' || operation === 'type') && ref === undefined && !byRole) throw invalid(`act ${operation} needs one target: ref, or role + name`)
  if (operation === 'type') {
    if (text === undefined) throw invalid('act type needs text')
    if (text.length > ACT_TEXT_CAP) throw invalid(`text must be at most ${ACT_TEXT_CAP} characters`)
  }
  if (operation === 'scroll') {
    if ((ref === undefined) === (dy === undefined)) throw invalid('act scroll takes exactly one of ref (scroll it into view) or dy (pixels)')
    if (dy !== undefined && (typeof dy !== 'number' || !Number.isFinite(dy) || Math.abs(dy) > ACT_DY_CAP)) {
      throw invalid(`dy must be a number of pixels from -${ACT_DY_CAP} to ${ACT_DY_CAP}`)
    }
  }
  let pressed: string | undefined
  if (operation === 'key') {
    if (key === undefined) throw invalid('act key needs key (e.g. "Enter")')
    pressed = key === 'Space' ? ' ' : key
    if (!NAMED_KEYS.includes(key) && !/^[^\p{Cc}\p{Cs}]$/u.test(key)) throw invalid(`key must be one character or one of ${NAMED_KEYS.join(', ')}`)
  }
  if (modifiers !== undefined) {
    if (typeof modifiers !== 'object' || modifiers === null) throw invalid('modifiers must be {ctrl, shift, alt, meta}')
    for (const [held, value] of Object.entries(modifiers)) {
      if (!['ctrl', 'shift', 'alt', 'meta'].includes(held)) throw invalid(`modifiers do not include ${held}`)
      if (value !== undefined && typeof value !== 'boolean') throw invalid(`modifiers.${held} must be true or false`)
    }
  }
  return {
    operation,
    ...(ref !== undefined ? { ref } : {}),
    ...(byRole ? { role, name } : {}),
    ...(text !== undefined ? { text } : {}),
    ...(dy !== undefined ? { dy } : {}),
    ...(pressed !== undefined ? { key: pressed } : {}),
    modifiers: { ctrl: modifiers?.ctrl === true, shift: modifiers?.shift === true, alt: modifiers?.alt === true, meta: modifiers?.meta === true },
  }
}

/** A target as the page answers it: the same shape, with a document-local ref until it is made public. */
type PageTarget = ActTarget
type PageAnswer =
  | { readonly missingRef: true }
  | ({ readonly ok: true; readonly matchedTotal: number; readonly matchedVisible: number; readonly target?: PageTarget; readonly focused?: PageTarget } &
      Pick<ActSuccess, 'isPassword' | 'defaultPrevented' | 'defaultAction' | 'scrolledBy'>)
  | ({ readonly ok: false; readonly reason: ActRefusalReason; readonly matchedTotal: number; readonly matchedVisible: number; readonly target?: PageTarget } &
      Pick<ActRefusalData, 'isPassword' | 'candidates' | 'by' | 'detail' | 'options'>)

function targetWord(request: CheckedRequest): string {
  return request.ref !== undefined ? `the element of ${request.ref}` : `the ${request.role} ${JSON.stringify(request.name)}`
}

function refusalMessage(request: CheckedRequest, data: ActRefusalData): string {
  const what = targetWord(request)
  switch (data.reason) {
    case 'hidden':
      return data.matchedTotal === 0 ? `no ${request.role} named ${JSON.stringify(request.name)} is on the page` : `${what} is not visibly rendered`
    case 'ambiguous':
      return `${data.matchedVisible} visible elements are ${what}; act on one of the candidates by its ref`
    case 'offscreen':
      return `${what} cannot be scrolled into the viewport`
    case 'obscured':
      return `covered by ${data.by}`
    case 'disabled':
      return data.detail === 'inert' ? `${what} is inside an inert part of the page`
        : data.detail === 'pointer-events' ? `${what} does not take pointer events (pointer-events: none)` : `${what} is disabled`
    case 'upload':
      return 'file inputs are never automated; the person chooses files themselves'
    case 'rejected-value':
      return `${what} did not keep the typed text: the page changed or refused it`
    case 'no-such-option':
      return `${what} has no option labelled or valued ${JSON.stringify(request.text)}`
    case 'not-editable':
      return `${what} does not take typed text`
    case 'readonly':
      return `${what} is read-only`
  }
}

/** Runs one act on the tab; see the module comment for what it answers. */
export async function runAct(tab: TabHandle, raw: ActRequest): Promise<ActSuccess> {
  const request = checkActRequest(raw)
  // Ref refusals carry what every act answer carries (BR.ACT.14): nothing matched.
  const nothingMatched = (): Record<string, unknown> => ({ matchedTotal: 0, matchedVisible: 0, url: tab.url(), generation: tab.generation() })
  let localRef: string | undefined
  try {
    localRef = request.ref !== undefined ? tab.localRef(request.ref) : undefined
  } catch (error) {
    if (error instanceof BrowserError && error.code === 'STALE_REF') throw new BrowserError('STALE_REF', error.message.replace(/^STALE_REF: /, ''), nothingMatched())
    throw error
  }
  const generation = tab.generation()
  const popups: string[] = []
  const stopListening = tab.session.onWindowOpen((url) => popups.push(url))
  let page: PageAnswer
  let after: { valueKept: boolean } | null = null
  try {
    const args = {
      operation: request.operation, ref: localRef, role: request.role, name: request.name, text: request.text, dy: request.dy,
      key: request.key, modifiers: request.modifiers, nameCap: NAME_CAP, walkCap: WALK_CAP,
    }
    try {
      page = await tab.session.evaluate<PageAnswer>(`__quireAgent.act(${JSON.stringify(args)})`, { once: true })
    } catch (error) {
      // The document went away around the call: whether the act ran cannot be told, so it is not retried.
      if (error instanceof Error && !(error instanceof BrowserError) && /context/i.test(error.message)) {
        throw new BrowserError('ACT_INTERRUPTED', 'the page navigated while the act was sent; read it before acting again', { ...nothingMatched(), detail: { indeterminate: true } })
      }
      throw error
    }
    // Read-only, so it may run again in a new document; there it finds nothing to check. The round trip also lets
    // the window-open event of a popup the act caused arrive before the listener stops.
    after = await tab.session.evaluate<{ valueKept: boolean } | null>('__quireAgent.afterAct()').catch(() => null)
  } finally {
    stopListening()
  }
  if ('missingRef' in page) {
    if (tab.generation() !== generation) throw new BrowserError('STALE_REF', 'the page navigated since this ref was read; read it again', nothingMatched())
    throw new BrowserError('REF_NOT_FOUND', 'the element of this ref is no longer in the page', nothingMatched())
  }
  const mapTarget = (target: PageTarget): ActTarget => ({ ...target, ref: tab.publicRef(target.ref, generation) })
  const outcome: ActOutcome = {
    matchedTotal: page.matchedTotal,
    matchedVisible: page.matchedVisible,
    url: tab.url(),
    generation: tab.generation(),
    ...(popups.length > 0 ? { popup: { url: redactUrl(popups[0]!) } } : {}),
  }
  const refuse = (answer: Extract<PageAnswer, { ok: false }>): never => {
    const { ok: _ok, target, candidates, ...rest } = answer
    const data: ActRefusalData = {
      ...rest, ...outcome, operation: request.operation,
      ...(target !== undefined ? { target: mapTarget(target) } : {}),
      ...(candidates !== undefined ? { candidates: candidates.map((candidate) => ({ ...candidate, ref: tab.publicRef(candidate.ref, generation) })) } : {}),
    }
    throw new BrowserError('ACT_REFUSED', refusalMessage(request, data), { ...data })
  }
  if (!page.ok) return refuse(page)
  const { ok: _ok, target, focused, ...rest } = page
  if (after !== null && !after.valueKept) {
    return refuse({ ok: false, reason: 'rejected-value', matchedTotal: page.matchedTotal, matchedVisible: page.matchedVisible, ...(target ? { target } : {}), ...(page.isPassword !== undefined ? { isPassword: page.isPassword } : {}) })
  }
  return {
    ...rest, ...outcome, ok: true, operation: request.operation,
    ...(target !== undefined ? { target: mapTarget(target) } : {}),
    ...(focused !== undefined ? { focused: mapTarget(focused) } : {}),
  }
}
