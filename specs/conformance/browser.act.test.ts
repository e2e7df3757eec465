/**
 * The embedded browser's act-class actions, scripts, styles, gates, tabs and cookie stores as an MCP client meets
 * them over stdio and Streamable HTTP (TOOLS.md §8): every rule proven by its effect in the fixture page (the page's
 * own #log, a field's value, a computed style, what the server saw as a cookie). One Quire process and one fixture
 * site per transport. The person's side goes through the real CLI: the main connection holds one "Allow on this
 * site" act grant, given once in beforeAll; the approval-binding rules use a second connection that holds none.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { FixtureSite } from '../browser-engine/support/fixtureSite.js'
import { approvals, cli, decide, TRANSPORTS, type ApprovalLine, type Rig, type Session, type ToolResult, type Transport } from '../support/conformance.js'
import { useBrowserRig } from '../support/browserRig.js'
import { connectHttp, launchStdio } from '../support/mcpHarness.js'

type Args = Record<string, unknown>
interface SnapshotNode { role: string; name: string; ref: string }

/** A browser refusal: `"TOKEN: message"` text, and the token, message and data in structuredContent (BR.GEN.5). */
function expectToken(result: ToolResult, token: string): Record<string, unknown> {
  expect(result.isError, result.text).toBe(true)
  expect(result.text.startsWith(`${token}: `), result.text).toBe(true)
  const structured = result.structured as { error: string; message: string; data: Record<string, unknown> }
  expect(structured).toMatchObject({ error: token, message: result.text.slice(token.length + 2) })
  return structured.data
}

/** An argument refusal (ERR.3): a plain string, no structured content. */
function expectPlain(result: ToolResult, pattern: RegExp): void {
  expect(result.isError, result.text).toBe(true)
  expect(result.structured).toBeUndefined()
  expect(result.text).toMatch(pattern)
}

function success(result: ToolResult): Record<string, unknown> {
  expect(result.isError, result.text).toBe(false)
  return result.structured as Record<string, unknown>
}

/**
 * Makes the call and, as the person would while it waits, decides the new request of `kind` it raises through
 * `quire approvals`. Answers the call's result and the request the person saw (null when the call needed none).
 */
async function asked(
  home: string, session: Session, tool: string, args: Args, kind: string, decision: 'approve' | 'deny', scope?: 'once' | 'site',
): Promise<{ result: ToolResult; approval: ApprovalLine | null }> {
  const earlier = new Set((await approvals(home)).map((approval) => approval.id))
  let answered = false
  const answer = session.call(tool, args).finally(() => (answered = true))
  let approval: ApprovalLine | null = null
  while (!answered) {
    approval = (await approvals(home)).find((entry) => entry.kind === kind && entry.status === 'pending' && !earlier.has(entry.id)) ?? null
    if (approval) {
      await decide(home, decision, approval.id, scope)
      break
    }
    await new Promise((resolve) => setTimeout(resolve, 30))
  }
  return { result: await answer, approval }
}

