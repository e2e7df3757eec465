import fc from 'fast-check'
import { describe, it } from 'vitest'
import { fuzzParameters } from '../support/fuzz.js'
import { runStory, STARTS, step } from '../support/mirrorStory.js'
import { useTempHomes } from '../support/tempHome.js'

const newHome = useTempHomes()

describe('a change elsewhere leaves the person\'s WYSIWYG blocks as they are (issue 24 item 2)', () => {
  it('random typing, spaces, breaks, marks and Enter in the mirror, between writes, transforms, reloads and source edits of other blocks', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...STARTS), fc.array(step, { minLength: 1, maxLength: 14 }), async (initial, steps) => {
        await runStory(await newHome(), initial, steps)
      }),
      fuzzParameters({ numRuns: 60 }),
    )
  })
})
