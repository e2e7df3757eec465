import { describe, expect, it } from 'vitest'
import { findProtectedRegions } from '../../core/text/cjk/protectedRegions.js'
import { cjkFormattingSchema, DEFAULT_CJK_FORMATTING, type CjkFormattingSettings } from '../../core/text/cjk/settings.js'
import { CJK_TRANSFORM_KINDS, transformText, type CjkTransformKind } from '../../core/text/cjk/transform.js'

const spacing = (text: string) => transformText('cjk-spacing', text)
const punctuation = (text: string) => transformText('cjk-punctuation', text)
const format = (text: string, settings: Partial<CjkFormattingSettings> = {}) =>
  transformText('cjk-format', text, { ...DEFAULT_CJK_FORMATTING, ...settings })

/** Every rule off; tests switch on the one they check. */
const NONE: CjkFormattingSettings = Object.freeze({
  ...DEFAULT_CJK_FORMATTING,
  ellipsisNormalization: false, fullwidthAlphanumeric: false, fullwidthPunctuation: false, fullwidthParentheses: false,
  cjkEnglishSpacing: false, cjkParenthesisSpacing: false, currencySpacing: false, slashSpacing: false,
  spaceCollapsing: false, dashConversion: false, emdashSpacing: false, smartQuoteConversion: false,
  quoteSpacing: false, singleQuoteSpacing: false, trailingSpaceRemoval: false,
})
const only = (text: string, settings: Partial<CjkFormattingSettings>) => transformText('cjk-format', text, { ...NONE, ...settings })

describe('settings', () => {
  it('DEFAULT_CJK_FORMATTING is VMark’s defaults, valid and frozen', () => {
    expect(cjkFormattingSchema.parse(DEFAULT_CJK_FORMATTING)).toEqual(DEFAULT_CJK_FORMATTING)
    expect(Object.isFrozen(DEFAULT_CJK_FORMATTING)).toBe(true)
    expect(DEFAULT_CJK_FORMATTING.fullwidthBrackets).toBe(false)
    expect(DEFAULT_CJK_FORMATTING.newlineCollapsing).toBe(false)
    expect(DEFAULT_CJK_FORMATTING.consecutivePunctuationLimit).toBe(0)
    expect(DEFAULT_CJK_FORMATTING.quoteStyle).toBe('curly')
  })
  it('rejects out-of-range settings', () => {
    expect(cjkFormattingSchema.safeParse({ ...DEFAULT_CJK_FORMATTING, consecutivePunctuationLimit: 3 }).success).toBe(false)
    expect(cjkFormattingSchema.safeParse({ ...DEFAULT_CJK_FORMATTING, quoteStyle: 'straight' }).success).toBe(false)
  })
})

describe('DOC.TRANSFORM.1 kinds', () => {
  it('DOC.TRANSFORM.1 exposes exactly the three kinds', () => {
    expect([...CJK_TRANSFORM_KINDS].sort()).toEqual(['cjk-format', 'cjk-punctuation', 'cjk-spacing'])
  })
})

