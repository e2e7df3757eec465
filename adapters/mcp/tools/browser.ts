import { z } from 'zod'
import { displacement, keyChord, pressedKey, typedSecret, typedText, type ActTarget } from '../../../core/browser/requests.js'
import { ACT_DY_CAP, checkActRequest, type ActRefusalData, type ActRequest, type ActTargetSpec } from '../../browser/act.js'
import { MAX_WAIT_MS } from '../../browser/engine.js'
import { BrowserError } from '../../browser/errors.js'
import { authorize, browserCall, BrowserRefusal, browserWait, navigationAnswer, originOf, withTab, type ActionTrace } from '../browserCalls.js'
import type { ToolContext } from '../context.js'
import { defineTool } from '../defineTool.js'
import { BROWSER_OUTPUTS } from './outputs/browser.js'
import { id } from '../schemas.js'
import { savedNameProblem } from '../../../core/browser/savedNames.js'
import { checkProfilePosture, checkScriptInProfile, checkSessionLoad, savedStateOwner, sessionOriginOf } from '../../../core/browser/savedState.js'
import { hasLineBreak, isTrimmed } from '../../../core/browser/workflow/scan.js'
import { askToLoad, followingApprovals } from './browserHold.js'

/** The largest script or injected style sheet, in UTF-8 bytes (VMark's MAX_SCRIPT_BYTES). */
export const MAX_SCRIPT_BYTES = 65_536

const timeoutMs = z.number().int().min(1).max(MAX_WAIT_MS).describe(`1–${MAX_WAIT_MS} ms`)
const boundedSource = (what: string) =>
  z
    .string()
    .min(1, 'must not be empty')
    .refine((value) => Buffer.byteLength(value, 'utf8') <= MAX_SCRIPT_BYTES, `must be at most ${MAX_SCRIPT_BYTES} UTF-8 bytes`)
    .describe(what)

const className = z.string().regex(/^\S+$/, 'a class name has no spaces')

/** A session handle or profile name (BR.SESSION_SAVE.1, BR.OPEN.4); refused as given, never trimmed. */
const savedName = (what: string) =>
  z.string().superRefine((name, context) => {
    const problem = savedNameProblem(name)
    if (problem !== undefined) context.addIssue({ code: 'custom', message: problem })
  }).describe(what)

/** A front-matter `site` the printer writes back unchanged: one line, no surrounding white space. */
const recordSite = z
  .string()
  .min(1, 'must not be empty')
  .max(200)
  .refine((site) => isTrimmed(site) && !hasLineBreak(site), 'must be one line without surrounding white space')

