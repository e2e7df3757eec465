import { existsSync } from 'node:fs'
import { BrowserError } from './errors.js'

/**
 * BROWSER_UNAVAILABLE for a Chromium that did not start. Quire runs without Chromium (it starts on first use), so the
 * first browser call is where a person learns it is missing: then the answer says how to install it.
 */
export function chromiumUnavailable(what: string, executablePath: string, error: Error): BrowserError {
  const reason = existsSync(executablePath)
    ? error.message.split('\n', 1)[0]
    : `${executablePath} is not there; install Debian's chromium: sudo apt-get install chromium`
  return new BrowserError('BROWSER_UNAVAILABLE', `${what} did not start: ${reason}`)
}