describe('DOC.TRANSFORM.4 cjk-spacing', () => {
  it.each([
    ['学习Python编程', '学习 Python 编程'],
    ['共100个', '共 100 个'],
    ['2024年', '2024 年'],
    ['Hello世界', 'Hello 世界'],
    ['日本語とEnglish', '日本語と English'],
    ['カタカナABC', 'カタカナ ABC'],
    ['한국어Python', '한국어 Python'],
    ['拼音pīnyīn和café', '拼音 pīnyīn 和 café'],
    ['𠀀abc𠀁', '𠀀 abc 𠀁'],
    ['中文 English', '中文 English'],
    ['中文  English', '中文  English'],
    ['中文😀English', '中文😀English'],
    ['中文αβ', '中文αβ'],
    ['中文，English', '中文，English'],
  ])('DOC.TRANSFORM.4 %s → %s', (input, expected) => {
    expect(spacing(input)).toBe(expected)
    expect(spacing(expected)).toBe(expected)
  })
  it('DOC.TRANSFORM.4 treats code spans, inline math and URLs as Latin words, keeping them byte-identical', () => {
    expect(spacing('用`npm install`安装')).toBe('用 `npm install` 安装')
    expect(spacing('用``a`b``安装')).toBe('用 ``a`b`` 安装')
    expect(spacing('设$x+1$为')).toBe('设 $x+1$ 为')
    // GFM links a bare URL up to whitespace or `<`, CJK letters included: that whole URL stays as it is.
    expect(spacing('访问https://example.com/路径了解')).toBe('访问 https://example.com/路径了解')
    expect(spacing('访问https://example.com 了解')).toBe('访问 https://example.com 了解')
    expect(spacing('访问https://example.com，了解')).toBe('访问 https://example.com，了解')
    expect(spacing('联系me@example.com吧')).toBe('联系 me@example.com 吧')
    expect(spacing('见<https://a.b/c中>说明')).toBe('见 <https://a.b/c中> 说明')
  })
  it('DOC.TRANSFORM.4 puts the space outside link brackets, never inside', () => {
    expect(spacing('见[Python](https://python.org)文档')).toBe('见 [Python](https://python.org) 文档')
    expect(spacing('见[文档](https://python.org)abc')).toBe('见[文档](https://python.org) abc')
    expect(spacing('看![图Logo](img/a中b.png "标题X")吧')).toBe('看![图 Logo](img/a中b.png "标题X") 吧')
    expect(spacing('[中文][ref]abc\n\n[ref]: https://a.b "T中文"')).toBe('[中文][ref] abc\n\n[ref]: https://a.b "T中文"')
  })
  it('DOC.TRANSFORM.4 never looks through emphasis markers (a space could break them)', () => {
    expect(spacing('这是**bold**文字')).toBe('这是**bold**文字')
    expect(spacing('这是**粗体Bold**文字')).toBe('这是**粗体 Bold**文字')
  })
})

describe('DOC.TRANSFORM.5 cjk-punctuation', () => {
  it.each([
    ['你好,世界', '你好，世界'],
    ['结束.', '结束。'],
    ['什么?', '什么？'],
    ['什么?!', '什么？！'],
    ['注意:这里', '注意：这里'],
    ['好;坏', '好；坏'],
    ['English,中文', 'English，中文'],
    ['中文(English)', '中文（English）'],
    ['(注意)', '（注意）'],
    ['𠀀,English', '𠀀，English'],
  ])('DOC.TRANSFORM.5 %s → %s', (input, expected) => {
    expect(punctuation(input)).toBe(expected)
    expect(punctuation(expected)).toBe(expected)
  })
  it.each([
    ['ellipsis', '等等...继续'],
    ['spaced ellipsis', '等等. . .'],
    ['ordered-list marker', '1.中文\n2.日本語'],
    ['decimal number', '约3.14倍'],
    ['time', '时间12:30开始'],
    ['file extension', '文件.txt很大'],
    ['URL', '见 https://a.b/c,d.e 吧'],
    ['backslash escape', '中文\\.中文\\!'],
    ['code span', '用`a,b.c`吧'],
    ['inline math', '设$f(x):y$吧'],
    ['Korean', '안녕하세요,세계.'],
    ['pure ASCII', 'Hello, world. (Yes!) a:b; c?'],
  ])('DOC.TRANSFORM.5 leaves %s alone', (_name, input) => {
    expect(punctuation(input)).toBe(input)
  })
})

describe('DOC.TRANSFORM.3 cjk-format guide examples (vmark.md §7)', () => {
  it.each<[string, string, Partial<CjkFormattingSettings>]>([
    ['学习Python编程', '学习 Python 编程', {}],
    ['你好,世界', '你好，世界', {}],
    ['１２３４', '1234', {}],
    ['(注意)', '（注意）', {}],
    ['[重点]', '【重点】', { fullwidthBrackets: true }],
    ['原因--结果', '原因 —— 结果', {}],
    ['他说“你好”然后', '他说 “你好” 然后', {}],
    ['他说"你好"然后', '他说 “你好” 然后', {}],
    ['他说"你好"然后', '他说 "你好" 然后', { smartQuoteConversion: false, quoteSpacing: false, cjkEnglishSpacing: false }],
    ['"中文内容"', '「中文内容」', { quoteStyle: 'corner' }],
    ['等等. . .', '等等...', {}],
    ['太棒了！！！', '太棒了！', { consecutivePunctuationLimit: 1 }],
    ['太棒了！！！', '太棒了！！', { consecutivePunctuationLimit: 2 }],
  ])('DOC.TRANSFORM.3 %s → %s', (input, expected, settings) => {
    if (settings.smartQuoteConversion === false) {
      // VMark's guide renders this one with straight quotes; with conversion off they stay straight and unspaced.
      expect(format(input, settings)).toBe('他说"你好"然后')
      return
    }
    expect(format(input, settings)).toBe(expected)
    expect(format(expected, settings)).toBe(expected)
  })
})

