// Builds the SDK-built peer once and runs the built CLI against it with a script; returns the run and the peer's log.
import { build } from 'esbuild';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeAgentDir, REPO_ROOT } from '../helpers/agent-path.js';
import { runCli, startCli, finish, tempDir, type CliOptions, type CliRun } from '../helpers/cli.js';
import type { Script } from './script.js';

export interface PeerLogEntry {
  dir?: 'recv';
  msg?: Record<string, unknown>;
  problems?: string[];
  event?: string;
  method?: string;
  toolCallId?: string;
  result?: unknown;
  error?: { code: number; message: string };
  hang?: boolean;
  /** How the peer was started: its arguments and CURSOR_CONFIG_DIR. */
  started?: { argv: string[]; cursorConfigDir: string | null };
}

let built: Promise<string> | undefined;

// Bundles test/peer/agent.ts (with the SDK) into a temp dir and returns a `cursor-agent` that runs it.
export function peerAgent(): Promise<string> {
  built ??= (async () => {
    const dir = tempDir('rho-peer-');
    const outfile = join(dir, 'agent.cjs');
    // CommonJS: Node starts it ~40 ms sooner than the same bundle as an ES module (about 40 starts a run).
    await build({
      entryPoints: [join(REPO_ROOT, 'test', 'peer', 'agent.ts')],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      logLevel: 'warning',
    });
    return join(await makeAgentDir(outfile), 'cursor-agent');
  })();
  return built;
}

// Writes the script where the peer reads it, and the env that points the peer at it and at its log.
async function peerOptions(script: Script, o: CliOptions): Promise<{ opts: CliOptions; logFile: string }> {
  const dir = tempDir('rho-peer-run-');
  const scriptFile = join(dir, 'script.json');
  const logFile = join(dir, 'peer.log');
  writeFileSync(scriptFile, JSON.stringify(script));
  return {
    opts: {
      ...o,
      agent: o.agent ?? (await peerAgent()),
      env: { RHO_PEER_SCRIPT: scriptFile, RHO_PEER_LOG: logFile, ...o.env },
    },
    logFile,
  };
}

// Reads the peer's log: what it received (with the SDK schema problems of each message) and what it saw.
export function readPeerLog(file: string): PeerLogEntry[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as PeerLogEntry);
}

// One run of the built CLI against the peer playing `script`.
export async function runPeer(
  script: Script,
  args: string[],
  o: CliOptions = {},
): Promise<CliRun & { peer: PeerLogEntry[] }> {
  const { opts, logFile } = await peerOptions(script, o);
  const r = await runCli(args, opts);
  return { ...r, peer: readPeerLog(logFile) };
}

// Starts the CLI against the peer without waiting; `done()` gives the run and the peer's log.
export async function startPeer(script: Script, args: string[], o: CliOptions = {}) {
  const { opts, logFile } = await peerOptions(script, o);
  const started = startCli(args, opts);
  return { started, done: async () => ({ ...(await finish(started, true)), peer: readPeerLog(logFile) }) };
}
