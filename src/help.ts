// Pure: the text `--help` adds after commander's option list: examples, exit codes, environment.
import { ERRORS, EXIT, type ErrorCode } from './errors.js';
import { WARNINGS } from './config/warning-codes.js';

/** Every environment variable rho-cursor reads, and why. */
export const ENVIRONMENT = [
  ['CURSOR_API_KEY', 'passed to the agent in its environment only; never printed or logged'],
  ['CURSOR_CONFIG_DIR', "Cursor's config dir (else $XDG_CONFIG_HOME/cursor, else ~/.cursor)"],
  ['XDG_CONFIG_HOME', 'where the config dir is when CURSOR_CONFIG_DIR is unset (absolute paths only)'],
  ['HOME', 'for ~/.cursor'],
  ['RHO_CURSOR_AGENT', 'the agent executable when --agent is absent'],
  [
    'RHO_CURSOR_CGROUP',
    '`off`: no cgroup for the agent (process group and survey only); `v1`, `v2`: only that',
  ],
  ['RHO_CURSOR_NO_WARNING', 'warning codes to silence, comma-separated, as --no-warning does'],
  ['PATH', 'where cursor-agent is looked up'],
  ['TMPDIR', "where the fence's private config dir, the ledger's snapshot and --worktree's tree go"],
  ['GIT_DIR', 'the repository git finds, for the changes ledger and --worktree (as git reads it)'],
  ['GIT_WORK_TREE', "that repository's work tree, likewise"],
  ['NO_COLOR', 'no colour (https://no-color.org), also for the spinner'],
  ['FORCE_COLOR', 'colour even when stderr is not a terminal (0 or false: never)'],
  ['TERM', '`dumb` means no colour and no spinner'],
  ['GITHUB_ACTIONS', '`true`: annotations, the step outputs and the step summary (see --summary-file)'],
  ['GITHUB_OUTPUT', 'under GitHub Actions: exit-code, stop-reason, session-id (and structured) appended'],
  [
    'GITHUB_STEP_SUMMARY',
    'under GitHub Actions: where the summary goes unless --summary-file or --no-summary',
  ],
  ['GITHUB_ENV', 'never passed to the agent; under GitHub Actions, put back if the agent wrote the file'],
  ['GITHUB_PATH', 'the same'],
  ['GITHUB_STATE', 'the same'],
] as const;

export const EXAMPLES = [
  ['rho-cursor run "summarise README.md in three bullets"', 'ask a question'],
  ['git diff | rho-cursor run "review this diff:" -', 'the words, a blank line, then stdin'],
  ['rho-cursor run -f task.md', 'the prompt from a file'],
  ['rho-cursor run -- explain what --version does', 'words after -- are never options'],
  ['rho-cursor run --plan "how would you split src/run.ts?" > plan.md', 'a plan, not executed'],
  ['rho-cursor run --output-format stream-json --permissions reject "fix the test"', 'NDJSON events'],
  [
    'rho-cursor run --fence no-shell --attach shot.png "why is the button cut off?"',
    'edits yes, shell never',
  ],
  [
    `rho-cursor run --allow 'Shell(npm test)' --allow 'Write(src/**)' --deny 'Shell(git push)' "fix the tests"`,
    'only npm test, only src/',
  ],
  ['rho-cursor run --output-schema verdict.json "is this diff safe?" | jq .safe', 'a validated JSON answer'],
  ['rho-cursor run --continue "and now the tests"', "the workspace's newest session"],
  [
    'rho-cursor run --agent npx --agent-arg @zed-industries/claude-agent-acp "explain this repo"',
    "another ACP agent (Claude's adapter)",
  ],
  [
    'rho-cursor run --worktree --patch fix.diff "fix the failing test" && git apply fix.diff',
    'work in a temporary worktree, keep the patch',
  ],
] as const;

