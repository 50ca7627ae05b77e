// Commander wiring: argv -> options -> run; the only place that exits the process.
import { Command, CommanderError, Option } from 'commander';
import { appendFileSync, fstatSync, statSync, type Stats } from 'node:fs';
import { homedir } from 'node:os';
import { isatty } from 'node:tty';
import { resolve } from 'node:path';
import { RhoError, toRhoError } from './errors.js';
import { isPipe, writePipeSync } from './files/pipes.js';
import { osLimitError } from './os-limits.js';
import { defineRun, fromPeerHabits, unknownCommandError, usageFromCommander } from './args.js';
import { earlyReports, optionFromArgv } from './ci/early.js';
import { outputPathErrors, runOutputPaths } from './ci/paths.js';
import { pathKind } from './files/path-kind.js';
import { programHelpAfter } from './help.js';
import { ignoreDebuggerSignal, onProcessExit, onStopSignals } from './lifecycle/signals.js';
import { releaseHungUpTerminalsAtExit } from './lifecycle/terminals.js';
import { monotonicMs } from './lifecycle/timing.js';
import { tuneForTheTurn } from './lifecycle/v8-tuning.js';
import type { DoctorRawOptions } from './doctor/command.js';
import type { CodeCache } from './doctor/report.js';
import { run } from './run/index.js';
import {
  FENCES,
  assemblePrompt,
  DEFAULT_STEP_TIMEOUT,
  emptyPromptError,
  formatFromArgv,
  resolveRunOptions,
  type Facts,
  type Format,
  type PromptSource,
  type RawRunOptions,
  type RunOptions,
} from './options.js';
import { consoleText, regularFile, regularFileIds } from './ci/console.js';
import { errorAnnotation } from './ci/github.js';
import { oneLine } from './sanitize/terminal.js';
import { redacted, useSecret } from './sanitize/cut.js';
import { checkPromptTotal } from './prompt/attach.js';
import { readAttachments, readPromptFile } from './prompt/files.js';
import { describeRefusal, FILE_CAPS, fmtBytes, type Refusal } from './files/untrusted.js';
import type { SessionsRawOptions } from './sessions/command.js';
import { resultBeforeRun, stdoutBeforeRun } from './render/early.js';
import { fmtMs, stopError } from './stop.js';

/** A run that failed before it started: its errors, and the output format when it is known. */
class EarlyFailure extends Error {
  constructor(
    readonly errors: RhoError[],
    readonly format: Format | undefined,
    /** What stdout owes in place of a run's result: another command's own failure (sessions' json object). */
    readonly stdout?: string,
  ) {
    super(errors[0]?.message ?? 'usage error');
  }
}

// Is standard input something that can be read to an end (a pipe, a socket or a regular file)?
function stdinHasData(): boolean {
  try {
    const s = fstatSync(0);
    return s.isFIFO() || s.isSocket() || s.isFile();
  } catch {
    return false;
  }
}

// The facts about this process the pure option parser needs.
function processFacts(): Facts {
  return {
    env: process.env,
    cwd: process.cwd(),
    // isatty, not process.stdin.isTTY: making process.stdin costs ~3 ms, and most runs never read it.
    stdinIsTTY: isatty(0),
    stderrIsTTY: process.stderr.isTTY === true,
    stdinHasData: stdinHasData(),
    isDirectory: (p) => {
      try {
        return statSync(p).isDirectory();
      } catch {
        return false;
      }
    },
    resolvePath: (from, p) => resolve(from, p),
    isStdin,
  };
}

// Is this path standard input itself (`-f /dev/stdin`, `/proc/self/fd/0`)?
function isStdin(path: string): boolean {
  try {
    const [a, b] = [statSync(path), fstatSync(0)];
    return a.dev === b.dev && a.ino === b.ino;
  } catch {
    return false;
  }
}