describe('DOC.TRANSFORM.3 cjk-format rules, each behind its switch', () => {
  it('ellipsisNormalization', () => {
    expect(only('中文. . . .', { ellipsisNormalization: true })).toBe('中文...')
    expect(only('中文. . .', {})).toBe('中文. . .')
  })
  it('fullwidthAlphanumeric', () => {
    expect(only('今天是２０２４年ＡＢＣａｂｃ', { fullwidthAlphanumeric: true })).toBe('今天是2024年ABCabc')
  })
  it('fullwidthPunctuation with VMark’s contexts and exemptions', () => {
    const on = { fullwidthPunctuation: true }
    expect(only('（内容）,继续', on)).toBe('（内容），继续')
    expect(only('内容,「引用」', on)).toBe('内容，「引用」')
    expect(only('中文 v0.3.11 中文 3.14 中文 12:30 中文 1,000,000', on)).toBe('中文 v0.3.11 中文 3.14 中文 12:30 中文 1,000,000')
    expect(only('中文...中文', on)).toBe('中文...中文')
    expect(only('Hello, world. test.com', on)).toBe('Hello, world. test.com')
    expect(only('什么? ', on)).toBe('什么？ ')
    expect(only('안녕하세요, 세계.', on)).toBe('안녕하세요, 세계.')
  })
  it('fullwidthBrackets leaves links, task lists and footnotes alone', () => {
    const on = { fullwidthBrackets: true }
    expect(only('[链接](https://a.b) - [ ] 任务 [^1] [备注]', on)).toBe('[链接](https://a.b) - [ ] 任务 [^1] 【备注】')
  })
  it('dashConversion and emdashSpacing', () => {
    expect(only('原因--结果', { dashConversion: true })).toBe('原因 —— 结果')
    expect(only('原因——结果', { emdashSpacing: true })).toBe('原因 —— 结果')
    expect(only('中文\n\n---\n\n| a | b |\n|---|---|\n--flag', { dashConversion: true })).toBe('中文\n\n---\n\n| a | b |\n|---|---|\n--flag')
  })
  it('smartQuoteConversion: contextual, styles, apostrophes', () => {
    expect(only('他说"你好"。He said "hi".', { smartQuoteConversion: true })).toBe('他说“你好”。He said "hi".')
    expect(only('中文 He said "hi".', { smartQuoteConversion: true, contextualQuotes: false })).toBe('中文 He said “hi”.')
    expect(only('他说"你好"', { smartQuoteConversion: true, quoteStyle: 'guillemets' })).toBe('他说«你好»')
    expect(only("中文 don't 说'好'", { smartQuoteConversion: true })).toBe("中文 don't 说‘好’")
  })
  it('cjkCornerQuotes and cjkNestedQuotes', () => {
    expect(only('他说“你好”和‘再见’', { cjkCornerQuotes: true })).toBe('他说「你好」和『再见』')
    expect(only('「他说「好」了」', { cjkNestedQuotes: true })).toBe('「他说『好』了」')
  })
  it('quoteSpacing and singleQuoteSpacing (Korean and CJK punctuation excluded)', () => {
    expect(only('与“物质财富”无关。“伊斯特林悖论”表明', { quoteSpacing: true })).toBe('与 “物质财富” 无关。“伊斯特林悖论” 表明')
    expect(only('한글“text”', { quoteSpacing: true })).toBe('한글“text”')
    expect(only('测试‘hello’内容 don’t', { singleQuoteSpacing: true })).toBe('测试 ‘hello’ 内容 don’t')
  })
  it('cjkEnglishSpacing with signs, currency and units; Korean excluded', () => {
    const on = { cjkEnglishSpacing: true }
    expect(only('价格$100元', on)).toBe('价格 $100 元')
    expect(only('温度25℃正常', on)).toBe('温度 25℃ 正常')
    expect(only('我有-1个', on)).toBe('我有 -1 个')
    expect(only('误差±5%范围', on)).toBe('误差 ±5% 范围')
    expect(only('中文-Web', on)).toBe('中文-Web')
    expect(only('안녕Hello', on)).toBe('안녕Hello')
  })
  it('cjkParenthesisSpacing, fullwidthParentheses and spaceCollapsing together', () => {
    expect(only('中文(English)', { cjkParenthesisSpacing: true })).toBe('中文 (English)')
    expect(format('测试(注意)内容')).toBe('测试（注意）内容')
  })
  it('currencySpacing and slashSpacing', () => {
    expect(only('价格 $ 100', { currencySpacing: true })).toBe('价格 $100')
    expect(only('中文 A / B', { slashSpacing: true })).toBe('中文 A/B')
  })
  it('spaceCollapsing keeps indentation and trailing spaces', () => {
    expect(only('  中文  English   \n  中文， English', { spaceCollapsing: true })).toBe('  中文 English   \n  中文，English')
  })
  it('trailingSpaceRemoval keeps two-space hard breaks unless told otherwise', () => {
    const on = { trailingSpaceRemoval: true }
    expect(only('中文  \n下一行 \n   \n结束  ', on)).toBe('中文  \n下一行\n\n结束')
    expect(only('中文  \r\n下一行\t\r\n', on)).toBe('中文  \r\n下一行\r\n')
    expect(only('中文  \n下一行', { ...on, preserveTwoSpaceHardBreaks: false })).toBe('中文\n下一行')
  })
  it('newlineCollapsing keeps the line-ending style', () => {
    expect(only('中文\n\n\n\n下一段', { newlineCollapsing: true })).toBe('中文\n\n下一段')
    expect(only('中文\r\n\r\n  \r\n下一段', { newlineCollapsing: true })).toBe('中文\r\n\r\n下一段')
  })
  it('skipReferenceSections leaves a references section alone', () => {
    const text = '正文Text\n\n## 参考文献\n\n1. 作者Name,书名\n\n## 附录\n\n附录Text'
    expect(format(text, { skipReferenceSections: true })).toBe('正文 Text\n\n## 参考文献\n\n1. 作者Name,书名\n\n## 附录\n\n附录 Text')
  })
  it('a document with every rule off is unchanged', () => {
    const text = '中文English,"引号"  \n１２３ --(注意)'
    expect(only(text, {})).toBe(text)
  })
})

