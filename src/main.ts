// Commander wiring: argv -> options -> run; the only place that exits the process.
import { Command, CommanderError, Option } from 'commander';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { statSync } from 'node:fs';
import { RhoError, toRhoError } from './errors.js';
import { onProcessExit, onStopSignals } from './lifecycle/signals.js';
import { run } from './run.js';
import {
  defaultPolicy,
  durationOption,
  FORMATS,
  oneOf,
  POLICIES,
  promptFromWords,
  TOOL_KINDS,
  type Format,
  type Policy,
  type RunOptions,
  type ToolKind,
} from './options.js';

interface RawRunOptions {
  model?: string;
  plan?: boolean;
  permissions?: string;
  allow: string[];
  outputFormat: string;
  cwd?: string;
  timeout?: string;
  stepTimeout: string;
  idleTimeout?: string;
  agent?: string;
  wireLog?: string;
}

// Reads all of standard input as the prompt.
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

// Validates raw commander values into the run's options; every bad value names its option.
async function toRunOptions(words: string[], raw: RawRunOptions): Promise<RunOptions> {
  const interactive = process.stdin.isTTY === true && process.stderr.isTTY === true;
  const format = oneOf<Format>('--output-format', FORMATS, raw.outputFormat);
  const policy = raw.permissions
    ? oneOf<Policy>('--permissions', POLICIES, raw.permissions)
    : defaultPolicy(interactive);
  const allow = raw.allow.map((k) => oneOf<ToolKind>('--allow', TOOL_KINDS, k));
  const cwd = resolve(raw.cwd ?? process.cwd());
  let isDir = false;
  try {
    isDir = statSync(cwd).isDirectory();
  } catch {
    // reported below
  }
  if (!isDir) throw new RhoError('usage', `option '--cwd' must name a directory (got '${raw.cwd ?? cwd}')`);
  const stepTimeoutMs = durationOption('--step-timeout', raw.stepTimeout);
  const timeoutMs = raw.timeout === undefined ? undefined : durationOption('--timeout', raw.timeout);
  const idleTimeoutMs =
    raw.idleTimeout === undefined ? undefined : durationOption('--idle-timeout', raw.idleTimeout);
  const fromWords = promptFromWords(words, process.stdin.isTTY === true);
  const prompt = fromWords ?? (await readStdin());
  if (prompt.trim() === '') {
    throw new RhoError(
      'usage',
      'the prompt is empty: give it as words, or as `-` / a pipe on standard input',
    );
  }
  return {
    prompt,
    model: raw.model,
    plan: raw.plan === true,
    policy,
    allow,
    format,
    cwd,
    timeoutMs,
    stepTimeoutMs,
    idleTimeoutMs,
    agent: agentCommand(raw.agent ?? (process.env.RHO_CURSOR_AGENT || 'cursor-agent')),
    wireLog: raw.wireLog,
    interactive: interactive && fromWords !== undefined,
  };
}

// A path-like agent is relative to where the user typed the command, not to --cwd.
const agentCommand = (a: string): string => (a.includes('/') ? resolve(a) : a);

// Waits until what was written to a stream has been handed to the OS, so exiting loses nothing.
function drained(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (stream.destroyed || !stream.writable) return resolve();
    const t = setTimeout(resolve, 5000);
    stream.write('', () => {
      clearTimeout(t);
      resolve();
    });
  });
}

async function exit(code: number): Promise<never> {
  await Promise.all([drained(process.stdout), drained(process.stderr)]);
  process.exit(code);
}

function program(version: string, setCode: (n: number) => void): Command {
  const cmd = new Command('rho-cursor')
    .description(
      "Run one prompt through Cursor's agent (cursor-agent acp) and hand back a trustworthy result.",
    )
    .version(version, '-V, --version')
    .exitOverride()
    // Usage errors are one line, with where to look next.
    .configureOutput({
      outputError: (s, write) => write(`rho-cursor: ${s.trimEnd().replace(/^error: /, '')} (see --help)\n`),
    });

  cmd
    .command('run')
    .description('run one prompt and print the result')
    .argument('[prompt...]', 'the prompt; `-` or none with a piped stdin reads it from standard input')
    .option('--model <id>', 'model passed to cursor-agent as --model <id>')
    .option('--plan', 'plan mode (session/set_mode plan) before the prompt')
    .addOption(
      new Option(
        '--permissions <policy>',
        'how permission requests are answered (default: ask on a terminal, else reject)',
      ).choices(POLICIES),
    )
    .option(
      '--allow <kind>',
      `allow once the requests of a tool kind; repeatable (${TOOL_KINDS.join(', ')})`,
      (v: string, acc: string[]) => [...acc, v],
      [] as string[],
    )
    .addOption(new Option('--output-format <format>', 'output format').choices(FORMATS).default('text'))
    .option('--cwd <dir>', 'the workspace (default: current directory)')
    .option('--timeout <duration>', 'bound on the whole run (500ms, 10s, 2m, or seconds)')
    .option('--step-timeout <duration>', 'bound on each handshake step', '10s')
    .option('--idle-timeout <duration>', 'no message from the agent for this long cancels the run (exit 124)')
    .option('--agent <path>', 'the agent executable (default: $RHO_CURSOR_AGENT, else cursor-agent on PATH)')
    .option('--wire-log <file>', 'write every wire message to <file> as {dir, ms, msg} rows')
    .exitOverride()
    .action(async (words: string[], raw: RawRunOptions) => {
      const opts = await toRunOptions(words, raw);
      // readline is loaded only when a person can be asked.
      const asker = opts.interactive
        ? (await import('./policy/ask.js')).terminalAsker(process.stdin, process.stderr)
        : undefined;
      const code = await run(opts, {
        env: process.env,
        home: homedir(),
        stdout: process.stdout,
        stderr: process.stderr,
        now: () => performance.now(),
        onSignal: onStopSignals,
        onExit: onProcessExit,
        asker,
        version,
      });
      setCode(code);
    });

  cmd
    .command('schema')
    .description('print the JSON Schema of the stream-json events (or of the json output)')
    .addOption(
      new Option('--output-format <format>', 'which output to describe')
        .choices(['stream-json', 'json'])
        .default('stream-json'),
    )
    .exitOverride()
    .action(async (o: { outputFormat: string }) => {
      const { jsonSchemas } = await import('./events/schema.js');
      const s = jsonSchemas();
      process.stdout.write(JSON.stringify(o.outputFormat === 'json' ? s.json : s.event, null, 2) + '\n');
    });
  return cmd;
}

export async function main(argv: string[], version: string): Promise<void> {
  // Last resort: a bug must still end in one line and an exit code (the run's exit hook kills the agent).
  process.on('uncaughtException', (e) => {
    process.stderr.write(`rho-cursor: internal error: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  });
  let code = 0;
  try {
    await program(version, (n) => (code = n)).parseAsync(argv, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) {
      // --help and --version succeed; everything else, a bare `rho-cursor` included, is a usage error.
      return exit(e.exitCode === 0 ? 0 : 2);
    }
    const err = toRhoError(e);
    process.stderr.write(`rho-cursor: ${err.message}${err.hint ? ` (${err.hint})` : ''}\n`);
    return exit(err.exitCode);
  }
  return exit(code);
}
