import { spawn } from 'node:child_process'
import { mkdir, readFile, realpath, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { cliPath } from '../support/cli.js'
import { connectHttp } from '../support/mcpHarness.js'
import { useTempHomes } from '../support/tempHome.js'

const newHome = useTempHomes()

describe('quire serve --workspace with a relative folder', () => {
  it('opens the folder relative to the working directory, as a new user types it', async () => {
    const home = await newHome()
    const base = await realpath(await newHome())
    await mkdir(join(base, 'W'))
    await writeFile(join(base, 'W', 'notes.md'), 'notes\n')
    const child = spawn(process.execPath, [cliPath, '--home', home, 'serve', '--workspace', 'W'], { cwd: base, stdio: ['ignore', 'pipe', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    try {
      let portFile: string | undefined
      for (let tries = 0; tries < 600 && portFile === undefined; tries++) {
        if (child.exitCode !== null) throw new Error(`quire serve exited: ${stderr}`)
        portFile = await readFile(join(home, 'port'), 'utf8').catch(() => undefined)
        if (portFile === undefined) await sleep(25)
      }
      const [port, token] = portFile!.trim().split(':') as [string, string]
      const session = await connectHttp(Number(port), token)
      try {
        const opened = await session.call('workspace', { action: 'open', filePath: join(base, 'W', 'notes.md') })
        expect(opened.isError, opened.text).toBe(false)
      } finally {
        await session.close()
      }
    } finally {
      child.kill('SIGTERM')
      await new Promise((resolve) => child.once('exit', resolve))
    }
  })
})