// Reads all of standard input, as much as -f takes (10 MiB): past it, reading stops at once and the run is a
// usage error, nothing more is buffered (found by review: a pipe without end was read to V8's string limit); a
// directory on stdin is named as one. Bounded by --timeout (exit 124) when one is given, and by a signal
// (`stopped` rejects with its error: exit 129, 130, 143...). `asFile`: the path -f named it by.
async function readStdin(
  timeoutMs: number | undefined,
  stopped: Promise<never>,
  asFile?: string,
): Promise<string> {
  const cap = FILE_CAPS.promptFile;
  const refused = (r: Refusal): RhoError =>
    new RhoError(
      'usage',
      asFile === undefined
        ? r.reason === 'too-large'
          ? `standard input is over ${fmtBytes(cap)} (the cap of the prompt, as of -f): not read further`
          : `standard input is ${r.reason === 'not-regular' ? r.what : 'unreadable'}, not the prompt's text`
        : `option '--prompt-file': '${asFile}' ${describeRefusal(r)}`,
    );
  let st: Stats | undefined;
  try {
    st = fstatSync(0);
  } catch {
    // closed: read as empty
  }
  if (st?.isDirectory()) throw refused({ reason: 'not-regular', what: 'a directory' });
  if (st?.isFile() && st.size > cap) throw refused({ reason: 'too-large', size: st.size, cap });
  const chunks: Buffer[] = [];
  let total = 0;
  const read = (async () => {
    // Leaving the loop (the throw) destroys the stream: nothing more is read.
    for await (const chunk of process.stdin) {
      total += (chunk as Buffer).length;
      if (total > cap) throw refused({ reason: 'too-large', size: total, cap });
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks).toString('utf8');
  })();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    if (timeoutMs === undefined) return;
    timer = setTimeout(
      () =>
        reject(
          new RhoError(
            'run_timeout',
            `standard input did not end within ${fmtMs(timeoutMs)} (--timeout) while reading the prompt`,
          ),
        ),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([read, late, stopped]);
  } finally {
    clearTimeout(timer);
  }
}

/** The signals a run answers, from before its prompt is read until the run subscribes its own handlers. */
interface EarlySignals {
  /** Rejects with the first signal's error (`cancelled by SIGINT while reading the prompt`, exit 130). */
  readonly stopped: Promise<never>;
  /** The error of a signal received so far, if any. */
  error(): RhoError | undefined;
  off(): void;
}

// Subscribes to the run's signals at once: a signal while the prompt is read from stdin (or the terminal) ends
// the run with the signal's exit code and its `result`, as --timeout there does, never the default action
// (found by review: no result, nothing on stderr).
function earlySignals(): EarlySignals {
  let error: RhoError | undefined;
  let reject: (e: RhoError) => void = () => {};
  const stopped = new Promise<never>((_, r) => (reject = r));
  stopped.catch(() => {});
  const off = onStopSignals((signal) => {
    if (error) return;
    const e = stopError(signal);
    error = new RhoError(e.code, `${e.message} while reading the prompt`, { exitCode: e.exitCode });
    reject(error);
  });
  return { stopped, error: () => error, off };
}

// Gathers the prompt from its sources: words, then the file, then standard input.
async function readPrompt(
  source: PromptSource,
  opts: Omit<RunOptions, 'prompt'>,
  stopped: Promise<never>,
): Promise<{ prompt: string; stdinMs: number }> {
  // A prompt file that is standard input is read as stdin is (a socket cannot be opened by its path).
  const file =
    source.file === undefined
      ? undefined
      : isStdin(resolve(source.file))
        ? await readStdin(opts.timeoutMs, stopped, source.file)
        : readPromptFile(source.file);
  let stdin: string | undefined;
  const t = monotonicMs();
  if (source.readStdin) {
    if (isatty(0) && !opts.quiet) {
      process.stderr.write('rho-cursor: reading the prompt from stdin, Ctrl-D to end\n');
    }
    stdin = await readStdin(opts.timeoutMs, stopped);
  }
  const prompt = assemblePrompt(source.words, file, stdin);
  if (prompt.trim() === '') throw emptyPromptError();
  return { prompt, stdinMs: monotonicMs() - t };
}