describe.each<Transport>(TRANSPORTS)('browser act, style, execute_js and gates over %s', (transport) => {
  let r: Rig
  let site: FixtureSite
  const call = (tool: string, args: Args) => r.session.call(tool, args)
  const act = (tabId: string, args: Args) => call('browser', { action: 'act', tabId, ...args })
  const open = async (path: string, session: Session = r.session): Promise<string> =>
    (success(await session.call('browser', { action: 'open', url: site.url(path) })) as { tabId: string }).tabId
  /** What the fixture page's own handlers wrote down, in order. */
  const logOf = async (tabId: string, session: Session = r.session): Promise<string[]> => {
    const queried = success(await session.call('browser_read', { action: 'query', tabId, selector: '#log' })) as { elements: { text: string }[] }
    return queried.elements[0]!.text.split(' ').filter(Boolean)
  }
  const refOf = async (tabId: string, selector: string): Promise<string> =>
    (success(await call('browser_read', { action: 'query', tabId, selector })) as { elements: { ref: string }[] }).elements[0]!.ref
  const query = async (tabId: string, selector: string, fields: Args = {}) =>
    (success(await call('browser_read', { action: 'query', tabId, selector, fields })) as { elements: { text: string; ref: string; attributes?: Record<string, string>; styles?: Record<string, string> }[] }).elements
  const refused = async (tabId: string, args: Args): Promise<Record<string, unknown>> => expectToken(await act(tabId, args), 'ACT_REFUSED')
  /** A script the person approves, as every script must be (BR.EXECUTE_JS.4). */
  const runScript = (tabId: string, script: string, session: Session = r.session) =>
    asked(r.home, session, 'browser', { action: 'execute_js', tabId, script }, 'browser_execute_js', 'approve')

  useBrowserRig(transport, (made) => {
    r = made.rig
    site = made.site
  })
  beforeAll(async () => {
    // The person allows act-class operations on the fixture site for this connection, once for the whole file.
    const tabId = await open('/act-click.html')
    const granted = await asked(r.home, r.session, 'browser', { action: 'act', tabId, operation: 'click', role: 'button', name: 'Save' }, 'browser_act', 'approve', 'site')
    expect(granted.result.isError, granted.result.text).toBe(false)
    await call('browser', { action: 'close', tabId })
  })

  it('BR.ACT.1 / BR.ACT.2 / BR.ACT.4 / BR.ACT.5 the operation and its target are checked before anything reaches the page', async () => {
    const tabId = await open('/act-click.html')
    expectPlain(await act(tabId, { operation: 'hover', role: 'button', name: 'Save' }), /expected one of "click"\|"type"\|"scroll"\|"key" at operation/)
    expectPlain(await act(tabId, { operation: 'click' }), /needs one target/)
    expectPlain(await act(tabId, { operation: 'click', ref: await refOf(tabId, '#save'), role: 'button', name: 'Save' }), /one target/)
    expectPlain(await act(tabId, { operation: 'click', role: 'button' }), /role and name together/)
    expectPlain(await act(tabId, { operation: 'type', role: 'textbox', name: 'Full name' }), /needs text/)
    expectPlain(await act(tabId, { operation: 'scroll' }), /exactly one of ref .* or dy/)
    expectPlain(await act(tabId, { operation: 'scroll', dy: 10, ref: await refOf(tabId, '#far') }), /exactly one of ref .* or dy/)
    expectPlain(await act(tabId, { operation: 'key' }), /needs key/)
    expectPlain(await act(tabId, { operation: 'key', key: 'a', modifiers: { super: true } }), /Unrecognized key: "super" at modifiers/)
    expect(await logOf(tabId)).toEqual([])
  })

  it('BR.ACT.8 / BR.ACT.9 / BR.ACT.14 a click hits the one visible match, skipping invisible duplicates, and answers counts, url and generation', async () => {
    const tabId = await open('/act-click.html?session=s3cret')
    const clicked = success(await act(tabId, { operation: 'click', role: 'button', name: 'Save' }))
    expect(clicked).toEqual({
      ok: true, operation: 'click', matchedTotal: 5, matchedVisible: 1, url: site.url('/act-click.html'), generation: 1,
      target: { ref: await refOf(tabId, '#save'), role: 'button', name: 'Save' }, defaultPrevented: false,
    })
    expect(await logOf(tabId)).toEqual(['save'])
    for (const id of ['save-none', 'save-invisible', 'save-faded', 'save-collapsed']) {
      const data = await refused(tabId, { operation: 'click', ref: await refOf(tabId, `#${id}`) })
      expect(data, id).toMatchObject({ reason: 'hidden', matchedTotal: 1, matchedVisible: 0, url: site.url('/act-click.html'), generation: 1 })
    }
    const nothing = await refused(tabId, { operation: 'click', role: 'button', name: 'Nothing like this' })
    expect(nothing).toMatchObject({ reason: 'hidden', matchedTotal: 0, matchedVisible: 0, url: site.url('/act-click.html'), generation: 1 })
    expect(await logOf(tabId)).toEqual(['save'])
  })

  it('BR.ACT.10 a covered target is refused naming the occluder; a far one is scrolled into view and clicked', async () => {
    const tabId = await open('/act-click.html')
    const covered = await act(tabId, { operation: 'click', role: 'button', name: 'Covered' })
    expect(covered.text).toBe('ACT_REFUSED: covered by div.cmp-overlay')
    expect(expectToken(covered, 'ACT_REFUSED')).toMatchObject({ reason: 'obscured', by: 'div.cmp-overlay', matchedTotal: 1, matchedVisible: 1 })
    expect(await logOf(tabId)).toEqual([])
    success(await act(tabId, { operation: 'click', role: 'button', name: 'Far away' }))
    expect(await logOf(tabId)).toEqual(['far'])
  })

  it('BR.ACT.11 several visible matches are ambiguous with their refs in candidates, nothing clicked; a candidate ref picks that one', async () => {
    const tabId = await open('/act-click.html')
    const data = await refused(tabId, { operation: 'click', role: 'button', name: 'Delete' })
    expect(data).toMatchObject({ reason: 'ambiguous', matchedTotal: 2, matchedVisible: 2 })
    const candidates = data.candidates as { ref: string; text: string }[]
    expect(candidates.map((candidate) => candidate.ref)).toEqual([await refOf(tabId, '#delete-1'), await refOf(tabId, '#delete-2')])
    expect(await logOf(tabId)).toEqual([])
    success(await act(tabId, { operation: 'click', ref: candidates[1]!.ref }))
    expect(await logOf(tabId)).toEqual(['delete-2'])
  })

  it('BR.ACT.12 / BR.GEN.8 disabled (attribute, pointer-events, inert), offscreen, upload and rejected-value refusals change nothing', async () => {
    const tabId = await open('/act-click.html')
    expect(await refused(tabId, { operation: 'click', role: 'button', name: 'Archive' })).toMatchObject({ reason: 'disabled' })
    expect(await refused(tabId, { operation: 'click', role: 'button', name: 'Ghost' })).toMatchObject({ reason: 'disabled', detail: 'pointer-events' })
    expect(await refused(tabId, { operation: 'click', role: 'button', name: 'Frozen' })).toMatchObject({ reason: 'disabled', detail: 'inert' })
    expect(await refused(tabId, { operation: 'click', role: 'button', name: 'Outside' })).toMatchObject({ reason: 'offscreen' })
    // BR.GEN.8: a file input is never clicked (no file chooser) nor typed into (no path handed to it).
    expect(await refused(tabId, { operation: 'click', role: 'button', name: 'Attachment' })).toMatchObject({ reason: 'upload' })
    expect(await refused(tabId, { operation: 'type', ref: await refOf(tabId, '#attachment'), text: '/etc/passwd' })).toMatchObject({ reason: 'upload' })
    expect(await logOf(tabId)).toEqual([])
    const typing = await open('/act-type.html')
    expect(await refused(typing, { operation: 'type', role: 'textbox', name: 'Nickname', text: 'agent007' })).toMatchObject({
      reason: 'rejected-value', matchedTotal: 1, matchedVisible: 1, url: site.url('/act-type.html'), generation: 1,
    })
    expect(await refused(typing, { operation: 'type', ref: await refOf(typing, '#avatar'), text: '/etc/passwd' })).toMatchObject({ reason: 'upload' })
    const { result } = await runScript(typing, "return [document.getElementById('nick').value, document.getElementById('avatar').files.length]")
    expect(success(result).result).toEqual(['agent', 0])
  })

  it('BR.ACT.13 a button inside an open shadow root is found and clicked; BR.ACT.15 a popup is blocked and reported as popup {url}', async () => {
    const tabId = await open('/act-click.html')
    expect(success(await act(tabId, { operation: 'click', role: 'button', name: 'Shadow action' }))).toMatchObject({ matchedTotal: 1, matchedVisible: 1 })
    const opened = success(await act(tabId, { operation: 'click', role: 'button', name: 'Open window' }))
    expect(opened.popup).toEqual({ url: site.url('/article.html') })
    expect(await logOf(tabId)).toEqual(['shadow', 'opener'])
    const plain = success(await act(tabId, { operation: 'click', role: 'button', name: 'Save' }))
    expect(plain.popup).toBeUndefined()
    // No window was opened: the connection's only browser tab is still this one.
    const state = await call('session', { action: 'get_state' })
    const browserTabs = (state.structured as { windows: { tabs: { id: string; kind: string }[] }[] }).windows.flatMap((window) => window.tabs).filter((tab) => tab.kind === 'browser')
    expect(browserTabs.map((tab) => tab.id)).toEqual([tabId])
  })

  it('BR.ACT.4 / BR.ACT.7 scroll by dy dispatches a synthetic wheel and moves the page; scroll by ref brings the element into view', async () => {
    const tabId = await open('/act-click.html')
    expect(success(await act(tabId, { operation: 'scroll', dy: 400 }))).toMatchObject({ ok: true, operation: 'scroll', scrolledBy: 400, matchedTotal: 0, matchedVisible: 0, generation: 1 })
    expect(await logOf(tabId)).toEqual(['wheel:400:false'])
    const far = await refOf(tabId, '#far')
    expect(success(await act(tabId, { operation: 'scroll', ref: far }))).toMatchObject({ matchedTotal: 1, matchedVisible: 1, target: { ref: far, role: 'button', name: 'Far away' } })
    const [box] = await query(tabId, '#far', { box: true })
    const { y, height } = (box as unknown as { box: { y: number; height: number } }).box
    expect(y).toBeGreaterThanOrEqual(0)
    expect(y + height).toBeLessThanOrEqual(800)
  })

  it('BR.ACT.16 / BR.ACT.17 type fills a text field, a select by label or value, a contenteditable; an unknown option is no-such-option', async () => {
    const tabId = await open('/act-type.html')
    expect(success(await act(tabId, { operation: 'type', role: 'textbox', name: 'Full name', text: 'Ada Lovelace' }))).toMatchObject({
      ok: true, operation: 'type', matchedTotal: 1, matchedVisible: 1, isPassword: false, url: site.url('/act-type.html'), generation: 1,
    })
    success(await act(tabId, { operation: 'type', role: 'combobox', name: 'Country', text: 'Germany' }))
    success(await act(tabId, { operation: 'type', role: 'combobox', name: 'Country', text: 'fr' }))
    expect(await refused(tabId, { operation: 'type', role: 'combobox', name: 'Country', text: 'Spain' })).toMatchObject({
      reason: 'no-such-option', options: ['Choose', 'France', 'Germany', 'Atlantis'],
    })
    success(await act(tabId, { operation: 'type', role: 'textbox', name: 'Notes', text: 'New notes' }))
    expect((await query(tabId, '#notes'))[0]!.text).toBe('New notes')
    expect(await logOf(tabId)).toEqual(['full-change', 'country:de', 'country:fr', 'notes-input'])
    const { result } = await runScript(tabId, "return [document.getElementById('full').value, document.getElementById('country').value]")
    expect(success(result).result).toEqual(['Ada Lovelace', 'fr'])
  })

  it('BR.ACT.5 / BR.ACT.7 / BR.ACT.18 key: Enter in a field submits its form (synthetic keydown), Tab and shift+Tab move the focus', async () => {
    const tabId = await open('/act-type.html')
    success(await act(tabId, { operation: 'type', role: 'textbox', name: 'Full name', text: 'Grace' }))
    const full = await refOf(tabId, '#full')
    expect(success(await act(tabId, { operation: 'key', key: 'Enter', ref: full }))).toMatchObject({
      ok: true, operation: 'key', defaultAction: 'submit', matchedTotal: 1, matchedVisible: 1, target: { ref: full, role: 'textbox', name: 'Full name' },
    })
    expect(await logOf(tabId)).toEqual(['full-change', 'keydown:Enter:false', 'submitted:Grace:by:send'])
    expect(success(await act(tabId, { operation: 'key', key: 'Tab', ref: full }))).toMatchObject({ defaultAction: 'focus-next', focused: { role: 'textbox', name: 'Password' } })
    expect(success(await act(tabId, { operation: 'key', key: 'Tab', modifiers: { shift: true } }))).toMatchObject({
      defaultAction: 'focus-previous', focused: { role: 'textbox', name: 'Full name' },
    })
    expect(await logOf(tabId)).toEqual(['full-change', 'keydown:Enter:false', 'submitted:Grace:by:send', 'keydown:Tab:false', 'keydown:Tab:false'])
  })

  describe('on a connection without a standing grant', () => {
    let other: Session
    beforeAll(async () => {
      other = await r.another()
    })
    const ask = (tabId: string, args: Args, decision: 'approve' | 'deny') =>
      asked(r.home, other, 'browser', { action: 'act', tabId, ...args }, 'browser_act', decision)

    it('BR.ACT.6 scroll and key are approval-gated like click and type; BR.ACT.20 their prompts show the displacement and the key with modifiers; refused, the page is untouched', async () => {
      const tabId = await open('/act-type.html', other)
      const scrolled = await ask(tabId, { operation: 'scroll', dy: 400 }, 'deny')
      expect(scrolled.approval!.subject).toBe(`scroll the page with dy 400 on ${site.origin}`)
      expectToken(scrolled.result, 'NOT_GRANTED')
      const pressed = await ask(tabId, { operation: 'key', key: 'Enter', modifiers: { ctrl: true } }, 'deny')
      expect(pressed.approval!.subject).toBe(`key the page with key "ctrl+Enter" on ${site.origin}`)
      expectToken(pressed.result, 'NOT_GRANTED')
      expect(await logOf(tabId, other)).toEqual([])
    })

    /**
     * Two calls asked side by side while both wait for the person: the second asks a request of its own (the first's
     * approval does not cover it); the person approves only the first. Answers both calls' results and requests.
     */
    const sideBySide = async (tabId: string, approved: Args, refused: Args, subjects: [string, string]) => {
      const earlier = new Set((await approvals(r.home)).map((approval) => approval.id))
      const pendingWith = async (subject: string): Promise<ApprovalLine> => {
        for (;;) {
          const found = (await approvals(r.home)).find((entry) => entry.status === 'pending' && entry.subject === subject && !earlier.has(entry.id))
          if (found) return found
          await new Promise((resolve) => setTimeout(resolve, 30))
        }
      }
      const first = other.call('browser', { action: 'act', tabId, ...approved })
      const firstAsked = await pendingWith(subjects[0])
      const second = other.call('browser', { action: 'act', tabId, ...refused })
      const secondAsked = await pendingWith(subjects[1])
      await decide(r.home, 'approve', firstAsked.id)
      await decide(r.home, 'deny', secondAsked.id)
      const pendingLeft = (await approvals(r.home)).filter((entry) => entry.status === 'pending' && !earlier.has(entry.id))
      return { first: await first, second: await second, firstAsked, secondAsked, pendingLeft }
    }

    it('BR.ACT.19 a click approval binds role + name: the approval of "Save" does not let a click on "Agree" through', async () => {
      const tabId = await open('/act-click.html', other)
      const asked2 = await sideBySide(tabId, { operation: 'click', role: 'button', name: 'Save' }, { operation: 'click', role: 'checkbox', name: 'Agree' },
        [`click button "Save" on ${site.origin}`, `click checkbox "Agree" on ${site.origin}`])
      expect(asked2.secondAsked.id).not.toBe(asked2.firstAsked.id)
      expect(asked2.pendingLeft).toEqual([])
      expect(success(asked2.first)).toMatchObject({ ok: true, target: { role: 'button', name: 'Save' } })
      expect(expectToken(asked2.second, 'NOT_GRANTED').approvalId).toBe(asked2.secondAsked.id)
      expect(await logOf(tabId, other)).toEqual(['save'])
    })

    it('BR.ACT.20 a type approval binds the exact text, shown in the prompt: the approval of "Ada" does not type "Bob"', async () => {
      const tabId = await open('/act-type.html', other)
      const typed = await sideBySide(tabId, { operation: 'type', role: 'textbox', name: 'Full name', text: 'Ada' }, { operation: 'type', role: 'textbox', name: 'Full name', text: 'Bob' },
        [`type textbox "Full name" with text "Ada" on ${site.origin}`, `type textbox "Full name" with text "Bob" on ${site.origin}`])
      expect(typed.secondAsked.id).not.toBe(typed.firstAsked.id)
      expect(typed.pendingLeft).toEqual([])
      success(typed.first)
      expectToken(typed.second, 'NOT_GRANTED')
      const { result } = await runScript(tabId, "return document.getElementById('full').value", other)
      expect(success(result).result).toBe('Ada')
    })

    it('BR.EXECUTE_JS.4 a script is asked for on every call, even once one was approved', async () => {
      const tabId = await open('/index.html', other)
      expect(success((await runScript(tabId, 'return 1', other)).result).result).toBe(1)
      const again = await runScript(tabId, 'return 1', other)
      expect(again.approval).not.toBeNull()
      expect(success(again.result).result).toBe(1)
    })
  })

  it('BR.GEN.11 Sandbox cookie stores are separate per agent: one agent\'s cookie is not sent from another agent\'s tab', async () => {
    const connectAs = async (name: string): Promise<Session> => {
      const added = await cli(r.home, 'agent', 'add', name)
      expect(added.code, added.stderr).toBe(0)
      const token = added.stdout.trim()
      if (transport === 'stdio') return launchStdio({ home: r.home, env: { QUIRE_TOKEN: token } })
      const [port] = (await readFile(join(r.home, 'port'), 'utf8')).trim().split(':')
      return connectHttp(Number(port), token, r.home)
    }
    const alice = await connectAs(`alice-${transport}`)
    const bob = await connectAs(`bob-${transport}`)
    try {
      const heading = async (session: Session, tabId: string) =>
        (success(await session.call('browser_read', { action: 'query', tabId, selector: 'h1' })) as { elements: { text: string }[] }).elements[0]!.text
      await open('/cookie/set?v=alice', alice)
      expect(await heading(alice, await open('/cookie/show', alice))).toBe('cookie: alice')
      expect(await heading(bob, await open('/cookie/show', bob))).toBe('cookie: none')
      // Nor does the anonymous main connection see it: it is a principal of its own.
      expect(await heading(r.session, await open('/cookie/show'))).toBe('cookie: none')
    } finally {
      for (const session of [alice, bob]) {
        const state = await session.call('session', { action: 'get_state' })
        const tabs = (state.structured as { windows: { tabs: { id: string; kind: string }[] }[] }).windows.flatMap((window) => window.tabs)
        for (const tab of tabs.filter((entry) => entry.kind === 'browser')) await session.call('browser', { action: 'close', tabId: tab.id })
        await session.close()
      }
    }
  })

  it('BR.STYLE.1 style takes one target and exactly one change; set, addClasses, removeClasses and injectCss each change the page', async () => {
    const tabId = await open('/act-script.html')
    const style = (args: Args) => call('browser', { action: 'style', tabId, ...args })
    const greeting = await refOf(tabId, '#greeting')
    expectPlain(await style({ set: { color: 'red' } }), /exactly one target/)
    expectPlain(await style({ ref: greeting, selector: 'p', set: { color: 'red' } }), /exactly one target/)
    expectPlain(await style({ selector: 'p' }), /exactly one of set, addClasses, removeClasses, injectCss/)
    expectPlain(await style({ selector: 'p', set: { color: 'red' }, addClasses: ['x'] }), /got set, addClasses/)
    expect((await query(tabId, 'p', { styles: ['color'] })).map((element) => element.styles!.color)).toEqual(['rgb(0, 0, 0)', 'rgb(0, 0, 0)', 'rgb(0, 0, 0)'])
    expect(success(await style({ selector: '.note', set: { backgroundColor: 'rgb(1, 2, 3)' } }))).toEqual({ changed: 'set', elements: 2, url: site.url('/act-script.html'), generation: 1 })
    expect((await query(tabId, '.note', { styles: ['background-color'] })).map((element) => element.styles!['background-color'])).toEqual(['rgb(1, 2, 3)', 'rgb(1, 2, 3)'])
    success(await style({ ref: greeting, addClasses: ['wide', 'marked'] }))
    success(await style({ ref: greeting, removeClasses: ['box', 'marked'] }))
    expect((await query(tabId, '#greeting', { attributes: true, styles: ['width'] }))[0]).toMatchObject({ attributes: { class: 'wide' }, styles: { width: '200px' } })
    success(await style({ selector: 'h1', injectCss: 'h1 { color: rgb(9, 8, 7) }' }))
    expect((await query(tabId, 'h1', { styles: ['color'] }))[0]!.styles!.color).toBe('rgb(9, 8, 7)')
  })

  it('BR.STYLE.3 style runs in the isolated world: a page that sabotaged its own DOM methods neither sees nor stops it', async () => {
    const tabId = await open('/act-script.html?sabotage=1')
    success(await call('browser', { action: 'style', tabId, selector: '#greeting', addClasses: ['wide'] }))
    success(await call('browser', { action: 'style', tabId, selector: '#greeting', set: { color: 'rgb(7, 7, 7)' } }))
    success(await call('browser', { action: 'style', tabId, selector: 'h1', injectCss: 'h1 { color: rgb(6, 6, 6) }' }))
    expect((await query(tabId, '#greeting', { attributes: true, styles: ['color'] }))[0]).toMatchObject({ attributes: { class: 'box wide' }, styles: { color: 'rgb(7, 7, 7)' } })
    expect((await query(tabId, 'h1', { styles: ['color'] }))[0]!.styles!.color).toBe('rgb(6, 6, 6)')
    const title = async () => success((await runScript(tabId, 'return document.title')).result).result
    expect(await title()).toBe('Script page')
    // The page's own world is broken indeed: its handler calling classList.add hits the replacement.
    success(await act(tabId, { operation: 'click', role: 'button', name: "Use the page's own methods" }))
    expect(await title()).toBe('sabotaged')
  })

  it('BR.EXECUTE_JS.1 / BR.EXECUTE_JS.2 / BR.EXECUTE_JS.5 / BR.EXECUTE_JS.6 the script shares the DOM, not the page\'s globals; its prompt shows it; undefined is null; the result is untrusted', async () => {
    const tabId = await open('/act-script.html')
    const script = "document.getElementById('greeting').textContent = 'Changed by the script'\nreturn { secret: typeof window.secret, title: document.title }"
    const ran = await runScript(tabId, script)
    expect(ran.approval!.subject).toBe(`run a script on ${site.origin} (tab ${tabId}):\n${script}`)
    expect(success(ran.result)).toEqual({ result: { secret: 'undefined', title: 'Script page' }, untrusted: true })
    expect((await query(tabId, '#greeting'))[0]!.text).toBe('Changed by the script')
    // The page's own world has its global: the script just could not see it.
    expect((await query(tabId, '#greeting', { attributes: true }))[0]!.attributes!['data-page-sees']).toBe('string')
    expect(success((await runScript(tabId, 'return undefined')).result)).toEqual({ result: null, untrusted: true })
  })

  it('BR.EXECUTE_JS.3 a throw or a value JSON cannot encode is SCRIPT_ERROR naming the error, never a result', async () => {
    const tabId = await open('/act-script.html')
    const thrown = (await runScript(tabId, "throw new TypeError('not today')")).result
    expect(thrown.text).toBe('SCRIPT_ERROR: TypeError: not today')
    expect(expectToken(thrown, 'SCRIPT_ERROR')).toEqual({ url: site.url('/act-script.html'), generation: 1 })
    const unencodable = (await runScript(tabId, 'return () => 1')).result
    expectToken(unencodable, 'SCRIPT_ERROR')
    expect(unencodable.text).toContain('cannot be returned as JSON')
  })

  it('BR.CONSOLE_CLEAR.2 after console_clear the next read sees only new output', async () => {
    const tabId = await open('/act-script.html')
    const consoleEntries = async (): Promise<unknown[]> => success(await call('browser_read', { action: 'console', tabId })).entries as unknown[]
    for (let attempt = 0; attempt < 50 && (await consoleEntries()).length < 2; attempt++);
    const cleared = success(await call('browser', { action: 'console_clear', tabId }))
    expect(cleared.entries).toEqual([{ level: 'log', text: 'loaded 1' }, { level: 'warn', text: 'first warning' }])
    expect(await consoleEntries()).toEqual([])
    success(await act(tabId, { operation: 'click', role: 'button', name: 'Log something' }))
    // The page's buffer element (in the page, BR.CONSOLE_CLEAR.2) was reset, so only the new line is read.
    let entries: unknown[] = []
    for (let attempt = 0; attempt < 50 && entries.length === 0; attempt++) entries = await consoleEntries()
    expect(entries).toEqual([{ level: 'info', text: 'said 1' }])
  })

  it('BR.CLOSE.5 / BR.CLOSE.4 a confirmed teardown answers destroyed: true and the tab record is gone', async () => {
    // BR.CLOSE.5 ("If teardown cannot be confirmed after retries, the action MUST fail with TAB_TEARDOWN_FAILED carrying
    // data.destroyed: false, with the tab record already removed") cannot be provoked from a client: Chromium confirms
    // every page close it is asked for, and nothing here may mock it. (The engine's close makes one page.close() and has
    // no TAB_TEARDOWN_FAILED branch yet: reported to the lead.) What a client can prove is the confirmed branch: the
    // answer claims destruction only together with the record being gone everywhere it was listed.
    const tabId = await open('/index.html')
    expect(success(await call('browser', { action: 'close', tabId }))).toEqual({ tabId, closed: true, destroyed: true })
    const state = await call('session', { action: 'get_state' })
    expect((state.structured as { windows: { tabs: { id: string }[] }[] }).windows.flatMap((window) => window.tabs).map((tab) => tab.id)).not.toContain(tabId)
    expectToken(await call('browser_read', { action: 'read', tabId }), 'TAB_NOT_FOUND')
    expectToken(await call('browser', { action: 'close', tabId }), 'TAB_NOT_FOUND')
  })

  it('BR.OPEN.1 open brings its tab to the foreground; BR.NAVIGATE.1 so does navigate: a call without tabId uses it', async () => {
    const first = await open('/index.html')
    const second = await open('/form.html')
    expect(second).not.toBe(first)
    expect(success(await call('browser_read', { action: 'read' })).url).toBe(site.url('/form.html'))
    success(await call('browser', { action: 'navigate', tabId: first, url: site.url('/article.html') }))
    expect(success(await call('browser_read', { action: 'read' })).url).toBe(site.url('/article.html'))
    const state = await call('session', { action: 'get_state' })
    const tabs = (state.structured as { windows: { tabs: { id: string; active: boolean; automationMode?: string }[] }[] }).windows.flatMap((window) => window.tabs)
    // Created in the current posture, Sandbox by default.
    expect(tabs.filter((tab) => tab.id === first || tab.id === second).map((tab) => tab.automationMode)).toEqual(['ai-sandbox', 'ai-sandbox'])
    expect(tabs.find((tab) => tab.id === first)!.active).toBe(true)
    expect(tabs.find((tab) => tab.id === second)!.active).toBe(false)
    // A navigate without tabId goes to that foreground tab too.
    success(await call('browser', { action: 'navigate', url: site.url('/later.html') }))
    expect(success(await call('browser_read', { action: 'read', tabId: first })).url).toBe(site.url('/later.html'))
    expect(success(await call('browser_read', { action: 'read', tabId: second })).url).toBe(site.url('/form.html'))
  })

  it('BR.OPEN.9 / BR.NAVIGATE.4 / BR.GATE.1 / BR.GATE.2 / BR.GATE.3 / BR.GATE.5 a login wall or a rendered challenge carries gate {kind, hint}; look-alikes carry none', async () => {
    const opened = success(await call('browser', { action: 'open', url: site.url('/gates/members.html?next=%2Fsecret') }))
    const tabId = opened.tabId as string
    expect(opened).toEqual({
      tabId, navigationId: expect.any(String), url: site.url('/gates/members.html'), title: 'Sign in – Fixture Members', generation: 1,
      gate: { kind: 'login-required', hint: expect.stringMatching(/Ask the person to sign in themselves/) },
    })
    const gateOf = async (path: string) => success(await call('browser', { action: 'navigate', tabId, url: site.url(path) })).gate as { kind: string; hint: string } | undefined
    const hints: string[] = [(opened.gate as { hint: string }).hint]
    for (const [path, kind] of [['/gates/consent/before-you-continue.html', 'consent'], ['/gates/widget.html', 'challenge'], ['/gates/too-many.html?status=429', 'rate-limited']] as const) {
      const gate = await gateOf(path)
      expect(gate?.kind, path).toBe(kind)
      hints.push(gate!.hint)
    }
    // BR.GATE.5: every hint sends the assistant to the person, none toward getting past the gate itself.
    for (const hint of hints) {
      expect(hint).toMatch(/the person/i)
      expect(hint).not.toMatch(/bypass|solve|circumvent|automat/i)
    }
    for (const path of ['/gates/news-with-sign-in.html', '/gates/shop.html', '/gates/cloudflare-footer.html', '/gates/captcha-article.html', '/gates/invisible-widget.html', '/gates/slow-down.html']) {
      expect(await gateOf(path), path).toBeUndefined()
    }
  })

  it('BR.GATE.4 a gate is advisory: the gated page reads and takes typing as any page under the same grant, with no new approval', async () => {
    const opened = success(await call('browser', { action: 'open', url: site.url('/gates/members.html') }))
    expect((opened.gate as { kind: string }).kind).toBe('login-required')
    const tabId = opened.tabId as string
    const before = (await approvals(r.home)).length
    const snapshot = (success(await call('browser_read', { action: 'read', tabId })) as { snapshot: SnapshotNode[] }).snapshot
    expect(snapshot.some((node) => node.role === 'textbox' && node.name === 'Email')).toBe(true)
    success(await act(tabId, { operation: 'type', role: 'textbox', name: 'Email', text: 'ada@example.org' }))
    expect((await approvals(r.home)).length).toBe(before)
    const { result } = await runScript(tabId, "return document.querySelector('input[type=email]').value")
    expect(success(result).result).toBe('ada@example.org')
  })
})
