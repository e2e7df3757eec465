import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { personName } from '../../adapters/host/personName.js'
import { folder, removeAll } from '../support/conformance.js'

const run = promisify(execFile)

/**
 * The person's name on the coherence ledger's human entries (VMark's rule): `git config user.name` in the workspace,
 * else $USER, else $USERNAME, else "unknown-human". Git failing (here: a folder that does not exist) falls through.
 */
describe('personName', () => {
  let repository: string

  beforeAll(async () => {
    repository = await folder('person-name')
    await run('git', ['init', '--quiet'], { cwd: repository })
    await run('git', ['config', 'user.name', 'Ana Writer'], { cwd: repository })
  })
  afterAll(async () => {
    await removeAll(repository)
  })

  it("is the workspace's git user.name, whatever the environment says", async () => {
    expect(await personName(repository, { USER: 'someone-else' })).toBe('Ana Writer')
  })

  it('falls back to $USER, then $USERNAME, then "unknown-human" when git gives no name', async () => {
    const nowhere = join(repository, 'no-such-folder')
    expect(await personName(nowhere, { USER: 'ana', USERNAME: 'bo' })).toBe('ana')
    expect(await personName(nowhere, { USER: '  ', USERNAME: 'bo' })).toBe('bo')
    expect(await personName(nowhere, {})).toBe('unknown-human')
  })
})