// Validates the parsed command line and reads the prompt: the run's options, or an EarlyFailure.
async function toRunOptions(words: string[], raw: RawRunOptions, signals: EarlySignals): Promise<RunOptions> {
  const parsed = resolveRunOptions(words, raw, processFacts());
  if (!parsed.ok) throw new EarlyFailure(parsed.errors, parsed.format);
  const { options, source } = parsed;
  // Every file the run will write, checked before anything is spawned or read.
  const unwritable = outputPathErrors(
    runOutputPaths(
      {
        ...options,
        summaryFileGiven: raw.summaryFile !== undefined,
        wireLog: options.wireLog === undefined ? undefined : resolve(options.wireLog),
      },
      process.env,
    ),
    pathKind,
  );
  if (unwritable.length > 0) throw new EarlyFailure(unwritable, options.format);
  try {
    // The files first: a bad one fails at once, before stdin is waited for.
    const attachments = readAttachments(options.attach, options.cwd);
    const { prompt, stdinMs } = await readPrompt(source, options, signals.stopped);
    checkPromptTotal(prompt, attachments);
    // The time spent reading stdin counts against --timeout: it bounds the whole run.
    const timeoutMs =
      options.timeoutMs === undefined ? undefined : Math.max(1, Math.round(options.timeoutMs - stdinMs));
    return { ...options, prompt, timeoutMs, attachments };
  } catch (e) {
    throw new EarlyFailure([toRhoError(e)], options.format);
  }
}

// Waits until what was written to a stream has been handed to the OS, so exiting loses nothing: however
// slowly its reader reads (a run's --timeout bounds the run, not the reader; a closed pipe errors at once).
function drained(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (stream.destroyed || !stream.writable || stream.errored) return resolve();
    stream.write('', () => resolve());
  });
}

// The first error writing stdout, for the commands other than run (which handles its own).
let stdoutFailure: NodeJS.ErrnoException | undefined;

async function exit(code: number): Promise<never> {
  await Promise.all([drained(process.stdout), drained(process.stderr)]);
  // --help, schema and the rest: a closed pipe is a quiet 141, any other write error one line and exit 1.
  if (stdoutFailure && code === 0) {
    if (stdoutFailure.code === 'EPIPE') process.exit(141);
    process.stderr.write(`rho-cursor: cannot write to stdout: ${stdoutFailure.message}\n`);
    process.exit(1);
  }
  process.exit(code);
}

