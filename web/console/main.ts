import { ConsoleApi } from './api.js'
import { ConsoleApp } from './consoleApp.js'
import { exposeIntrospection } from './introspection.js'
import { renderShell, renderSignedOut } from './shell.js'

/**
 * The console's entry: run the app. The server signed this browser in (a session cookie, HttpOnly) when the link
 * `quire serve` printed was opened; if it did not, or the daemon restarted since, the first call is refused and the
 * page says how to get the link. No credential ever passes through this script.
 */
function start(): void {
  const root = document.getElementById('app')
  if (!root) return
  const app = new ConsoleApp(new ConsoleApi(), renderShell(root), () => {
    renderSignedOut(root, 'This browser is not signed in to the Quire daemon: the link was already used, or the daemon restarted since.')
  })
  exposeIntrospection(app)
  void app.start()
}

start()
