import { isInputName } from './names.js'
import { hasLineBreak, isTrimmed } from './scan.js'
import { STEP_KINDS, type Workflow, type WorkflowStep } from './types.js'

export { printAction, printActionLine, ActionPrintError } from './action.js'

export class WorkflowPrintError extends Error {
  override readonly name = 'WorkflowPrintError'
}

const STEP_KIND_SET: ReadonlySet<string> = new Set(STEP_KINDS)

/**
 * A workflow as source text that parses back to it: `parseWorkflow(printWorkflow(w))` is `{ok: true, workflow: w}`
 * up to each step's `line`, which is where the printer put it. Front matter (`site`, then `inputs` when there are any,
 * then `trigger` when there is one), then one numbered line per step, LF line ends, a final LF.
 *
 * Each line holds its value verbatim, so a value the parser would read differently is refused with a
 * WorkflowPrintError naming the field, never quietly changed: a site or trigger that is empty (a workflow without a
 * trigger has no `trigger` at all), padded with white space or holding a line break; an input name outside the rule
 * or given twice; no steps; a step whose index is not its position, whose kind is not a step kind, or whose text is
 * empty, padded or holds a line break. Step text is otherwise free: quotes, backslashes, braces, `#`, `---` and `:` all print as
 * they are (a step line starts with its number, so none of them can be taken for a comment or a fence).
 */
export function printWorkflow(workflow: Workflow): string {
  const lines = ['---', `site: ${scalar('site', workflow.site)}`]
  const seen = new Set<string>()
  for (const name of workflow.inputs) {
    if (!isInputName(name)) throw new WorkflowPrintError(`inputs: ${JSON.stringify(name)} is not an input name`)
    if (seen.has(name)) throw new WorkflowPrintError(`inputs: "${name}" is given twice`)
    seen.add(name)
  }
  if (workflow.inputs.length > 0) lines.push(`inputs: [${workflow.inputs.join(', ')}]`)
  if (workflow.trigger !== undefined) lines.push(`trigger: ${scalar('trigger', workflow.trigger)}`)
  lines.push('---')
  if (workflow.steps.length === 0) throw new WorkflowPrintError('steps: a workflow has at least one step')
  workflow.steps.forEach((step, position) => lines.push(printStepLine(step, position + 1)))
  return `${lines.join('\n')}\n`
}

function scalar(field: string, value: string): string {
  if (value === '' || !isTrimmed(value) || hasLineBreak(value)) {
    throw new WorkflowPrintError(`${field}: ${JSON.stringify(value)} must be non-empty, without surrounding white space, on one line`)
  }
  return value
}

/** `N. kind: text`, checking that the step reads back as itself at position `position`. */
export function printStepLine(step: WorkflowStep, position: number = step.index): string {
  if (step.index !== position) throw new WorkflowPrintError(`steps: step ${position} has index ${step.index}`)
  if (!STEP_KIND_SET.has(step.kind)) throw new WorkflowPrintError(`steps: step ${position} has kind ${JSON.stringify(step.kind)}`)
  if (step.text === '' || !isTrimmed(step.text) || hasLineBreak(step.text)) {
    throw new WorkflowPrintError(`steps: step ${position}'s text must be non-empty, without surrounding white space, on one line`)
  }
  return `${position}. ${step.kind}: ${step.text}`
}
