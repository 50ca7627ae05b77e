// Pure: the rawInput fields that name a file, across agents (Cursor, Claude's, Gemini's and Codex's adapters):
// one list for the rules that judge a request (policy/subject.ts) and the ledger that accounts for a finished
// tool (changes/account.ts), so what one reads the other does too (found by review: `from`/`to` and
// `abs_path` were the ledger's alone, so Write(src/**) let a move out of src/ named that way through). `paths`
// (an array) is read beside them by both.
export const PATH_KEYS: readonly string[] = [
  'path',
  'paths',
  'file_path',
  'filePath',
  'target_file',
  'targetFile',
  'notebook_path',
  'abs_path',
  'source',
  'destination',
  'from',
  'to',
  'old_path',
  'new_path',
  'oldPath',
  'newPath',
];