/** `browser`: everything that changes a page or a tab; every act-class call and every script needs the person's approval. */
export const browserTool = defineTool({
  name: 'browser',
  title: 'Quire embedded browser',
  description:
    'Drives the embedded browser. open {url, timeoutMs?, profile?} → {tabId, navigationId, url, title, generation} ' +
    '(profile: a named persistent profile whose logins are kept, Sandbox posture only, approved for each open); ' +
    'navigate {tabId?, url, timeoutMs?}; close {tabId}; act {tabId?, operation: click|type|scroll|key, ' +
    'role+name or ref, text?, dy?, key?, modifiers?}; style {tabId?, ref or selector, one of set, addClasses, ' +
    'removeClasses, injectCss}; execute_js {tabId?, script} (an async function body; approved per call); ' +
    'session_save {tabId?, handle} keeps the tab\'s cookies and localStorage for its origin, encrypted, under handle → counts only; ' +
    'session_load {tabId?, handle} puts them back on a page of that same origin → {loaded, handle} (each call approved; ' +
    'you never see a session\'s values); ' +
    'console_clear {tabId?} → the console entries, then empties the buffer; workflow_run {tabId?, source, inputs?, ' +
    'resumeRunId?, allowRepeat?} → {runId, steps, firstStep} at once, the run goes on in the daemon (poll ' +
    'browser_read.workflow_status; goal/confirm/api steps pause it); workflow_cancel {runId} (never gated); ' +
    'workflow_record {recordOp: start, tabId?, site?} records what the person does on your tab (answers needsApproval ' +
    'until they allow it: retry then), {recordOp: stop, tabId?} → {source, inputs, eventCount}, a workflow for ' +
    'workflow_run (typed values are never captured: each text field is an input, each password a confirm step). act, style and execute_js wait for the ' +
    'person\'s approval: on NOT_GRANTED tell the user which approval to decide (data.approvalId), then retry the same ' +
    'call. Name elements by role and name: a ref is honoured only under a standing grant. tabId defaults to your ' +
    'foreground browser tab. Refusals are "TOKEN: message"; match on the token.',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  args: {
    tabId: id.optional(),
    url: z.string().min(1, 'must not be empty').optional().describe('an http(s) URL (open, navigate)'),
    timeoutMs: timeoutMs.optional(),
    operation: z.enum(['click', 'type', 'scroll', 'key']).optional().describe('act'),
    ref: id.max(64).optional().describe('a ref from browser_read.read (act, style)'),
    role: id.max(200).optional().describe('the element\'s ARIA role, with name (act)'),
    name: z.string().max(1_000).optional().describe('the element\'s accessible name, with role (act)'),
    text: z.string().max(100_000).optional().describe('the text to type (act type)'),
    dy: z.number().finite().min(-ACT_DY_CAP).max(ACT_DY_CAP).optional().describe('vertical pixels to scroll (act scroll)'),
    key: z.string().min(1).max(32).optional().describe('a key such as Enter, Escape, Tab (act key)'),
    modifiers: z
      .object({ ctrl: z.boolean().optional(), shift: z.boolean().optional(), alt: z.boolean().optional(), meta: z.boolean().optional() })
      .strict()
      .optional()
      .describe('held keys (act key)'),
    selector: z.string().min(1).max(4_096).optional().describe('a CSS selector (style)'),
    set: z
      .record(z.string(), z.string())
      .refine((set) => Object.keys(set).length > 0, 'must set at least one property')
      .optional()
      .describe('CSS properties to set, {property: value} (style)'),
    addClasses: z.array(className).min(1).optional().describe('class names to add (style)'),
    removeClasses: z.array(className).min(1).optional().describe('class names to remove (style)'),
    injectCss: boundedSource('a style sheet to add to the page (style)').optional(),
    script: boundedSource('an async function body that returns a JSON value (execute_js)').optional(),
    source: z.string().min(1, 'must not be empty').optional().describe('the workflow text, at most 64 KiB (workflow_run)'),
    inputs: z.record(z.string(), z.string()).optional().describe('{name: value} for the workflow\'s declared inputs (workflow_run)'),
    resumeRunId: id.max(64).optional().describe('a paused run to continue (workflow_run)'),
    allowRepeat: z.boolean().optional().describe('run write steps that already succeeded with the same source and inputs (workflow_run)'),
    runId: id.max(64).optional().describe('a run from workflow_run (workflow_cancel)'),
    handle: savedName('the saved session\'s name, 1–128 of A-Z a-z 0-9 . _ - (session_save, session_load)').optional(),
    profile: savedName('a named browser profile, 1–128 of A-Z a-z 0-9 . _ - (open)').optional(),
    recordOp: z.enum(['start', 'stop']).optional().describe('start or stop recording the person\'s actions (workflow_record)'),
    site: recordSite.optional().describe('the recorded workflow\'s front-matter site, default "recording" (workflow_record start)'),
  },
  outputs: BROWSER_OUTPUTS,
  actions: (action) => ({
    act: action({
      required: ['operation'],
      requiredHint: '(click, type, scroll or key)',
      refuse: actRefusal,
      run: (args, context) =>
        browserCall(context, 'act', async (principal, trace) =>
          withTab(context, principal, args.tabId, trace, 'act', async (tab) => {
            const target: ActTargetSpec | undefined =
              args.ref !== undefined ? { ref: args.ref } : args.role !== undefined ? { role: args.role, name: args.name ?? '' } : undefined
            if (target !== undefined) trace.target = target
            trace.detail = {
              act: args.operation,
              ...(args.operation === 'type' ? { text: args.text ?? '' } : {}),
              ...(args.operation === 'key' ? { key: keyChord(args.key!, args.modifiers) } : {}),
              ...(args.dy !== undefined ? { dy: args.dy } : {}),
            }
            const request: ActRequest = {
              operation: args.operation,
              ...(target !== undefined ? { target } : {}),
              ...(args.text !== undefined ? { text: args.text } : {}),
              ...(args.dy !== undefined ? { dy: args.dy } : {}),
              ...(args.key !== undefined ? { key: args.key } : {}),
              ...(args.modifiers !== undefined ? { modifiers: args.modifiers } : {}),
            }
            // A request the engine would refuse is refused before the person is asked to approve it.
            checkActRequest(request)
            // Text for a password field is never written into an approval or the log, only its length.
            if (args.operation === 'type' && target !== undefined) trace.intoPassword = await isPasswordField(context, principal, tab.tabId, target)
            // A click binds the element; type, key and scroll also what they type, press or move (BR.ACT.19–20).
            const binding =
              args.operation === 'type' ? (trace.intoPassword === true ? typedSecret(args.text ?? '') : typedText(args.text ?? ''))
              : args.operation === 'key' ? pressedKey(args.key!, args.modifiers)
              : args.operation === 'scroll' && args.dy !== undefined ? displacement(args.dy)
              : undefined
            await authorize(
              context,
              { kind: 'act', operation: args.operation, origin: originOf(tab.url), tabId: tab.tabId, ...(target !== undefined ? { target } : {}), ...(binding !== undefined ? { binding } : {}) },
              trace,
            )
            try {
              const done = await context.services.browser.act(principal, tab.tabId, request)
              if (done.isPassword === true) trace.intoPassword = true
              return { ...done }
            } catch (error) {
              // A refused type still says whether the field was a password field: the log must not keep the text.
              if (error instanceof BrowserError && (error.data as ActRefusalData | undefined)?.isPassword === true) trace.intoPassword = true
              throw error
            }
          })),
    }),
    open: action({
      required: ['url'],
      requiredHint: '(an http or https URL)',
      run: (args, context) =>
        browserCall(context, 'open', async (principal, trace) => {
          trace.url = loggableUrl(args.url)
          const posture = context.services.settings.state.browserPosture
          if (args.profile !== undefined) return openInProfile(context, principal, args.url, args.profile, args.timeoutMs, trace)
          // Shared posture: the tab is made, then its destination asked for; refused, the tab stays and the assistant
          // retries with navigate on it, which the approval names (BR.OPEN.8).
          const beforeLoad = async (tabId: string): Promise<void> => {
            trace.tabId = tabId
            try {
              await askToLoad(context, principal, tabId, null, args.url, trace)
            } catch (error) {
              if (error instanceof BrowserRefusal) throw new BrowserRefusal(error.token, error.reason, { ...error.data, retry: { action: 'navigate', tabId } })
              throw error
            }
          }
          // A hop of the load to an origin the person has not approved asks for it too (followingApprovals).
          const loaded = await followingApprovals(context, principal, trace, args.url, args.timeoutMs, () =>
            context.services.browser.open(principal, args.url, { timeoutMs: args.timeoutMs, posture, ...(posture === 'shared' ? { beforeLoad } : {}) }))
          trace.tabId = loaded.tabId
          trace.url = loaded.url
          return navigationAnswer(loaded)
        }),
    }),
    navigate: action({
      required: ['url'],
      requiredHint: '(an http or https URL)',
      run: (args, context) =>
        browserCall(context, 'navigate', async (principal, trace) =>
          withTab(context, principal, args.tabId, trace, 'ai-only', async (tab) => {
            trace.url = loggableUrl(args.url)
            // A Shared-posture or named-profile tab loads a new origin only once the person approved it for the tab.
            await askToLoad(context, principal, tab.tabId, tab.url, args.url, trace)
            const loaded = await followingApprovals(context, principal, trace, args.url, args.timeoutMs, () =>
              context.services.browser.navigate(principal, tab.tabId, args.url, { timeoutMs: args.timeoutMs }))
            trace.url = loaded.url
            return navigationAnswer(loaded)
          })),
    }),
    close: action({
      required: ['tabId'],
      // Stopping is never gated (BR.CLOSE.2, APPR.7): no approval is asked.
      run: (args, context) =>
        browserCall(context, 'close', async (principal, trace) => {
          trace.tabId = args.tabId
          return { ...(await context.services.browser.close(principal, args.tabId)) }
        }),
    }),
    style: action({
      refuse: styleRefusal,
      run: (args, context) =>
        browserCall(context, 'style', async (principal, trace) =>
          withTab(context, principal, args.tabId, trace, 'act', async (tab) => {
            const target: ActTarget = args.ref !== undefined ? { ref: args.ref } : { selector: args.selector! }
            trace.target = target
            trace.detail = { act: 'style' }
            const change =
              args.set !== undefined ? { set: args.set }
              : args.addClasses !== undefined ? { addClasses: args.addClasses }
              : args.removeClasses !== undefined ? { removeClasses: args.removeClasses }
              : { injectCss: args.injectCss! }
            await authorize(
              context,
              { kind: 'act', operation: 'style', origin: originOf(tab.url), tabId: tab.tabId, target, binding: styleBinding(change) },
              trace,
            )
            return { ...(await context.services.browser.style(principal, tab.tabId, target, change)) }
          })),
    }),
    execute_js: action({
      required: ['script'],
      requiredHint: '(an async function body)',
      run: (args, context) =>
        browserCall(context, 'execute_js', async (principal, trace) =>
          withTab(context, principal, args.tabId, trace, 'act', async (tab) => {
            trace.detail = { scriptBytes: Buffer.byteLength(args.script, 'utf8') }
            checkScriptInProfile(context.services.browser.profileOf(principal, tab.tabId))
            // Every script is asked for on its own: there is no standing grant (BR.EXECUTE_JS.4, APPR.4).
            await authorize(context, { kind: 'execute_js', origin: originOf(tab.url), tabId: tab.tabId, script: args.script }, trace)
            const { result } = await context.services.browser.executeJs(principal, tab.tabId, args.script)
            // The page computed it: never act on it unread (BR.EXECUTE_JS.6).
            return { result: result === undefined ? null : result, untrusted: true }
          })),
    }),
    session_save: action({
      required: ['handle'],
      requiredHint: '(a name for the saved session)',
      run: (args, context) =>
        browserCall(context, 'session_save', async (principal, trace) =>
          withTab(context, principal, args.tabId, trace, 'act', async (tab) => {
            const { services } = context
            trace.detail = { handle: args.handle }
            const origin = sessionOriginOf(tab.url)
            // The logins of a named profile the tab holds go with the session: the approval says so, the store keeps it.
            const profile = services.browser.profileOf(principal, tab.tabId)
            // Every save is asked for on its own, and the approval names the handle (BR.SESSION_SAVE.5–6, APPR.4).
            await authorize(context, { kind: 'session', operation: 'save', origin, tabId: tab.tabId, handle: args.handle, ...(profile !== undefined ? { profile } : {}) }, trace)
            const snapshot = await services.browser.captureSession(principal, tab.tabId, origin)
            // Handles are the caller's own: another agent neither sees nor loads this one.
            const saved = await services.savedSessions.save(args.handle, snapshot, { owner: savedStateOwner(context.caller.principal), ...(profile !== undefined ? { profile } : {}) })
            trace.detail = { handle: saved.name, cookies: saved.cookies, localStorage: saved.localStorage }
            // Counts only (BR.SESSION_SAVE.3): the values stay in the encrypted store.
            return { saved: true, handle: saved.name, origin: saved.origin, cookies: saved.cookies, localStorage: saved.localStorage }
          })),
    }),
    session_load: action({
      required: ['handle'],
      requiredHint: '(the name it was saved under)',
      run: (args, context) =>
        browserCall(context, 'session_load', async (principal, trace) =>
          withTab(context, principal, args.tabId, trace, 'act', async (tab) => {
            const { services } = context
            trace.detail = { handle: args.handle }
            // An unknown handle (another agent's too) or another origin is refused before the person is asked (BR.SESSION_LOAD.2).
            const owner = savedStateOwner(context.caller.principal)
            const saved = await services.savedSessions.describe(args.handle, owner)
            checkSessionLoad(args.handle, saved.origin, tab.url)
            const { profile } = saved
            await authorize(context, { kind: 'session', operation: 'load', origin: saved.origin, tabId: tab.tabId, handle: args.handle, ...(profile !== undefined ? { profile } : {}) }, trace)
            const snapshot = await services.savedSessions.load(args.handle, owner)
            // A named profile's logins keep its rules in the cookie store they go into (no script: BR.OPEN.6).
            await services.browser.restoreSession(principal, tab.tabId, snapshot, profile)
            trace.detail = { handle: args.handle, cookies: snapshot.cookies.length, localStorage: snapshot.localStorage.length }
            return { loaded: true, handle: args.handle }
          })),
    }),
    workflow_run: action({
      required: ['source'],
      requiredHint: '(the workflow text)',
      run: (args, context) =>
        browserCall(context, 'workflow_run', async (principal, trace) => {
          const { caller, services } = context
          const tabId = args.tabId ?? services.browser.foregroundTab(principal)?.tabId
          if (tabId === undefined) throw new BrowserRefusal('TAB_NOT_FOUND', 'you have no browser tab open; open one with browser.open {url}')
          trace.tabId = tabId
          const started = await services.workflowRunner.start({
            principal,
            asker: { connection: caller.connection, principal: caller.principal, actor: caller.actor },
            tabId,
            source: args.source,
            ...(args.inputs !== undefined ? { inputs: args.inputs } : {}),
            ...(args.resumeRunId !== undefined ? { resumeRunId: args.resumeRunId } : {}),
            ...(args.allowRepeat !== undefined ? { allowRepeat: args.allowRepeat } : {}),
          })
          return { ...started }
        }),
    }),
    workflow_cancel: action({
      required: ['runId'],
      // Stopping is never gated (BR.WORKFLOW_CANCEL.2, APPR.7): no approval is asked.
      run: (args, context) =>
        browserCall(context, 'workflow_cancel', async (principal, trace) => {
          const { outcome, run } = await context.services.workflowRunner.cancel(args.runId, principal, context.caller.actor)
          trace.tabId = run.tabId
          return { runId: run.runId, status: run.status, outcome }
        }),
    }),
    workflow_record: action({
      required: ['recordOp'],
      requiredHint: '(start or stop)',
      refuse: (args) => (args.recordOp === 'stop' && args.site !== undefined ? 'browser.workflow_record stop does not take site (give it to start)' : undefined),
      run: (args, context) =>
        browserCall(context, 'workflow_record', async (principal, trace) => {
          const { caller, services } = context
          trace.detail = { act: args.recordOp }
          if (args.recordOp === 'stop') {
            // Stopping is never gated (APPR.7); the tab may have closed since: what was captured is still handed over.
            trace.tabId = args.tabId ?? null
            const { tabId, ...stopped } = await services.workflowRecorder.stop(principal, args.tabId, caller.actor)
            trace.tabId = tabId
            return { ...stopped }
          }
          return withTab(context, principal, args.tabId, trace, 'ai-only', async (tab) => {
            const site = args.site ?? 'recording'
            services.workflowRecorder.assertNotRecording(tab.tabId)
            // A fresh approval for every recording: the record permission is never a standing grant (BR.WORKFLOW_RECORD.2, APPR.4).
            const answer = await services.browserAccess.authorize(
              { kind: 'record', origin: originOf(tab.url), tabId: tab.tabId, site },
              { connection: caller.connection, principal: caller.principal, actor: caller.actor },
              browserWait(context),
            )
            if (answer.approvalId !== undefined) trace.approvalId = answer.approvalId
            if (!answer.granted) {
              if (answer.token !== 'NOT_GRANTED' || answer.approvalId === undefined) throw new BrowserRefusal(answer.token, answer.message)
              // Not an error (BR.WORKFLOW_RECORD.3): ask the person to decide it, then retry the same call.
              return { needsApproval: true, approvalId: answer.approvalId, tabId: tab.tabId, ...(answer.status !== undefined ? { approvalStatus: answer.status } : {}), message: answer.message }
            }
            const started = await services.workflowRecorder.start({ principal, connection: caller.connection, tabId: tab.tabId, site, approvalId: answer.approvalId!, actor: caller.actor })
            return { recording: true, ...started }
          })
        }),
    }),
    console_clear: action({
      run: (args, context) =>
        browserCall(context, 'console_clear', async (principal, trace) =>
          withTab(context, principal, args.tabId, trace, 'ai-only', async (tab) => {
            const { entries, url } = await context.services.browser.consoleClear(principal, tab.tabId)
            return { entries, url }
          })),
    }),
  }),
})

