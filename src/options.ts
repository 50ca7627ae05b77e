// Pure parsing of command-line values: durations, enumerations, and the run's resolved options.
import { RhoError } from './errors.js';
import { allowedKinds, NO_RULES, parseRules, type RuleSet } from './policy/rules.js';
import type { Attachment } from './prompt/attach.js';
import { silencedWarnings, unknownWarningErrors } from './config/warning-codes.js';
import { shortKeyWarning } from './lifecycle/secrets.js';

export const POLICIES = ['reject', 'allow', 'ask'] as const;
export type Policy = (typeof POLICIES)[number];

export const FORMATS = ['text', 'json', 'stream-json'] as const;
export type Format = (typeof FORMATS)[number];

export const COLORS = ['auto', 'always', 'never'] as const;
export type ColorMode = (typeof COLORS)[number];

export const TOOL_KINDS = [
  'read',
  'edit',
  'delete',
  'move',
  'search',
  'execute',
  'think',
  'fetch',
  'other',
] as const;
export type ToolKind = (typeof TOOL_KINDS)[number];

/** What the agent must not be able to do, whatever the user's Cursor config says (see src/fence/). */
export const FENCES = ['none', 'no-shell', 'read-only'] as const;
export type Fence = (typeof FENCES)[number];

/** A warning found while reading the command line, reported by the run as a `warning` event. */
export interface Notice {
  code: string;
  message: string;
}

export interface RunOptions {
  prompt: string;
  model: string | undefined;
  plan: boolean;
  /** --mode: a mode the agent offers, set before the prompt (--plan sets `plan`). */
  mode: string | undefined;
  policy: Policy;
  allow: ToolKind[];
  /** Every --allow and --deny value: bare kinds and rules (Shell(...), Write(...), ...); see policy/rules.ts. */
  rules: RuleSet;
  fence: Fence;
  format: Format;
  cwd: string;
  timeoutMs: number | undefined;
  stepTimeoutMs: number;
  idleTimeoutMs: number | undefined;
  agent: string;
  /** --agent-arg: the agent's arguments, instead of Cursor's `--trust [--model M] acp`. */
  agentArgs: string[];
  wireLog: string | undefined;
  /** --max-tool-calls: the turn's n+1th tool call cancels it. */
  maxToolCalls: number | undefined;
  /** --strict: an answer that reads as an API error, or anything refused, fails the run. */
  strict: boolean;
  /** -o: the final answer is written here, atomically, when a turn ended. */
  outputLastMessage: string | undefined;
  /** --summary-file, or GitHub's step summary: where the Markdown summary is appended. */
  summaryFile: string | undefined;
  /** Running under GitHub Actions: annotations on stderr and step outputs. */
  github: boolean;
  /** --resume: the session to load instead of a new one. */
  resume: string | undefined;
  /** --continue: load the workspace's newest session (a new one, with a warning, where there is none). */
  continueLast: boolean;
  /** --attach: the files, absolute, in the order given; read by main before the run. */
  attach: string[];
  /** The attached files' contents (filled once read; empty until then). */
  attachments: Attachment[];
  /** --output-schema and --schema-retries. */
  outputSchema: string | undefined;
  schemaRetries: number;
  /** --retries: a failure before any tool started is tried again with a fresh agent, this many times. */
  retries: number;
  /** Text mode: only the answer on stdout; on stderr only errors and warnings. */
  quiet: boolean;
  color: ColorMode;
  /** A person can answer questions: stdin and stderr are terminals, and stdin is not the prompt. */
  interactive: boolean;
  /** Warnings from the command line itself (`stdin-ignored`). */
  notices: Notice[];
  /** Warning codes silenced by --no-warning and RHO_CURSOR_NO_WARNING: not on stderr, not in the summary. */
  silenced: string[];
  /** The ledger: what changed in the workspace is measured (false with --no-changes). */
  changes: boolean;
  /** --worktree: the agent works in a temporary git worktree; --patch writes what it changed there. */
  worktree: boolean;
  patch: string | undefined;
  keepWorktree: boolean;
}