describe('protected regions are never changed', () => {
  const kinds: CjkTransformKind[] = ['cjk-spacing', 'cjk-punctuation', 'cjk-format']
  const protectedPieces: [string, string][] = [
    ['fenced code (backticks, info string)', '```ts\nconst a=中文+1,b=(2);  \n```'],
    ['fenced code (tildes, long fence)', '~~~~~\n中文abc,x.\n~~~\n~~~~~'],
    ['indented code', '    中文abc,x.  \n    (中文)'],
    ['HTML block', '<div class="中">\n中文abc,x.\n</div>'],
    ['HTML comment', '<!-- 中文abc,x. -->'],
    ['math block', '$$\n中文abc,x.\n$$'],
    ['reference definition', '[中文]: https://a.b/中文abc "标题Title,x."'],
  ]
  for (const kind of kinds) {
    it.each(protectedPieces)(`${kind} keeps %s byte-identical`, (_name, piece) => {
      const text = `中文abc,说明.\n\n${piece}\n\n中文abc,说明.\n`
      const out = transformText(kind, text)
      expect(out).toContain(`\n\n${piece}\n\n`)
      expect(out).not.toBe(text)
    })
    it(`${kind} keeps front matter byte-identical`, () => {
      const front = '---\ntitle: 中文abc,x.\n---\n'
      const out = transformText(kind, `${front}中文abc,说明.`)
      expect(out.startsWith(front)).toBe(true)
      expect(out).not.toBe(`${front}中文abc,说明.`)
    })
    it(`${kind} keeps inline protected pieces byte-identical`, () => {
      const pieces = ['`中文abc,x.`', '$中文abc,x.$', 'https://a.b/中文?q=1,2.', '<span title="中文abc,x.">', '<https://a.b/中,x>', 'a.b@c.d', '\\.']
      for (const piece of pieces) expect(transformText(kind, `中文 ${piece} 中文`)).toContain(piece)
    })
  }
  it('finds each region kind', () => {
    const text = '---\na: 1\n---\n文`c`文 <b>x</b> $m$ https://a.b [t](u "v")\n\n```\ncode\n```\n'
    const found = findProtectedRegions(text).map((region) => text.slice(region.start, region.end))
    expect(found).toEqual(['---\na: 1\n---', '`c`', '<b>', '</b>', '$m$', 'https://a.b', '[', '](u "v")', '```\ncode\n```'])
  })
  it('an unclosed fence protects the rest of the document', () => {
    const text = '中文abc\n\n```\n中文abc,x.\n'
    expect(spacing(text)).toBe('中文 abc\n\n```\n中文abc,x.\n')
  })
  it('prices are prose, not math', () => {
    expect(spacing('价格$5和$10')).toBe('价格$5 和$10')
  })
})