// What each exit code means, in the order a reader looks them up.
const EXIT_MEANING: Record<number, string> = {
  [EXIT.ok]: 'the turn ended (stopReason end_turn)',
  [EXIT.agentFailed]: 'the agent failed, broke the protocol or refused plan mode',
  [EXIT.usage]: 'usage or config error',
  [EXIT.auth]: 'authentication required',
  [EXIT.maxTokens]: 'max_tokens, max_turn_requests, or --max-tool-calls reached',
  [EXIT.refusal]: 'refusal',
  [EXIT.schemaMismatch]: 'the answer did not match --output-schema',
  [EXIT.denied]:
    '--strict: a permission was rejected or a tool blocked; a turn the agent ended after a rejection',
  [EXIT.breach]: 'a fence or a Write(...) rule was breached: the workspace changed where it must not',
  [EXIT.timeout]: 'a timeout',
  [EXIT.notFound]: 'the agent executable was not found',
  [EXIT.sighup]: 'cancelled by SIGHUP',
  [EXIT.sigint]: 'cancelled by SIGINT (Ctrl-C)',
  [EXIT.sigquit]: 'ended by SIGQUIT (Ctrl-\\); other fatal signals are 128+n',
  [EXIT.sigpipe]: 'stdout was closed by its reader',
  [EXIT.sigterm]: 'cancelled by SIGTERM',
};

// Lines of two columns, the first padded to the widest, the second wrapped at about 100 characters.
function columns(rows: ReadonlyArray<readonly [string, string]>, indent = '  '): string[] {
  const width = Math.max(...rows.map(([a]) => a.length));
  const room = Math.max(40, 100 - indent.length - width - 2);
  return rows.flatMap(([a, b]) =>
    wrap(b, room).map((l, i) => `${indent}${(i === 0 ? a : '').padEnd(width)}  ${l}`.trimEnd()),
  );
}

// Splits text into lines of at most width characters, at spaces.
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line];
}

// The exit codes with the error codes (result.error.code) each one stands for, from the ERRORS table.
export function exitCodeRows(): Array<[string, string]> {
  const codes = [...new Set(Object.values(EXIT))].sort((a, b) => a - b);
  return codes.map((n) => {
    const errs = (Object.keys(ERRORS) as ErrorCode[]).filter((c) => ERRORS[c][0] === n);
    // Every signal that cancels a run is the one error code, whatever its exit code.
    if (n === EXIT.sighup || n === EXIT.sigquit || n === EXIT.sigterm) errs.push('cancelled');
    const meaning = EXIT_MEANING[n] ?? '';
    return [String(n), errs.length ? `${meaning} (${errs.join(', ')})` : meaning];
  });
}

// The text after `rho-cursor run --help`'s options. Handed to commander as a function, so it is composed
// only when help is printed (at every run's start it cost ~1.5 ms before the agent was spawned).
export function runHelpAfter(): string {
  return [
    '',
    'The prompt is the words joined by spaces. `-` among them appends standard input after a blank',
    'line; no words with a piped stdin reads the whole prompt from it. `--` ends the options.',
    '',
    'Examples:',
    ...columns(EXAMPLES.map(([cmd, why]) => [cmd, `# ${why}`])),
    '',
    'Exit codes (result.error.code in parentheses):',
    ...columns(exitCodeRows()),
    '',
    'Environment:',
    ...columns(ENVIRONMENT),
    '',
    'Warning codes (--no-warning <code> silences one on stderr and in the summary):',
    ...columns(Object.entries(WARNINGS)),
    '',
  ].join('\n');
}

// The text after the top-level `rho-cursor --help`.
export function programHelpAfter(): string {
  return [
    '',
    'Examples:',
    ...columns(EXAMPLES.slice(0, 3).map(([cmd, why]) => [cmd, `# ${why}`])),
    '',
    '`rho-cursor run --help` lists every option, the exit codes and the environment variables read.',
    '',
  ].join('\n');
}