/** --step-timeout's default: Gemini's initialize took up to 10 s on a busy 2-core machine (contract v3). */
export const DEFAULT_STEP_TIMEOUT = '30s';

/** The longest duration any option takes: 24 hours. */
export const MAX_DURATION_MS = 24 * 60 * 60 * 1000;

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/;

// Durations are `500ms`, `10s`, `2m` or plain seconds, above 0 and at most 24 hours; ms or undefined.
export function parseDuration(text: string): number | undefined {
  const match = DURATION.exec(text.trim());
  if (!match) return undefined;
  const value = Number(match[1]);
  const unit = match[2] ?? 's';
  const ms = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[unit as 'ms' | 's' | 'm' | 'h'] * value;
  // Checked after rounding: `0.4ms` would otherwise become 0, which run.ts reads as "no timeout".
  const rounded = Math.round(ms);
  // At most a day: longer timers would overflow Node's 2^31 ms and fire at once.
  if (!Number.isFinite(rounded) || rounded <= 0 || rounded > MAX_DURATION_MS) return undefined;
  return rounded;
}

// Checks a value against an `as const` list and names the option when it is not one of them.
export function oneOf<T extends string>(option: string, list: readonly T[], value: string): T {
  if ((list as readonly string[]).includes(value)) return value as T;
  throw new RhoError('usage', `option '${option}' must be one of ${list.join(', ')} (got '${value}')`);
}

// Parses a duration option, naming the option in the error.
export function durationOption(option: string, value: string): number {
  const ms = parseDuration(value);
  if (ms === undefined) {
    throw new RhoError(
      'usage',
      `option '${option}' takes a duration like 500ms, 10s, 2m, 1h or a number of seconds, above 0 and at most 24h (got '${value}')`,
    );
  }
  return ms;
}

// Parses a count option: a whole number, at least min.
export function countOption(option: string, value: string, min = 0): number {
  const n = /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < min)
    throw new RhoError(
      'usage',
      `option '${option}' takes a whole number${min > 0 ? ` of at least ${min}` : ''} (got '${value}')`,
    );
  return n;
}

// The default permission policy: ask only when a person sits at the terminal.
export function defaultPolicy(interactive: boolean): Policy {
  return interactive ? 'ask' : 'reject';
}

/** Where the prompt comes from: the words, then (each after a blank line) a file and standard input. */
export interface PromptSource {
  words: string;
  file: string | undefined;
  /** Standard input is part of the prompt, read to its end. */
  readStdin: boolean;
}

// Decides where the prompt comes from; `-` among the words, or no words and no file with a piped stdin, reads stdin.
export function promptSource(words: string[], file: string | undefined, stdinIsTTY: boolean): PromptSource {
  const dash = words.includes('-');
  const text = words.filter((w) => w !== '-').join(' ');
  const readStdin = dash || (words.length === 0 && file === undefined && !stdinIsTTY);
  return { words: text, file, readStdin };
}

// Joins the prompt's parts, each after a blank line: words first, then the file, then standard input.
export function assemblePrompt(words: string, file?: string, stdin?: string): string {
  return [words, file, stdin].filter((p): p is string => p !== undefined && p.trim() !== '').join('\n\n');
}

// The usage error of a prompt that is empty once assembled.
export function emptyPromptError(): RhoError {
  return new RhoError(
    'usage',
    'the prompt is empty: give it as words, with -f <file>, or on standard input (`-` or a pipe)',
  );
}

