// Runs the built bin/rho-cursor as a user would, with a watchdog, an isolated config dir and a replay agent.
import { execa, type ResultPromise } from 'execa';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, RECORDINGS, REPLAY_SHIM } from './agent-path.js';
import { readReplayLog, type ReplayEvent } from './replay-log.js';

export interface CliRun {
  exitCode: number | undefined;
  signal: string | undefined;
  stdout: string;
  stderr: string;
  /** stdout parsed as NDJSON (stream-json runs); throws on a line that is not JSON. */
  events: Array<Record<string, unknown>>;
  /** What the replay agent received and did. */
  log: ReplayEvent[];
  configDir: string;
}

export interface CliOptions {
  /** A recording file name in recordings/, or an absolute path. */
  recording?: string;
  /** The agent executable; the replay shim by default. */
  agent?: string | null;
  env?: Record<string, string | undefined>;
  /** cli-config.json content for the isolated config dir; omitted means no file. */
  cliConfig?: string | object;
  input?: string | Uint8Array;
  cwd?: string;
  watchdogMs?: number;
  /** Another copy of bin/rho-cursor to run (an install laid out differently); the repository's by default. */
  bin?: string;
}

// A fresh temp dir for each run's HOME and Cursor config dir, so no test reads the developer's own config.
export function tempDir(prefix = 'rho-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function startCli(
  args: string[],
  o: CliOptions = {},
): { child: ResultPromise; logFile: string; configDir: string } {
  const home = tempDir();
  const configDir = join(home, 'cursor-config');
  mkdirSync(configDir);
  if (o.cliConfig !== undefined) {
    writeFileSync(
      join(configDir, 'cli-config.json'),
      typeof o.cliConfig === 'string' ? o.cliConfig : JSON.stringify(o.cliConfig),
    );
  }
  // The workspace is a directory of its own: the ledger measures it, and HOME's files are not the agent's.
  const work = join(home, 'work');
  mkdirSync(work);
  const logFile = join(home, 'replay.log');
  const recording = o.recording?.startsWith('/')
    ? o.recording
    : o.recording
      ? join(RECORDINGS, o.recording)
      : undefined;
  const agentArgs = o.agent === null ? [] : ['--agent', o.agent ?? REPLAY_SHIM];
  const child = execa(o.bin ?? BIN, [...args, ...agentArgs], {
    reject: false,
    cwd: o.cwd ?? work,
    input: o.input,
    stdin: o.input === undefined ? 'ignore' : undefined,
    timeout: o.watchdogMs ?? 15_000,
    killSignal: 'SIGKILL',
    env: {
      HOME: home,
      CURSOR_CONFIG_DIR: configDir,
      RHO_REPLAY: recording,
      RHO_REPLAY_LOG: logFile,
      NO_COLOR: '1',
      CI: 'true',
      ...o.env,
    },
    extendEnv: true,
  });
  return { child, logFile, configDir };
}

export function parseNdjson(stdout: string): Array<Record<string, unknown>> {
  return stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

export async function finish(started: ReturnType<typeof startCli>, ndjson: boolean): Promise<CliRun> {
  const r = await started.child;
  const stdout = String(r.stdout ?? '');
  return {
    exitCode: r.exitCode,
    signal: r.signal,
    stdout,
    stderr: String(r.stderr ?? ''),
    events: ndjson ? parseNdjson(stdout) : [],
    log: readReplayLog(started.logFile),
    configDir: started.configDir,
  };
}

// One whole run; stream-json output is parsed into events.
export async function runCli(args: string[], o: CliOptions = {}): Promise<CliRun> {
  return finish(startCli(args, o), args.includes('stream-json'));
}

// Resolves once the run's stdout has shown the text (a readiness marker, never a fixed sleep).
export function waitForStdout(child: ResultPromise, text: string): Promise<void> {
  return new Promise((resolve) => {
    let seen = '';
    child.stdout!.on('data', (d: Buffer) => {
      seen += d.toString();
      if (seen.includes(text)) resolve();
    });
  });
}

// Is a process still alive? Zombies count as gone (see processes.ts).
export { isRunning as alive } from './processes.js';