/**
 * `open {profile}`: a tab in a named persistent profile (BR.OPEN.4–6). Sandbox posture only; the person approves
 * each open afresh, naming the profile and the origin (APPR.5). A URL the engine will refuse asks nothing.
 */
async function openInProfile(context: ToolContext, principal: string, url: string, profile: string, timeoutMs: number | undefined, trace: ActionTrace): Promise<Record<string, unknown>> {
  const { services } = context
  trace.detail = { profile }
  checkProfilePosture(profile, services.settings.state.browserPosture)
  // The caller's own profile of that name, or the one of another agent the person shared with it.
  const caller = savedStateOwner(context.caller.principal)
  const owner = services.browserAccess.profileOwner(caller, profile)
  const web = URL.canParse(url) && /^https?:$/.test(new URL(url).protocol)
  if (web) services.browser.checkDestination(url)
  if (web) await authorize(context, { kind: 'profile', origin: originOf(url), profile, ...(owner !== caller ? { owner } : {}) }, trace)
  // The tab is held to the origins the person approved for it: this one, and each one asked for later.
  const loaded = await followingApprovals(context, principal, trace, url, timeoutMs, () =>
    services.browser.open(principal, url, { timeoutMs, posture: 'sandbox', profile, profileOwner: owner, ...(web ? { approvedOrigin: originOf(url) } : {}) }))
  trace.tabId = loaded.tabId
  trace.url = loaded.url
  return navigationAnswer(loaded)
}