/** What commander hands over for `run`, before any check. */
export interface RawRunOptions {
  model?: string;
  plan?: boolean;
  mode?: string;
  permissions?: string;
  allow?: string[];
  deny?: string[];
  outputFormat?: string;
  cwd?: string;
  timeout?: string;
  stepTimeout?: string;
  idleTimeout?: string;
  agent?: string;
  agentArg?: string[];
  wireLog?: string;
  fence?: string;
  maxToolCalls?: string;
  strict?: boolean;
  outputLastMessage?: string;
  summaryFile?: string;
  /** false with --no-summary */
  summary?: boolean;
  outputSchema?: string;
  schemaRetries?: string;
  retries?: string;
  promptFile?: string;
  attach?: string[];
  resume?: string;
  continue?: boolean;
  quiet?: boolean;
  color?: string;
  /** --no-warning, repeatable (each may be a comma list). */
  noWarning?: string[];
  /** false with --no-changes */
  changes?: boolean;
  worktree?: boolean;
  patch?: string;
  keepWorktree?: boolean;
}

/** Facts about the process the pure parser needs; main.ts gathers them. */
export interface Facts {
  env: Record<string, string | undefined>;
  /** The directory the command was typed in. */
  cwd: string;
  stdinIsTTY: boolean;
  stderrIsTTY: boolean;
  /** Standard input is a pipe, a socket or a regular file: something that could be read. */
  stdinHasData: boolean;
  isDirectory(path: string): boolean;
  resolvePath(from: string, path: string): string;
  /** Is this path standard input itself (`-f /dev/stdin`)? */
  isStdin?(path: string): boolean;
}

/** The options of a run, or every usage error found (one line each), with the output format if known. */
export type Parsed =
  | { ok: true; options: Omit<RunOptions, 'prompt'>; source: PromptSource }
  | { ok: false; errors: RhoError[]; format: Format | undefined };

