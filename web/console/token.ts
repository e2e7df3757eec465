const STORAGE_KEY = 'quire.console.token'

/**
 * The port file's access token, which makes this page the person's console. It arrives once in the address bar
 * (`/?token=…`, the link `quire serve` prints); it is kept in sessionStorage (this browser tab only, gone when it
 * closes) and removed from the address bar at once, so it does not linger in history, bookmarks or screenshots.
 */
export function takeToken(): string | null {
  const url = new URL(window.location.href)
  const fromUrl = url.searchParams.get('token')
  if (fromUrl) {
    sessionStorage.setItem(STORAGE_KEY, fromUrl)
    url.searchParams.delete('token')
    window.history.replaceState(null, '', url.pathname + url.search + url.hash)
    return fromUrl
  }
  return sessionStorage.getItem(STORAGE_KEY)
}

/** Forgets a token the server refused (the daemon restarted with a new one). */
export function forgetToken(): void {
  sessionStorage.removeItem(STORAGE_KEY)
}
