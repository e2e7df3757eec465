import type { PersonInput } from '../../../adapters/http/consoleBrowserApi.js'
import { pagePoint, pictureRect, type FrameGeometry } from './liveFrame.js'

/**
 * The person's mouse, wheel and keys on the live view, turned into input events at the page's viewport coordinates
 * and sent one after another: a press and its release must reach the page in order, so every event waits for the one
 * before it. Moves are sent only while a button is held (drags, selections) and collapse into the latest.
 */
export class LiveInput {
  #queue: PersonInput[] = []
  #sending = false
  #buttons = 0

  constructor(
    private readonly surface: HTMLImageElement,
    /** The frame shown (its size and where the page is in it), or null before the first frame. */
    private readonly frame: () => FrameGeometry | null,
    private readonly send: (input: PersonInput) => Promise<unknown>,
    private readonly onError: (error: unknown) => void,
  ) {
    surface.addEventListener('mousedown', (event) => {
      event.preventDefault()
      surface.focus()
      this.#buttons = event.buttons
      this.#pointer(event, 'down')
    })
    surface.addEventListener('mouseup', (event) => {
      event.preventDefault()
      this.#buttons = event.buttons
      this.#pointer(event, 'up')
    })
    surface.addEventListener('mousemove', (event) => {
      if (this.#buttons !== 0) this.#pointer(event, 'move')
    })
    surface.addEventListener('contextmenu', (event) => event.preventDefault())
    surface.addEventListener('dragstart', (event) => event.preventDefault())
    surface.addEventListener('wheel', (event) => {
      event.preventDefault()
      const at = this.#at(event)
      if (at) this.#push({ kind: 'wheel', ...at, deltaX: event.deltaX, deltaY: event.deltaY, modifiers: modifiers(event) })
    }, { passive: false })
    surface.addEventListener('keydown', (event) => {
      event.preventDefault()
      this.#push({ kind: 'key', action: 'down', key: event.key, code: event.code, modifiers: modifiers(event) })
    })
    surface.addEventListener('keyup', (event) => {
      event.preventDefault()
      this.#push({ kind: 'key', action: 'up', key: event.key, code: event.code, modifiers: modifiers(event) })
    })
    surface.addEventListener('paste', (event) => {
      event.preventDefault()
      const text = event.clipboardData?.getData('text/plain') ?? ''
      if (text !== '') this.#push({ kind: 'text', text: text.slice(0, 10_000) })
    })
  }

  /** Drops what is not yet sent (the person switched tabs). */
  reset(): void {
    this.#queue = []
    this.#buttons = 0
  }

  #at(event: MouseEvent): { x: number; y: number } | null {
    const frame = this.frame()
    const picture = pictureRect(this.surface)
    if (!frame || !picture) return null
    return pagePoint(event.clientX, event.clientY, frame, picture)
  }

  #pointer(event: MouseEvent, action: 'down' | 'up' | 'move'): void {
    const at = this.#at(event)
    if (!at) return
    const button = event.button === 1 ? 'middle' : event.button === 2 ? 'right' : 'left'
    const input: PersonInput = action === 'move'
      ? { kind: 'mouse', action, ...at, modifiers: modifiers(event) }
      : { kind: 'mouse', action, ...at, button, clickCount: Math.min(3, Math.max(1, event.detail)), modifiers: modifiers(event) }
    this.#push(input)
  }

  #push(input: PersonInput): void {
    const last = this.#queue.at(-1)
    if (input.kind === 'mouse' && input.action === 'move' && last?.kind === 'mouse' && last.action === 'move') this.#queue[this.#queue.length - 1] = input
    else this.#queue.push(input)
    void this.#drain()
  }

  async #drain(): Promise<void> {
    if (this.#sending) return
    this.#sending = true
    try {
      for (let next = this.#queue.shift(); next; next = this.#queue.shift()) {
        await this.send(next).catch((error: unknown) => this.onError(error))
      }
    } finally {
      this.#sending = false
    }
  }
}

function modifiers(event: MouseEvent | KeyboardEvent): number {
  return (event.altKey ? 1 : 0) | (event.ctrlKey ? 2 : 0) | (event.metaKey ? 4 : 0) | (event.shiftKey ? 8 : 0)
}
