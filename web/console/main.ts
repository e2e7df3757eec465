import { ConsoleApi } from './api.js'
import { ConsoleApp } from './consoleApp.js'
import { exposeIntrospection } from './introspection.js'
import { renderShell, renderSignedOut } from './shell.js'
import { forgetToken, takeToken } from './token.js'

/** The console's entry: take the token from the link, then run the app, or explain how to get the link. */
function start(): void {
  const root = document.getElementById('app')
  if (!root) return
  const token = takeToken()
  if (!token) {
    renderSignedOut(root, 'This page needs the console link with its access token.')
    return
  }
  const app = new ConsoleApp(new ConsoleApi(token), token, renderShell(root), () => {
    forgetToken()
    renderSignedOut(root, 'The daemon did not accept this link (it was probably restarted, which changes the token).')
  })
  exposeIntrospection(app)
  void app.start()
}

start()