// Validates raw commander values into the run's options; every bad value gives its own error naming the option.
export function resolveRunOptions(words: string[], raw: RawRunOptions, facts: Facts): Parsed {
  const errors: RhoError[] = [];
  const check = <T>(f: () => T): T | undefined => {
    try {
      return f();
    } catch (e) {
      if (e instanceof RhoError) errors.push(e);
      else throw e;
      return undefined;
    }
  };
  const format = check(() => oneOf<Format>('--output-format', FORMATS, raw.outputFormat ?? 'text'));
  const color = check(() => oneOf<ColorMode>('--color', COLORS, raw.color ?? 'auto'));
  const permissions =
    raw.permissions === undefined
      ? undefined
      : check(() => oneOf<Policy>('--permissions', POLICIES, raw.permissions!));
  const parsedRules = parseRules(raw.allow ?? [], raw.deny ?? []);
  errors.push(...parsedRules.errors);
  const rules = parsedRules.rules;
  const allow = allowedKinds(rules);
  const fence = check(() =>
    raw.fence === undefined ? defaultFence(raw.plan === true) : oneOf<Fence>('--fence', FENCES, raw.fence),
  );
  if (fence !== undefined && parsedRules.errors.length === 0) {
    check(() => checkAllowUnderFence(fence, allow, raw.fence !== undefined));
    check(() => checkRulesUnderFence(fence, rules, raw.fence !== undefined));
  }
  const maxToolCalls =
    raw.maxToolCalls === undefined
      ? undefined
      : check(() => countOption('--max-tool-calls', raw.maxToolCalls!));
  const schemaRetries = check(() => countOption('--schema-retries', raw.schemaRetries ?? '2'));
  const retries = check(() => countOption('--retries', raw.retries ?? '0'));
  const cwd = facts.resolvePath(facts.cwd, raw.cwd ?? '.');
  if (!facts.isDirectory(cwd)) {
    errors.push(new RhoError('usage', `option '--cwd' must name a directory (got '${raw.cwd ?? cwd}')`));
  }
  const duration = (option: string, v: string | undefined): number | undefined =>
    v === undefined ? undefined : check(() => durationOption(option, v));
  const timeoutMs = duration('--timeout', raw.timeout);
  const stepTimeoutMs = duration('--step-timeout', raw.stepTimeout ?? DEFAULT_STEP_TIMEOUT);
  const idleTimeoutMs = duration('--idle-timeout', raw.idleTimeout);
  const agentName = raw.agent ?? (facts.env.RHO_CURSOR_AGENT || 'cursor-agent');
  if (agentName.trim() === '') {
    errors.push(new RhoError('usage', "option '--agent' needs a path or a command name (got '')"));
  }
  if (raw.outputLastMessage !== undefined && raw.outputLastMessage.trim() === '') {
    errors.push(new RhoError('usage', "option '--output-last-message' needs a file (got '')"));
  }
  for (const [option, v] of [
    ['--summary-file', raw.summaryFile],
    ['--output-schema', raw.outputSchema],
  ] as const) {
    if (v !== undefined && v.trim() === '')
      errors.push(new RhoError('usage', `option '${option}' needs a file (got '')`));
  }
  if (raw.mode !== undefined && raw.mode.trim() === '')
    errors.push(new RhoError('usage', "option '--mode' needs a mode id (got '')"));
  if (raw.mode !== undefined && raw.plan === true && raw.mode !== 'plan')
    errors.push(
      new RhoError(
        'usage',
        `options '--plan' and '--mode ${raw.mode}' cannot be used together (--plan is --mode plan)`,
      ),
    );
  if (raw.resume !== undefined && raw.resume.trim() === '')
    errors.push(new RhoError('usage', "option '--resume' needs a sessionId (got '')"));
  if (raw.resume !== undefined && raw.continue === true)
    errors.push(new RhoError('usage', "options '--resume' and '--continue' cannot be used together"));
  for (const f of raw.attach ?? [])
    if (f.trim() === '') errors.push(new RhoError('usage', "option '--attach' needs a file (got '')"));
  const silenced = silencedWarnings(raw.noWarning ?? [], facts.env.RHO_CURSOR_NO_WARNING);
  errors.push(...unknownWarningErrors(silenced.unknown));
  if (words.filter((w) => w === '-').length > 1)
    errors.push(new RhoError('usage', '`-` (standard input) can stand only once among the prompt words'));
  if (raw.patch !== undefined && raw.patch.trim() === '')
    errors.push(new RhoError('usage', "option '--patch' needs a file (got '')"));
  for (const [option, given] of [
    ['--patch', raw.patch !== undefined],
    ['--keep-worktree', raw.keepWorktree === true],
  ] as const)
    if (given && raw.worktree !== true)
      errors.push(new RhoError('usage', `option '${option}' needs --worktree`));
  if (raw.promptFile !== undefined && raw.promptFile.trim() === '') {
    errors.push(new RhoError('usage', "option '--prompt-file' needs a file (got '')"));
  }
  if (errors.length > 0) return { ok: false, errors, format };

  const source = promptSource(words, raw.promptFile, facts.stdinIsTTY);
  // `-f /dev/stdin` reads standard input as the prompt file: it is read, and no person can answer on it.
  const fileIsStdin =
    raw.promptFile !== undefined && facts.isStdin?.(facts.resolvePath(facts.cwd, raw.promptFile)) === true;
  const interactive = facts.stdinIsTTY && facts.stderrIsTTY && !source.readStdin && !fileIsStdin;
  const github = facts.env.GITHUB_ACTIONS === 'true';
  const summaryFile = summaryFileOf(raw, facts.env);
  const path = (v: string | undefined): string | undefined =>
    v === undefined ? undefined : facts.resolvePath(facts.cwd, v);
  const notices: Notice[] = [];
  if (!source.readStdin && !fileIsStdin && !facts.stdinIsTTY && facts.stdinHasData) {
    notices.push({
      code: 'stdin-ignored',
      message:
        'standard input is not read: the prompt came from the words or --prompt-file (add `-` to append stdin)',
    });
  }
  const shortKey = shortKeyWarning(facts.env.CURSOR_API_KEY);
  if (shortKey) notices.push(shortKey);
  return {
    ok: true,
    source,
    options: {
      model: raw.model,
      plan: raw.plan === true,
      mode: raw.mode,
      policy: permissions ?? defaultPolicy(interactive),
      allow,
      rules,
      fence: fence!,
      format: format!,
      cwd,
      timeoutMs,
      stepTimeoutMs: stepTimeoutMs!,
      idleTimeoutMs,
      // A path-like agent is relative to where the user typed the command, not to --cwd.
      agent: agentName.includes('/') ? facts.resolvePath(facts.cwd, agentName) : agentName,
      agentArgs: raw.agentArg ?? [],
      wireLog: raw.wireLog,
      maxToolCalls,
      strict: raw.strict === true,
      outputLastMessage: path(raw.outputLastMessage),
      summaryFile: path(summaryFile),
      github,
      resume: raw.resume,
      continueLast: raw.continue === true,
      attach: (raw.attach ?? []).map((f) => facts.resolvePath(facts.cwd, f)),
      attachments: [],
      outputSchema: path(raw.outputSchema),
      schemaRetries: schemaRetries!,
      retries: retries!,
      quiet: raw.quiet === true,
      color: color!,
      interactive,
      notices,
      silenced: silenced.codes,
      changes: raw.changes !== false,
      worktree: raw.worktree === true,
      patch: path(raw.patch),
      keepWorktree: raw.keepWorktree === true,
    },
  };
}

