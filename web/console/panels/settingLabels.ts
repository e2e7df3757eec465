/**
 * The settings in words a person understands, grouped as the panel shows them. The keys are `quire settings`'s; a
 * key the server lists but this table does not know still shows (under "Other", by its key), so a new setting is
 * never hidden. `autoApproveSaves` carries the name the spec gives it (WS.SAVE_AS.3).
 */
export interface SettingLabel {
  readonly label: string
  readonly hint?: string
}

export interface SettingGroup {
  readonly title: string
  readonly keys: Readonly<Record<string, SettingLabel>>
}

export const SETTING_GROUPS: readonly SettingGroup[] = [
  {
    title: 'Integrations (assistants)',
    keys: {
      autoApproveSaves: {
        label: 'Auto-approve saves to new locations and genie results',
        hint: 'When off, an assistant that saves a document to a new file waits for your approval here.',
      },
      reviewBacklogLimit: {
        label: 'Unreviewed assistant edits allowed per document',
        hint: 'When this many of an assistant’s edits to one document are not yet reviewed, its next write is refused until you review them.',
      },
      mcpMessageLimitBytes: {
        label: 'Largest message an assistant may send, in bytes',
        hint: 'A bigger request (usually a write of a very large document) is refused with an error naming this limit; 4194304 is 4 MiB.',
      },
    },
  },
  {
    title: 'Browser',
    keys: {
      embeddedBrowser: {
        label: 'Embedded browser',
        hint: 'When off, assistants cannot open, read or act on web pages: every browser action is refused.',
      },
      browserPosture: {
        label: 'Assistant tabs use',
        hint: 'sandbox: a fresh, separate cookie store per assistant. shared: your own browser profile (your logins), and each new site asks you first.',
      },
    },
  },
  {
    title: 'Coherence',
    keys: {
      trackProvenance: {
        label: 'Track document provenance',
        hint: 'When on, each save inside a workspace is recorded in its .vmark/ ledger (what the document was made from), so the Coherence view can show which documents went stale when their sources changed.',
      },
      coherenceTrustedWriters: {
        label: 'VMark writers whose grants count as yours',
        hint: 'Writer ids (comma-separated) of VMark installations you use: a delegation line one of them wrote counts as made by you. Any other line in a ledger grants nothing. quire coherence trust WRITER adds one.',
      },
    },
  },
  {
    title: 'Workspaces',
    keys: {
      workspaceRail: { label: 'Show the workspace rail', hint: 'Each window shows one open workspace’s tabs at a time, picked in the rail.' },
    },
  },
  {
    title: 'CJK formatting: general clean-up',
    keys: {
      'cjkFormatting.ellipsisNormalization': { label: 'Normalise ellipses (... and 。。。 become …)' },
      'cjkFormatting.newlineCollapsing': { label: 'Collapse runs of blank lines into one' },
      'cjkFormatting.spaceCollapsing': { label: 'Collapse repeated spaces into one' },
      'cjkFormatting.trailingSpaceRemoval': { label: 'Remove spaces at the ends of lines' },
      'cjkFormatting.preserveTwoSpaceHardBreaks': { label: 'Keep two trailing spaces that make a Markdown line break' },
    },
  },
  {
    title: 'CJK formatting: full-width characters',
    keys: {
      'cjkFormatting.fullwidthAlphanumeric': { label: 'Turn full-width letters and digits into ordinary ones (ＡＢＣ１２３ → ABC123)' },
      'cjkFormatting.fullwidthPunctuation': { label: 'Use full-width punctuation in CJK text (, → ，)' },
      'cjkFormatting.fullwidthParentheses': { label: 'Use full-width parentheses around CJK text (（ ）)' },
      'cjkFormatting.fullwidthBrackets': { label: 'Use full-width brackets in CJK text (【 】)' },
    },
  },
  {
    title: 'CJK formatting: spacing',
    keys: {
      'cjkFormatting.cjkEnglishSpacing': { label: 'Put a space between CJK and Latin letters or digits' },
      'cjkFormatting.cjkParenthesisSpacing': { label: 'Put a space between CJK text and parentheses' },
      'cjkFormatting.currencySpacing': { label: 'Fix spacing around currency signs ($ 100 → $100)' },
      'cjkFormatting.slashSpacing': { label: 'Remove spaces around slashes' },
    },
  },
  {
    title: 'CJK formatting: dashes and quotes',
    keys: {
      'cjkFormatting.dashConversion': { label: 'Turn double hyphens into dashes (-- → —)' },
      'cjkFormatting.emdashSpacing': { label: 'Fix spacing around em dashes' },
      'cjkFormatting.smartQuoteConversion': { label: 'Turn straight quotes into typographic quotes' },
      'cjkFormatting.quoteStyle': { label: 'Quote style for CJK text', hint: 'curly “…”, corner 「…」 or guillemets «…»' },
      'cjkFormatting.contextualQuotes': { label: 'Choose quotes by context (curly quotes stay around Latin text)' },
      'cjkFormatting.quoteSpacing': { label: 'Fix spacing around double quotes' },
      'cjkFormatting.singleQuoteSpacing': { label: 'Fix spacing around single quotes' },
      'cjkFormatting.cjkCornerQuotes': { label: 'Use corner quotes 「」 for CJK text' },
      'cjkFormatting.cjkNestedQuotes': { label: 'Use 『』 for quotes inside corner quotes' },
      'cjkFormatting.quoteToggleMode': { label: 'Quote toggle in the editor', hint: 'How the toggle-quotes command cycles; it does not change a whole-document format.' },
    },
  },
  {
    title: 'CJK formatting: punctuation and sections',
    keys: {
      'cjkFormatting.consecutivePunctuationLimit': {
        label: 'Longest run of repeated ！ or ？ to keep',
        hint: '0 leaves runs alone; 1 or 2 shortens longer runs.',
      },
      'cjkFormatting.skipReferenceSections': { label: 'Leave “References” / “参考文献” sections untouched' },
    },
  },
]
