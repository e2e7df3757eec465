/**
 * Child process for specs/fs/atomicWrite.property.test.ts: saves `versionContent(k)` to the file given as argv[2]
 * for k = 1, 2, ... with `writeFileAtomic`, as fast as it can, until it is killed. Prints `ready` once, before the
 * first save. Each version is 64 KiB–2 MiB, so a SIGKILL often lands mid-write.
 */
import { writeFileAtomic } from '../../adapters/fs/atomicWrite.js'
import { versionContent } from './fsVersions.js'

const target = process.argv[2]
if (!target) throw new Error('usage: fsCrashWriter TARGET')
process.stdout.write('ready\n')
for (let version = 1; ; version++) await writeFileAtomic(target, versionContent(version))
