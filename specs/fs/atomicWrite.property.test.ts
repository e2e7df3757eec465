import { spawn } from 'node:child_process'
import { lstat, mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isQuireError } from '../../core/errors.js'
import { createFileExclusive, writeFileAtomic } from '../../adapters/fs/atomicWrite.js'
import type { WriteFaults } from '../../adapters/fs/atomicWrite.js'
import { supportScript } from '../support/cli.js'
import { sleep, useFsTempDirs } from '../support/fsTemp.js'
import { parseVersion, versionContent } from '../support/fsVersions.js'
import { fuzzParameters } from '../support/fuzz.js'

const newDir = useFsTempDirs()

/** Every hook, in the order the steps happen; the first three are before the target changes, `afterPlaced` after. */
const STEPS = ['afterTempCreated', 'afterTempWritten', 'beforePlace', 'afterPlaced'] as const
type Step = (typeof STEPS)[number]

const faultAt = (step: Step, place: 'beforeRename' | 'beforeLink'): WriteFaults => {
  const fail = (): never => {
    throw new Error(`interrupted at ${step}`)
  }
  return step === 'beforePlace' ? { [place]: fail } : { [step]: fail }
}

const read = async (path: string): Promise<string | null> => {
  try {
    return await readFile(path, 'utf8')
  } catch {
    return null
  }
}

describe('property: an interrupted save leaves the old content or the new content, nothing else', () => {
  it('SAVE.1 / WS.SAVE_AS.7 a failure at any step of either write leaves old or new bytes and no temp file', async () => {
    const dir = await newDir()
    let round = 0
    await fc.assert(
      fc.asyncProperty(
        fc.option(fc.string({ unit: 'binary', maxLength: 300 }), { nil: null }),
        fc.string({ unit: 'binary', maxLength: 300 }),
        fc.constantFrom(...STEPS, 'none' as const),
        fc.constantFrom('replace' as const, 'create' as const),
        async (old, next, step, how) => {
          const sub = join(dir, `r${round++}`)
          await mkdir(sub)
          const target = join(sub, 'doc.md')
          if (old !== null) await writeFile(target, old)
          const write = how === 'replace' ? writeFileAtomic : createFileExclusive
          const faults = step === 'none' ? {} : faultAt(step, how === 'replace' ? 'beforeRename' : 'beforeLink')
          let error: unknown
          try {
            await write(target, next, { faults })
          } catch (caught) {
            error = caught
          }
          const after = await read(target)
          const refusedExisting = how === 'create' && old !== null
          if (refusedExisting) {
            // The early check or the link refuses before any hook: the existing file is untouched.
            expect(isQuireError(error, 'APPROVAL_REQUIRED')).toBe(true)
            expect(after).toBe(old)
          } else if (step === 'none' || step === 'afterPlaced') {
            expect(after).toBe(next)
            if (step === 'none') expect(error).toBeUndefined()
          } else {
            expect((error as Error).message).toBe(`interrupted at ${step}`)
            expect(after).toBe(old)
          }
          expect(await readdir(sub)).toEqual(after === null ? [] : ['doc.md'])
        },
      ),
      fuzzParameters({ numRuns: 300 }),
    )
  })

  it('SAVE.1 SIGKILL at a random moment of back-to-back saves: the file is always one whole version', async () => {
    const dir = await newDir()
    const target = join(dir, 'doc.md')
    await writeFile(target, versionContent(0))
    const seen = new Set<number>()
    for (let life = 0; life < 8; life++) {
      const child = spawn(process.execPath, [supportScript('fsCrashWriter'), target], { stdio: ['ignore', 'pipe', 'inherit'] })
      await new Promise<void>((resolve, reject) => {
        child.stdout.once('data', () => resolve())
        child.once('exit', (code) => reject(new Error(`writer exited early (${code})`)))
      })
      await sleep(5 + ((life * 37) % 60))
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGKILL')
      await exited
      const version = parseVersion(await readFile(target, 'utf8'))
      expect(version, `after kill ${life}`).toBeDefined()
      seen.add(version!)
      expect((await lstat(target)).isFile()).toBe(true)
    }
    // The kills landed at different points: more than one version survived across the lives.
    expect(seen.size).toBeGreaterThan(1)
  })
})
