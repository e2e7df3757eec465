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
 * One input event of the person's, at the page's viewport coordinates (DIPs, as the screencast frame's `width` and
 * `height` measure them).
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

/**
 * Where the page is in a frame: the document point at the visual viewport's top left (CSS pixels times the page
 * zoom, as DevTools reports a frame's scroll offset) and the pinch scale. A box measured at one viewport belongs only
 * on frames showing the same one.
 */
export interface FrameViewport {
  readonly scrollX: number
  readonly scrollY: number
  readonly scale: number
}

/**
 * One picture of a tab's viewport, as a JPEG, with its size in DIPs (the person's input is at these coordinates, less
 * `offsetTop`, the height of any browser bar drawn above the page) and where the page was in it.
 */
export interface ScreencastFrame {
  readonly jpegBase64: string
  readonly width: number
  readonly height: number
  readonly offsetTop: number
  readonly viewport: FrameViewport
}

/** A box on the live view's frames: DIPs from the visual viewport's top left, as the person's input is. */
export interface FrameBox {
  readonly x: number
  readonly y: number
  readonly width: number
  readonly height: number
}

/** The boxes of the elements an assistant asks about (at most 5), and the viewport they were measured at. */
export interface LocatedOnFrames {
  readonly boxes: readonly FrameBox[]
  readonly viewport: FrameViewport
}
