/**
 * What the person's side of the embedded browser exchanges with the engine: the kinds of tab, a tab as the person's
 * tab strip lists it, and the input the person sends to a page from the live view. Types only, with no imports: the
 * console's bundle uses them too (through adapters/http/consoleBrowserApi.ts).
 */

/**
 * VMark's tab kinds: a tab the person opened (`human`), or an assistant's tab in the Sandbox posture (a fresh
 * cookie store per assistant) or in the Shared posture (the person's own profile).
 */
export type AutomationMode = 'human' | 'ai-sandbox' | 'ai-shared'

export interface PersonTabEntry {
  readonly tabId: string
  readonly automationMode: AutomationMode
  /** The assistant that opened it; absent on the person's own tabs. */
  readonly principal?: string
  /** The named browser profile an assistant's tab was opened in (`open {profile}`); absent otherwise. */
  readonly profile?: string
  /** Redacted (no query, no fragment), as everywhere the engine answers. */
  readonly url: string
  readonly title: string
  readonly loading: boolean
  readonly generation: number
  /** The tab last brought to the front, of all tabs. */
  readonly front: boolean
}

/** Bit mask as DevTools takes it: Alt 1, Ctrl 2, Meta 4, Shift 8. */
export type InputModifiers = number

/**
 * One input event of the person's, at the page's viewport coordinates (CSS pixels, as the screencast frame's
 * `width` and `height` measure them).
 */
export type PersonInput =
  | {
    readonly kind: 'mouse'
    readonly action: 'move' | 'down' | 'up'
    readonly x: number
    readonly y: number
    readonly button?: 'left' | 'middle' | 'right'
    readonly clickCount?: number
    readonly modifiers?: InputModifiers
  }
  | { readonly kind: 'wheel'; readonly x: number; readonly y: number; readonly deltaX: number; readonly deltaY: number; readonly modifiers?: InputModifiers }
  | { readonly kind: 'key'; readonly action: 'down' | 'up'; readonly key: string; readonly code: string; readonly modifiers?: InputModifiers }
  | { readonly kind: 'text'; readonly text: string }

/** One picture of a tab's viewport, as a JPEG, with the viewport's size in CSS pixels. */
export interface ScreencastFrame {
  readonly jpegBase64: string
  readonly width: number
  readonly height: number
}
