/** How this console appears to other peers (their remote cursors): a name and a colour, stable per browser tab. */
export interface PeerUser {
  readonly name: string
  readonly color: string
  /** A light variant for the selection background (y-codemirror.next uses it). */
  readonly colorLight: string
}

const COLORS = ['#2563eb', '#db2777', '#059669', '#d97706', '#7c3aed', '#0891b2'] as const
const KEY = 'quire.console.color'

export function peerUser(): PeerUser {
  let index = Number(sessionStorage.getItem(KEY))
  if (!Number.isInteger(index) || index < 0 || index >= COLORS.length) {
    index = Math.floor(Math.random() * COLORS.length)
    sessionStorage.setItem(KEY, String(index))
  }
  const color = COLORS[index] ?? COLORS[0]
  return { name: 'Person (console)', color, colorLight: `${color}33` }
}
