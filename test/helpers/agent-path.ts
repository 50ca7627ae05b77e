// Paths the tests share, and a PATH directory whose `cursor-agent` runs a chosen script.
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BIN = join(REPO_ROOT, 'bin', 'rho-cursor');
export const TOOLS = join(REPO_ROOT, 'tools');
/** The replay agent's `cursor-agent` shim: put TOOLS first on PATH, or pass it as `--agent`. */
export const REPLAY_SHIM = join(TOOLS, 'cursor-agent');
export const REPLAY_AGENT = join(TOOLS, 'replay-agent.mjs');
export const RECORDINGS = join(REPO_ROOT, 'recordings');
export const FIXTURES = join(REPO_ROOT, 'test', 'fixtures');
/** The spike's real Cursor recordings, read in place (never copied into the project). */
export const SHARED_RECORDINGS = resolve(REPO_ROOT, '..', 'shared', 'recordings');
export const hasSharedRecordings = existsSync(SHARED_RECORDINGS);

/** Shell-quotes one word for a /bin/sh script. */
const quote = (word: string): string => `'${word.replaceAll("'", `'\\''`)}'`;

/**
 * Creates a temporary directory holding an executable `cursor-agent` that execs `node <target> "$@"`, and
 * returns it, for the front of PATH (or `join(dir, 'cursor-agent')` as `--agent`). Node is the running one,
 * so the script works whatever PATH the test gives the client.
 */
export async function makeAgentDir(target: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'rho-agent-'));
  const script = join(dir, 'cursor-agent');
  await writeFile(script, `#!/bin/sh\nexec ${quote(process.execPath)} ${quote(resolve(target))} "$@"\n`);
  await chmod(script, 0o755);
  return dir;
}
