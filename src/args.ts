// The `run` command's options as commander sees them, and a pure argv -> options parse built on them.
import { Command, CommanderError, Option } from 'commander';
import { RhoError } from './errors.js';
import { runHelpAfter } from './help.js';
import {
  COLORS,
  DEFAULT_STEP_TIMEOUT,
  FENCES,
  FORMATS,
  formatFromArgv,
  POLICIES,
  resolveRunOptions,
  TOOL_KINDS,
  type Facts,
  type Parsed,
  type RawRunOptions,
} from './options.js';

// Declares run's arguments and options on a commander command (values are checked later, all at once).
export function defineRun(cmd: Command): Command {
  return cmd
    .description('run one prompt and print the result')
    .argument('[prompt...]', 'the prompt; `-` appends standard input; `--` ends the options')
    .option(
      '-m, --model <id>',
      "the model: Cursor's --model flag; for another agent session/set_model or its model config option",
    )
    .option('-f, --prompt-file <file>', 'read the prompt from a file (after the words, if any)')
    .option('--plan', 'plan mode (--mode plan) before the prompt, with --fence read-only unless given')
    .option(
      '--mode <id>',
      'set a mode the agent offers before the prompt (session/set_mode or its mode option)',
    )
    .option('--resume <sessionId>', 'continue that session (session/load) instead of a new one')
    .option('--continue', "continue the workspace's newest session (session/list, then session/load)")
    .addOption(
      new Option(
        '--permissions <policy>',
        `how permission requests are answered: ${POLICIES.join(', ')} (default: ask on a terminal, else reject)`,
      ),
    )
    .addOption(
      new Option(
        '--allow <rule>',
        `repeatable: allow once a tool kind's requests (${TOOL_KINDS.join(', ')}), or what a rule covers: Shell(npm test), Shell(npx vitest:*), Write(src/**), Read(glob), WebFetch(domain), Mcp(server:tool)`,
      )
        .argParser((v: string, acc: string[]) => [...acc, v])
        .default([] as string[], 'none'),
    )
    .addOption(
      new Option(
        '--deny <rule>',
        "repeatable: reject what a rule or a tool kind covers (Shell(git push), Write(**/.env*)); a deny wins over every allow, and Cursor's own config gets it too",
      )
        .argParser((v: string, acc: string[]) => [...acc, v])
        .default([] as string[], 'none'),
    )
    .addOption(
      new Option(
        '--attach <file>',
        'repeatable: a text file (inline, headed by its path) or a PNG, JPEG, GIF or WebP image',
      ).argParser((v: string, acc: string[] | undefined) => [...(acc ?? []), v]),
    )
    .option(
      '--fence <fence>',
      `what the agent must not be able to do, whatever your Cursor config says: ${FENCES.join(', ')} (default: read-only with --plan, else none)`,
    )
    .option('--output-format <format>', `${FORMATS.join(', ')} (default: text)`)
    .option('-C, --cwd <dir>', 'the workspace (default: current directory)')
    .option(
      '--timeout <duration>',
      'bound on the whole run, reading stdin included (500ms, 10s, 2m, 1h, seconds)',
    )
    .option('--step-timeout <duration>', `bound on each handshake step (default: ${DEFAULT_STEP_TIMEOUT})`)
    .option('--idle-timeout <duration>', 'cancel when the agent sends nothing for this long')
    .option('--agent <path>', 'the agent executable (default: $RHO_CURSOR_AGENT, else cursor-agent on PATH)')
    .addOption(
      new Option(
        '--agent-arg <arg>',
        "repeatable: the agent's arguments, instead of Cursor's `--trust [--model M] acp`",
      ).argParser((v: string, acc: string[] | undefined) => [...(acc ?? []), v]),
    )
    .option(
      '-o, --output-last-message <file>',
      'write the final answer to <file> when a turn ended (atomically)',
    )
    .option('--wire-log <file>', 'write every wire message to <file> as {dir, ms, msg} rows')
    .option('--max-tool-calls <n>', "the turn's n+1th tool call cancels the turn (exit 4)")
    .option(
      '--strict',
      'an answer that reads as an API error is exit 1; anything rejected or blocked is exit 7',
    )
    .option(
      '--summary-file <file>',
      'append a Markdown summary of the run (default under GitHub Actions: $GITHUB_STEP_SUMMARY)',
    )
    .option('--no-summary', 'no summary, also under GitHub Actions')
    .option('--output-schema <file>', 'ask for, extract and validate a JSON answer against this JSON Schema')
    .option(
      '--schema-retries <n>',
      'follow-up prompts when the answer does not match --output-schema (default: 2)',
    )
    .option(
      '--retries <n>',
      'try a failure before any tool started again with a fresh agent, after 1s, 2s, 4s... (default: 0)',
    )
    .option('--no-changes', 'do not measure what changed in the workspace (result.changes is null)')
    .option('--worktree', 'run the agent in a temporary git worktree of HEAD plus your uncommitted changes')
    .option(
      '--patch <file>',
      "with --worktree: write the agent's changes as a patch (applies with git apply)",
    )
    .option('--keep-worktree', 'with --worktree: keep the worktree after the run and say where')
    .addOption(noWarningOption())
    .option('-q, --quiet', 'text mode: only the answer on stdout, only errors and warnings on stderr')
    .option('--color <when>', `colour on stderr: ${COLORS.join(', ')} (default: auto)`)
    .addHelpText('after', () => runHelpAfter());
}

// --no-warning <code>, repeatable: commander reads any `--no-` option as a negation unless told otherwise.
function noWarningOption(): Option {
  const o = new Option(
    '--no-warning <code>',
    'silence a warning by its code, repeatable (also RHO_CURSOR_NO_WARNING=code,code); the codes are listed below',
  ).argParser((v: string, acc: string[] | undefined) => [...(acc ?? []), v]);
  o.negate = false;
  return o;
}

// Pure: parses `run`'s argv (without the word `run`) into options or usage errors, writing nothing.
export function parseRunArgv(argv: string[], facts: Facts): Parsed {
  let parsed: Parsed | undefined;
  const cmd = defineRun(new Command('run'))
    .exitOverride()
    .configureOutput({ writeOut: () => {}, writeErr: () => {}, outputError: () => {} })
    .action((words: string[], raw: RawRunOptions) => {
      parsed = resolveRunOptions(words, raw, facts);
    });
  try {
    cmd.parse(argv, { from: 'user' });
  } catch (e) {
    if (!(e instanceof CommanderError)) throw e;
    return { ok: false, errors: [usageFromCommander(e)], format: formatFromArgv(argv) };
  }
  return parsed!;
}

// A commander parse error as the usage error users see, on one line (commander puts its suggestion on a second).
export function usageFromCommander(e: CommanderError): RhoError {
  return new RhoError('usage', e.message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' '));
}

// The habits of the peers: `rho-cursor -p "..."` / `--print` (claude, gemini, Cursor's CLI) runs the prompt.
export function fromPeerHabits(argv: string[]): string[] {
  return argv[0] === '-p' || argv[0] === '--print' ? ['run', ...argv.slice(1)] : argv;
}

// A word as a shell would need it typed: bare when safe, else in single quotes.
const shellWord = (w: string): string => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, "'\\''")}'`);

// `rho-cursor "summarise it"` is a prompt given without `run`: say how it is typed.
export function unknownCommandError(e: CommanderError, argv: readonly string[]): RhoError {
  const error = usageFromCommander(e);
  const message = error.message;
  if (/did you mean/i.test(message)) return error;
  return new RhoError('usage', `${message}; did you mean: rho-cursor run ${argv.map(shellWord).join(' ')}`);
}