/** The URL as the log may keep it (decideBrowserAction redacts it); an unparseable one is not kept at all. */
function loggableUrl(raw: string): string | null {
  return URL.canParse(raw) ? raw : null
}

/**
 * Whether an act's target is a password field, asked before the approval: a ref of one, or a role + name that a
 * visible password field of the page has. Pages without any password field cost one query.
 */
async function isPasswordField(context: ToolContext, principal: string, tabId: string, target: ActTargetSpec): Promise<boolean> {
  const engine = context.services.browser
  const passwords = await engine.query(principal, tabId, 'input[type=password]')
  if (passwords.count === 0) return false
  const refs = new Set(passwords.elements.map((element) => element.ref))
  if ('ref' in target) return refs.has(target.ref)
  const { snapshot } = await engine.read(principal, tabId)
  return snapshot.some((node) => node.role === target.role && node.name === target.name && refs.has(node.ref))
}


function styleBinding(change: { set?: Record<string, string>; addClasses?: string[]; removeClasses?: string[]; injectCss?: string }): string {
  if (change.set !== undefined) return `set ${JSON.stringify(change.set)}`
  if (change.addClasses !== undefined) return `addClasses ${JSON.stringify(change.addClasses)}`
  if (change.removeClasses !== undefined) return `removeClasses ${JSON.stringify(change.removeClasses)}`
  return `injectCss ${JSON.stringify(change.injectCss)}`
}