function program(version: string, boot: Boot, setCode: (n: number) => void): Command {
  const cmd = new Command('rho-cursor')
    .description(
      "Run one prompt through Cursor's agent (cursor-agent acp) and hand back a trustworthy result.",
    )
    .version(version, '-V, --version')
    .exitOverride()
    // Parse errors are reported by main(), one line each, with a result event where the format asks for one.
    .configureOutput({ outputError: () => {} })
    .addHelpText('after', () => programHelpAfter());

  defineRun(cmd.command('run'))
    .exitOverride()
    .action(async (words: string[], raw: RawRunOptions) => {
      // Signals are answered before the prompt is read, until run() subscribes its own handlers.
      const signals = earlySignals();
      const opts = await toRunOptions(words, raw, signals);
      // The terminal question is loaded only when a person can be asked.
      const ask = opts.interactive ? await import('./policy/ask.js') : undefined;
      const asker = ask?.terminalAsker(ask.processTerminal(process.stdin, process.stderr));
      const early = signals.error();
      if (early) throw new EarlyFailure([early], opts.format);
      const running = run(opts, {
        env: process.env,
        home: homedir(),
        stdout: process.stdout,
        stderr: process.stderr,
        now: monotonicMs,
        onSignal: onStopSignals,
        onExit: onProcessExit,
        asker,
        version,
        onAgentStarted: boot.tuneV8 ? tuneForTheTurn : () => {},
        stdoutIsFile: opts.github && regularFile(1),
        consoleFiles: regularFileIds([1, 2]),
      });
      // run() subscribed its handlers synchronously, before its first wait: no signal falls between the two.
      signals.off();
      setCode(await running);
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
  cmd
    .command('sessions')
    .description("list the workspace's sessions (session/list), newest first, for run --resume")
    .option('-C, --cwd <dir>', 'the workspace (default: current directory)')
    .addOption(
      new Option('--output-format <format>', 'output format').choices(['text', 'json']).default('text'),
    )
    .option('--agent <path>', 'the agent executable (default: $RHO_CURSOR_AGENT, else cursor-agent on PATH)')
    .addOption(
      new Option(
        '--agent-arg <arg>',
        "repeatable: the agent's arguments, instead of Cursor's `--trust acp`",
      ).argParser((v: string, acc: string[] | undefined) => [...(acc ?? []), v]),
    )
    .option('--step-timeout <duration>', 'bound on each request', DEFAULT_STEP_TIMEOUT)
    .option(
      '--worktree',
      'also the sessions of earlier `run --worktree` runs here (those `run --worktree --continue` picks from)',
    )
    .exitOverride()
    .action(async (o: SessionsRawOptions) =>
      setCode(await (await import('./sessions/command.js')).sessionsCommand(o, version)),
    );
  cmd
    .command('doctor')
    .description(
      'explain what a run would meet here: the agent, the config, the key, and what each tool does',
    )
    .option('-C, --cwd <dir>', 'the workspace (default: current directory)')
    .addOption(
      new Option('--output-format <format>', 'output format').choices(['text', 'json']).default('text'),
    )
    .option(
      '--handshake',
      'also run initialize and session/new, timed, and report what they said (for Cursor, whether it is logged in)',
    )
    .option('--plan', 'show the table as a --plan run sees it')
    .option('--fence <fence>', `show the rules under this fence: ${FENCES.join(', ')}`)
    .addOption(
      new Option(
        '--allow <rule>',
        'repeatable: a tool kind or a rule (Shell(npm test), Write(src/**)), as run takes it',
      ).argParser((v: string, acc: string[] | undefined) => [...(acc ?? []), v]),
    )
    .addOption(
      new Option(
        '--deny <rule>',
        'repeatable: a rule or a tool kind (Shell(git push)), as run takes it',
      ).argParser((v: string, acc: string[] | undefined) => [...(acc ?? []), v]),
    )
    .option('--agent <path>', 'the agent executable (default: $RHO_CURSOR_AGENT, else cursor-agent on PATH)')
    .addOption(
      new Option(
        '--agent-arg <arg>',
        "repeatable: the agent's arguments, instead of Cursor's `--trust acp`",
      ).argParser((v: string, acc: string[] | undefined) => [...(acc ?? []), v]),
    )
    .option('--step-timeout <duration>', 'bound on each handshake step', DEFAULT_STEP_TIMEOUT)
    .exitOverride()
    .action(async (o: DoctorRawOptions) =>
      setCode(await (await import('./doctor/command.js')).doctorCommand(o, version, boot.codeCache)),
    );
  return cmd;
}

// Reports a run that failed before it started: one stderr line per error, `result` on stdout where owed,
// and under GitHub Actions `exit-code` in $GITHUB_OUTPUT and the summary, as any other failure writes them.
function reportEarly(f: EarlyFailure, t0: number, argv: readonly string[]): number {
  const github = process.env.GITHUB_ACTIONS === 'true';
  const said = f.errors.map((e) => {
    const hint = e.hint ? ` (${e.hint})` : e.code === 'usage' ? ' (see --help)' : '';
    return e.message + hint;
  });
  // The lines carry what was given on the command line (a prompt from an issue title): under GitHub Actions
  // they are behind the guard, so `##[...]` in them is no runner command; the annotations come after it.
  process.stderr.write(consoleText(said.map((m) => `rho-cursor: ${oneLine(m)}\n`).join(''), 2));
  // Under GitHub Actions a failure is also an annotation on the job's page, as a run's own errors are.
  if (github) process.stderr.write(said.map(errorAnnotation).join(''));
  const first = f.errors[0]!;
  const ms = Math.round(monotonicMs() - t0);
  process.stdout.write(f.stdout ?? stdoutBeforeRun(f.format, first, ms, github));
  for (const r of earlyReports(argv, process.env, process.cwd(), resultBeforeRun(first, ms))) {
    // A path the errors above already named as unwritable is not tried again.
    if (outputPathErrors([[r.what, r.path]], pathKind).length > 0) continue;
    try {
      // The reports quote the error, which may quote the command line and the key with it.
      const text = redacted(r.text);
      if (isPipe(r.path)) writePipeSync(r.path, text);
      else appendFileSync(r.path, text);
    } catch (e) {
      process.stderr.write(
        consoleText(`rho-cursor: cannot write ${r.what} to ${r.path}: ${oneLine((e as Error).message)}\n`, 2),
      );
    }
  }
  return first.exitCode;
}

// A sessions or doctor command line commander could not parse: in json it is the one object the command writes
// for any failure, so a script reads stdout alike whichever error it met (the format and sessions' --cwd read
// from argv as is).
async function jsonCommandFailure(error: RhoError, argv: readonly string[]): Promise<EarlyFailure> {
  const rest = argv.slice(1);
  if (formatFromArgv(rest) !== 'json') return new EarlyFailure([error], undefined);
  const stdout =
    argv[0] === 'sessions'
      ? (await import('./sessions/command.js')).sessionsErrorJson(
          resolve(optionFromArgv(rest, ['--cwd', '-C']) ?? process.cwd()),
          error,
        )
      : (await import('./doctor/command.js')).doctorErrorJson(error);
  return new EarlyFailure([error], undefined, stdout);
}

const HELP_OR_VERSION = new Set(['commander.helpDisplayed', 'commander.help', 'commander.version']);

/** How bin/rho-cursor loaded the bundle. */
export interface Boot {
  codeCache: CodeCache;
  /** False only while the build writes the code cache: a V8 flag set at run time would make it unusable. */
  tuneV8: boolean;
}

export async function main(given: string[], version: string, boot: Boot): Promise<void> {
  const t0 = monotonicMs();
  // `rho-cursor -p "..."` (the print mode of claude, gemini and Cursor's own CLI) is `run`.
  const argv = fromPeerHabits(given);
  // A terminal closed under the run: exiting must not abort on it (129, not SIGABRT).
  releaseHungUpTerminalsAtExit();
  // Nothing the agent runs can open a debugger into rho-cursor.
  ignoreDebuggerSignal();
  // The key is masked in whatever any command writes (doctor and sessions too, and every error line), not
  // only in a run's output: the agent can put it in a message, its stderr, a title, its version.
  useSecret(process.env.CURSOR_API_KEY);
  // Last resort: a bug must still end in one line and an exit code (the run's exit hook kills the agent).
  process.on('uncaughtException', (e) => {
    const limit = osLimitError(e, 'running');
    const said = limit
      ? `${limit.message} (${limit.hint})`
      : `internal error: ${e instanceof Error ? e.message : String(e)}`;
    process.stderr.write(consoleText(`rho-cursor: ${oneLine(said)}\n`, 2));
    process.exit(1);
  });
  process.stdout.on('error', (e: NodeJS.ErrnoException) => (stdoutFailure ??= e));
  process.stderr.on('error', () => {});
  let code = 0;
  try {
    await program(version, boot, (n) => (code = n)).parseAsync(argv, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) {
      // --help and --version succeed; a bare `rho-cursor` prints the help and is a usage error.
      if (HELP_OR_VERSION.has(e.code)) return exit(e.exitCode === 0 ? 0 : 2);
      const format = argv[0] === 'run' ? formatFromArgv(argv.slice(1)) : undefined;
      const error =
        e.code === 'commander.unknownCommand' ? unknownCommandError(e, argv) : usageFromCommander(e);
      const failure =
        argv[0] === 'sessions' || argv[0] === 'doctor'
          ? await jsonCommandFailure(error, argv)
          : new EarlyFailure([error], format);
      return exit(reportEarly(failure, t0, argv));
    }
    if (e instanceof EarlyFailure) return exit(reportEarly(e, t0, argv));
    const err = toRhoError(e);
    // One style for usage errors whichever command found them: they point at --help.
    const hint = err.hint ?? (err.code === 'usage' ? 'see --help' : undefined);
    // The message may quote the agent (sessions, doctor): inert where GitHub Actions' runner reads it.
    process.stderr.write(
      consoleText(`rho-cursor: ${oneLine(err.message + (hint ? ` (${hint})` : ''))}\n`, 2),
    );
    return exit(err.exitCode);
  }
  return exit(code);
}