// Where the summary goes, as given (not resolved): --summary-file, else under GitHub Actions the step summary,
// unless --no-summary says otherwise.
export function summaryFileOf(
  raw: Pick<RawRunOptions, 'summary' | 'summaryFile'>,
  env: NodeJS.ProcessEnv,
): string | undefined {
  if (raw.summary === false) return undefined;
  return (
    raw.summaryFile ?? (env.GITHUB_ACTIONS === 'true' ? env.GITHUB_STEP_SUMMARY || undefined : undefined)
  );
}

// The output format named on a command line commander could not parse, so a usage error can still write `result`.
export function formatFromArgv(argv: readonly string[]): Format | undefined {
  let found: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') break;
    if (a === '--output-format') found = argv[++i];
    else if (a.startsWith('--output-format=')) found = a.slice('--output-format='.length);
  }
  return (FORMATS as readonly string[]).includes(found ?? 'text') ? ((found ?? 'text') as Format) : undefined;
}

// --fence defaults to read-only with --plan (plan mode alone does not block shell), else none.
export function defaultFence(plan: boolean): Fence {
  return plan ? 'read-only' : 'none';
}

// --allow cannot reopen what the fence closes: no-shell rejects execute, read-only every permission request.
export function checkAllowUnderFence(fence: Fence, allow: readonly ToolKind[], fenceGiven: boolean): void {
  const closed = allow.filter((k) => fence === 'read-only' || (fence === 'no-shell' && k === 'execute'));
  if (closed.length === 0) return;
  const what = fence === 'read-only' ? 'every permission request' : 'every execute request';
  const from = fenceGiven ? `--fence ${fence}` : `--fence ${fence} (implied by --plan)`;
  throw new RhoError(
    'usage',
    `option '--allow ${closed[0]}' cannot reopen what ${from} closes: it rejects ${what}; drop --allow or pass --fence none`,
  );
}

// Rules cannot reopen what the fence closes either: no Shell(...) allow under no-shell, no allow rule at all
// under read-only (it rejects every permission request); deny rules only narrow, so they always stand.
export function checkRulesUnderFence(fence: Fence, rules: RuleSet = NO_RULES, fenceGiven = true): void {
  const closed = rules.allow.find(
    (r) => r.type !== 'kind' && (fence === 'read-only' || (fence === 'no-shell' && r.type === 'Shell')),
  );
  if (!closed) return;
  const what = fence === 'read-only' ? 'every permission request' : 'every execute request';
  const from = fenceGiven ? `--fence ${fence}` : `--fence ${fence} (implied by --plan)`;
  throw new RhoError(
    'usage',
    `option '--allow ${closed.text}' cannot reopen what ${from} closes: it rejects ${what}; drop --allow or pass --fence none`,
  );
}