interface ActArgs {
  operation?: 'click' | 'type' | 'scroll' | 'key'
  ref?: string
  role?: string
  name?: string
  text?: string
  dy?: number
  key?: string
  modifiers?: object
}

/** Each operation's target and arguments (BR.ACT.2, BR.ACT.4, BR.ACT.5); what an operation does not take is refused, not dropped. */
function actRefusal(args: ActArgs): string | undefined {
  const op = args.operation
  const byRole = args.role !== undefined || args.name !== undefined
  if (byRole && (args.role === undefined || args.name === undefined)) return `browser.act names an element by role and name together`
  if (args.ref !== undefined && byRole) return `browser.act takes one target: either ref or role + name, not both`
  const refuseArg = (name: keyof ActArgs) => (args[name] !== undefined ? `browser.act ${op} does not take ${name}` : undefined)
  switch (op) {
    case 'click':
    case 'type':
      if (args.ref === undefined && !byRole) return `browser.act ${op} needs one target: ref, or role + name`
      if (op === 'type' && args.text === undefined) return 'browser.act type needs text'
      return (op === 'click' ? refuseArg('text') : undefined) ?? refuseArg('dy') ?? refuseArg('key') ?? refuseArg('modifiers')
    case 'scroll':
      if ((args.ref === undefined) === (args.dy === undefined)) return 'browser.act scroll needs exactly one of ref (scroll it into view) or dy (pixels)'
      return (byRole ? 'browser.act scroll takes ref or dy, not role + name' : undefined) ?? refuseArg('text') ?? refuseArg('key') ?? refuseArg('modifiers')
    case 'key':
      if (args.key === undefined) return 'browser.act key needs key (e.g. "Enter")'
      return (byRole ? 'browser.act key targets an element by ref only' : undefined) ?? refuseArg('text') ?? refuseArg('dy')
    default:
      return undefined
  }
}

interface StyleArgs {
  ref?: string
  selector?: string
  set?: object
  addClasses?: unknown[]
  removeClasses?: unknown[]
  injectCss?: string
}

/** One target and exactly one change (BR.STYLE.1). */
function styleRefusal(args: StyleArgs): string | undefined {
  if ((args.ref === undefined) === (args.selector === undefined)) return 'browser.style needs exactly one target: ref or selector'
  const changes = (['set', 'addClasses', 'removeClasses', 'injectCss'] as const).filter((key) => args[key] !== undefined)
  if (changes.length !== 1) return `browser.style needs exactly one of set, addClasses, removeClasses, injectCss${changes.length > 1 ? `; got ${changes.join(', ')}` : ''}`
  return undefined
}

