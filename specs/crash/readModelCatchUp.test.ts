import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { ClassicLevel } from 'classic-level'
import { describe, expect, it } from 'vitest'
import { openEngineHome } from '../../adapters/host/engineHome.js'
import { cliPath, runCli } from '../support/cli.js'
import { personTypes } from '../support/personTypes.js'
import { useTempHomes } from '../support/tempHome.js'
import { testStoreEnv, withTestStore } from '../support/testStore.js'

/**
 * Issue 29 item 1: a read model killed (SIGKILL) while it catches up resumes from its checkpoint with nothing missed
 * and nothing folded twice: after several kills at random moments, every event is listed once, the person's
 * keystrokes count once in their typing session, and both models equal a fresh rebuild.
 */

const newHome = useTempHomes()
const SETTINGS = 24_000
const KEYSTROKES = 200

/** Each model's checkpoint as its store holds it (the process that folds it is dead). */
async function checkpoints(home: string): Promise<Record<string, number>> {
  const db = new ClassicLevel<string, string>(join(home, 'readmodels'), { keyEncoding: 'utf8', valueEncoding: 'utf8' })
  try {
    const found: Record<string, number> = {}
    for (const name of ['audit', 'history']) {
      const value = await db.get(`!model-${name}!~checkpoint`)
      found[name] = value === undefined ? 0 : Number(value)
    }
    return found
  } finally {
    await db.close()
  }
}

/** Runs `quire log --limit 1` (which first catches the read models up) and kills it after `delayMs`. */
function killedDuringCatchUp(home: string, delayMs: number): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cliPath, '--home', home, 'log', '--limit', '1'], { stdio: 'ignore', env: { ...process.env, ...testStoreEnv(home) } })
    const timer = setTimeout(() => child.kill('SIGKILL'), delayMs)
    child.on('exit', () => {
      clearTimeout(timer)
      resolve()
    })
  })
}

describe('read models after a SIGKILL during catch-up (issue 29 item 1)', () => {
  it('resume from their checkpoint: nothing missed, nothing counted twice', async () => {
    const home = await newHome()
    const engine = await openEngineHome(home, withTestStore(home, {}))
    let docId: string
    let head: number
    try {
      ;({ docId } = await engine.commands.documents.create({ kind: 'markdown', content: 'start\n', path: null, title: 't', origin: 'untitled', actor: { kind: 'user' } }))
      for (let i = 0; i < KEYSTROKES; i++) await personTypes(engine, docId, (text) => text.insert(text.length, 'k'))
      for (let done = 0; done < SETTINGS; done += 500) {
        const events = Array.from({ length: 500 }, (_, i) => ({ type: 'setting.changed', actor: { kind: 'mcp' as const, principal: 'codex', connection: 'c-1' }, data: { key: 'cjkFormatting.quoteStyle', value: (done + i) % 2 === 0 ? 'corner' : 'straight' } }))
        await (await engine.store.append([{ stream: 'settings', events }])).durable
      }
      head = engine.store.durableHeadPosition
    } finally {
      await engine.close()
    }
    expect(head).toBeGreaterThan(KEYSTROKES + SETTINGS)

    const seen: number[] = []
    for (const delayMs of [700, 1_200, 1_800, 2_500, 3_500, 5_000]) {
      await killedDuringCatchUp(home, delayMs)
      const { audit } = await checkpoints(home)
      seen.push(audit ?? 0)
    }
    // Some kill landed while the index was part way through the log (else the test proved nothing).
    expect(seen.some((checkpoint) => checkpoint > 0 && checkpoint < head), `checkpoints after each kill: ${seen.join(', ')}`).toBe(true)

    const listed = await runCli(['log'], { home })
    expect(listed.code).toBe(0)
    const positions = listed.stdout.split('\n').filter((line) => line !== '').map((line) => Number(line.trim().split(/\s+/)[0]))
    expect(positions).toEqual(Array.from({ length: head }, (_, i) => i + 1))
    const history = await runCli(['history', docId], { home })
    expect(history.stdout).toContain(`typed: ${KEYSTROKES} edits`)
    const verified = await runCli(['verify'], { home })
    expect(verified.stdout).toMatch(/read model audit: \d+ entries up to position \d+ equal a fresh rebuild/)
    expect(verified.stdout).toMatch(/read model history: \d+ entries up to position \d+ equal a fresh rebuild/)
    expect(verified.code).toBe(0)
  })
})