describe('edge cases', () => {
  it.each(CJK_TRANSFORM_KINDS)('%s: empty string, ASCII, emoji-only, private-use characters', (kind) => {
    expect(transformText(kind, '')).toBe('')
    expect(transformText(kind, 'Hello,world. (x) "q" a--b  \n  ')).toBe('Hello,world. (x) "q" a--b  \n  ')
    expect(transformText(kind, '😀😀 é')).toBe('😀😀 é')
    expect(transformText(kind, '中\uE000文\uE004abc')).toContain('\uE000文\uE004')
  })
  it.each(CJK_TRANSFORM_KINDS)('%s: keeps mixed line endings', (kind) => {
    const out = transformText(kind, '中文abc\r\n中文abc\n中文abc\r中文abc')
    expect(out.match(/\r\n/g)).toHaveLength(1)
    expect(out.match(/\n/g)).toHaveLength(2)
    expect(out.match(/\r/g)).toHaveLength(2)
  })
  it('surrogate pairs stay whole', () => {
    for (const kind of CJK_TRANSFORM_KINDS) expect(transformText(kind, '𠀀abc,𠀁😀x.𠀂').isWellFormed()).toBe(true)
    expect(spacing('😀中文😀abc')).toBe('😀中文😀abc')
  })
  it('a lone surrogate is no character: the character after it is judged on its own', () => {
    expect(spacing('\uD800中a')).toBe('\uD800中 a')
    expect(spacing('a\uDC00中')).toBe('a\uDC00中')
    expect(transformText('cjk-format', '\uD800中a')).toBe('\uD800中 a')
  })
})

describe('linear time', () => {
  const n = 200_000
  const hostile: Record<string, string> = {
    'unclosed backticks': '中' + '`a '.repeat(n / 3),
    'dollar signs': '中$a '.repeat(n / 4),
    'unmatched brackets': '中[a '.repeat(n / 4) + '] '.repeat(n / 4),
    'unclosed comments': '中 <!-- a '.repeat(n / 10),
    'unclosed tags': '中<a x="'.repeat(n / 8),
    'math blocks': '中\n' + '$$\n中\n'.repeat(n / 5),
    'long space run': '中' + ' '.repeat(n) + 'a',
    'emails': '中 ' + 'a.b.c.d.e.f@'.repeat(n / 12),
  }
  // Catastrophic backtracking or quadratic scans on these inputs take minutes, far past the test timeout; their
  // speed is measured in bench/transform.ts, not asserted here.
  it.each(Object.keys(hostile))('every transform of %s finishes and is idempotent', (name) => {
    for (const kind of CJK_TRANSFORM_KINDS) {
      const once = transformText(kind, hostile[name]!)
      expect(transformText(kind, once)).toBe(once)
    }
  })
  it('a 1 MB mixed document transforms, and a second run changes nothing', () => {
    const paragraph = '学习Python编程,使用`npm install`安装.见[文档](https://example.com/a)了解2024年的"新功能"--很好!\n\n'
    const text = paragraph.repeat(Math.ceil(1_000_000 / Buffer.byteLength(paragraph)))
    for (const kind of CJK_TRANSFORM_KINDS) {
      const once = transformText(kind, text)
      expect(once).toContain('`npm install`')
      expect(transformText(kind, once)).toBe(once)
    }
  })
})
