// The few git commands the ledger and --worktree run, and the pure parse of `git status --porcelain -z`.
import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The longest one git command may take before it is ended (and counts as failed). */
const GIT_TIMEOUT_MS = 60_000;

/** What one git command gave back; never throws for a non-zero exit (the caller decides). */
export interface GitResult {
  code: number;
  stdout: Buffer;
  stderr: string;
}

// An environment in which git never writes the user's index on the side (status refreshes it otherwise)
// and never asks on the terminal.
export function gitEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...env, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' };
}

// Runs git in a directory; a missing git is a result with code 127, never a throw.
export function git(cwd: string, args: string[], input?: Buffer): Promise<GitResult> {
  return new Promise((resolve) => {
    const child = execFile(
      'git',
      args,
      // Bounded: a git that hangs (a network filesystem, say) must not hold the run's end for ever.
      { cwd, env: gitEnv(), encoding: 'buffer', maxBuffer: 1024 * 1024 * 1024, timeout: GIT_TIMEOUT_MS },
      (err, stdout, stderr) => {
        const code =
          err === null ? 0 : typeof (err as { code?: unknown }).code === 'number' ? Number(err.code) : 127;
        resolve({ code, stdout: stdout ?? Buffer.alloc(0), stderr: String(stderr ?? '').trim() });
      },
    );
    if (input) child.stdin?.end(input);
  });
}

// Runs git and returns its stdout as text, or throws an Error naming the command and git's own message.
export async function gitText(cwd: string, args: string[], input?: Buffer): Promise<string> {
  const r = await git(cwd, args, input);
  if (r.code !== 0) throw new Error(`git ${args[0]} failed: ${r.stderr || `exit ${r.code}`}`);
  return r.stdout.toString('utf8');
}

/** One entry of `git status --porcelain -z`: its two status letters and its path from the repository root. */
export interface StatusEntry {
  x: string;
  y: string;
  path: string;
  /** A rename's or copy's old path (without --no-renames). */
  from?: string;
}

// Pure: splits `git status --porcelain -z` output ("XY path\0", a rename "XY new\0old\0") into entries.
export function parseStatus(out: string): StatusEntry[] {
  const fields = out.split('\0');
  const entries: StatusEntry[] = [];
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    if (f.length < 4) continue;
    const entry: StatusEntry = { x: f[0]!, y: f[1]!, path: f.slice(3) };
    if (entry.x === 'R' || entry.x === 'C') entry.from = fields[++i];
    entries.push(entry);
  }
  return entries;
}

/** Where a directory sits in git: the repository's root, the directory's path under it, and HEAD. */
export interface GitPlace {
  root: string;
  /** The directory's path from the root, ending with `/`, or '' at the root. */
  prefix: string;
  /** HEAD's commit, or null in a repository with no commit yet. */
  head: string | null;
}

// Could git find a repository from this directory? Not when no `.git` is in it or above it and nothing in
// the environment points git elsewhere: then no git process is started (~5-10 ms of a start-up each run).
export function mayBeInGit(cwd: string, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.GIT_DIR !== undefined || env.GIT_WORK_TREE !== undefined) return true;
  for (let dir = cwd; ; dir = dirname(dir)) {
    try {
      if (statSync(join(dir, '.git'), { throwIfNoEntry: false }) !== undefined) return true;
    } catch {
      return true; // cannot tell (a directory that cannot be searched): git decides
    }
    if (dirname(dir) === dir) return false;
  }
}

// Is the directory in a git work tree, and where? undefined outside one (or without git).
export async function gitPlace(cwd: string): Promise<GitPlace | undefined> {
  if (!mayBeInGit(cwd)) return undefined;
  const r = await git(cwd, ['rev-parse', '--is-inside-work-tree', '--show-toplevel', '--show-prefix']);
  if (r.code !== 0) return undefined;
  const [inside, root, prefix] = r.stdout.toString('utf8').split('\n');
  if (inside !== 'true' || !root) return undefined;
  return { root, prefix: prefix ?? '', head: await gitHead(cwd) };
}

// HEAD's commit id, or null when the repository has none yet.
export async function gitHead(cwd: string): Promise<string | null> {
  const r = await git(cwd, ['rev-parse', '-q', '--verify', 'HEAD^{commit}']);
  return r.code === 0 ? r.stdout.toString('utf8').trim() || null : null;
}
