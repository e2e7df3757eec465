/**
 * What an assistant may see of a page's URL (BR.GEN.3). Userinfo, query and fragment can carry credentials, session
 * tokens and one-time codes, so they never leave the engine; before a tab is authorized only its origin is shown.
 */

/** scheme://host[:port]/path: no username, password, query or fragment. An unparseable URL is returned as it is. */
export function redactUrl(raw: string): string {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return raw
  }
  url.username = ''
  url.password = ''
  url.search = ''
  url.hash = ''
  // `about:blank?x` and `data:` URLs have no authority; dropping query and fragment from `href` still applies.
  return url.href
}

/** The origin alone; an opaque origin names its scheme (`data:(opaque)`), and an unparseable URL says so. */
export function originOnly(raw: string): string {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return '(unknown origin)'
  }
  return url.origin === 'null' ? `${url.protocol}(opaque)` : url.origin
}
