// Pure: what a run that failed before it started (a usage error) still owes a CI job: `exit-code` in
// $GITHUB_OUTPUT under GitHub Actions, and the summary where one is due. The command line could not be
// parsed, so the few options that matter are read from argv as it is.
import { resolve } from 'node:path';
import { RunFacts } from '../events/facts.js';
import type { ResultEvent } from '../events/types.js';
import { outputLines } from './github.js';
import { summaryMarkdown } from './summary.js';

// The last value of an option in argv (`--name v` or `--name=v`, or under any of its names), up to `--`.
export function optionFromArgv(
  argv: readonly string[],
  name: string | readonly string[],
): string | undefined {
  const names = typeof name === 'string' ? [name] : name;
  let found: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') break;
    const eq = names.find((n) => a.startsWith(`${n}=`));
    if (names.includes(a)) found = argv[++i];
    else if (eq !== undefined) found = a.slice(eq.length + 1);
  }
  return found;
}

/** A file to append to, and what it is for the error line if that fails. */
export interface EarlyReport {
  path: string;
  text: string;
  what: string;
}

// The appends owed for a failed start: the step outputs (any command), the summary (run only).
export function earlyReports(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  result: ResultEvent,
): EarlyReport[] {
  const github = env.GITHUB_ACTIONS === 'true';
  const out: EarlyReport[] = [];
  if (github && env.GITHUB_OUTPUT) {
    const values = { 'exit-code': String(result.exitCode), 'stop-reason': '', 'session-id': '' };
    out.push({ path: env.GITHUB_OUTPUT, text: outputLines(values), what: 'the step outputs' });
  }
  const rest = argv.slice(1);
  const words = rest.slice(0, rest.includes('--') ? rest.indexOf('--') : undefined);
  if (argv[0] !== 'run' || words.includes('--no-summary')) return out;
  const file = optionFromArgv(rest, '--summary-file') ?? (github ? env.GITHUB_STEP_SUMMARY : undefined);
  if (file) {
    const fence = optionFromArgv(rest, '--fence') ?? 'none';
    const text = summaryMarkdown({ result, facts: new RunFacts(false), fence });
    out.push({ path: resolve(cwd, file), text, what: 'the summary' });
  }
  return out;
}
