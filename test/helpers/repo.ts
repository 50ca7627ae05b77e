// A user's git repository for the ledger and --worktree tests, and everything about it a run must not touch:
// `git status`, the index's bytes, the stash list, and every file's hash (outside .git).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { finish, startCli, tempDir, type CliOptions, type CliRun } from './cli.js';

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.com',
  GIT_OPTIONAL_LOCKS: '0',
};

// Runs git in the repository and returns its stdout.
export function git(repo: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: repo, env: GIT_ENV, encoding: 'utf8' });
}

/**
 * A git first on PATH whose `subcommand` never ends (a checkout of a huge repository, a `git status` on a slow
 * disk): it writes its pid and sleeps 30 s in its place (with `onceExists`, only once that file exists: the
 * look after the turn, where the agent creates it); any other command is the real git. `path` is the PATH to
 * run the CLI with; `pid()` resolves once that git has started.
 */
export function slowGit(
  subcommand: string,
  onceExists?: string,
): { path: string; pid: () => Promise<number> } {
  const dir = tempDir('rho-slow-git-');
  const pidFile = join(dir, `${subcommand}.pid`);
  const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  const when = onceExists === undefined ? '' : ` && [ -e '${onceExists}' ]`;
  writeFileSync(
    join(dir, 'git'),
    `#!/bin/sh\nfor a in "$@"; do\n  if [ "$a" = ${subcommand} ]${when}; then echo $$ > '${pidFile}'; exec sleep 30; fi\ndone\nexec '${realGit}' "$@"\n`,
    { mode: 0o755 },
  );
  const pid = async (): Promise<number> => {
    while (!existsSync(pidFile) || readFileSync(pidFile, 'utf8').trim() === '')
      await new Promise((resolve) => setTimeout(resolve, 25));
    return Number(readFileSync(pidFile, 'utf8'));
  };
  return { path: `${dir}:${process.env.PATH ?? ''}`, pid };
}

/**
 * Starts the CLI with `slow` first on PATH and, once its slow git has started, sends SIGINT when `sigint`
 * (else a `--timeout` in the arguments ends the run). Resolves with the run, its pid, that git's pid, and the
 * time from the signal (or from that git's start) to the run's end.
 */
export async function stopWhileGitRuns(
  args: string[],
  o: CliOptions & { slow: ReturnType<typeof slowGit>; sigint: boolean },
): Promise<{ r: CliRun; pid: number; gitPid: number; ms: number }> {
  const { slow, sigint, ...cli } = o;
  const s = startCli(args, { ...cli, env: { ...cli.env, PATH: slow.path } });
  const gitPid = await slow.pid();
  const from = Date.now();
  if (sigint) s.child.kill('SIGINT');
  const r = await finish(s, true);
  return { r, pid: s.child.pid!, gitPid, ms: Date.now() - from };
}

// Writes files (path -> text), making their folders.
export function writeFiles(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

// A repository with one commit, one stash, and uncommitted work of every kind: a modified tracked file, a
// staged one, an untracked one, and an ignored one.
export function userRepo(): string {
  const repo = join(tempDir('rho-repo-'), 'repo');
  mkdirSync(repo);
  git(repo, 'init', '-q', '-b', 'main');
  writeFiles(repo, {
    '.gitignore': 'ignored.log\n',
    'README.md': 'readme\n',
    'src/a.ts': 'export const a = 1;\n',
    'src/b.ts': 'export const b = 1;\n',
    'old.md': 'old\n',
    'staged.txt': 'staged\n',
  });
  git(repo, 'add', '.');
  git(repo, 'commit', '-qm', 'start');
  writeFiles(repo, { 'README.md': 'stashed\n' });
  git(repo, 'stash', '-q');
  writeFiles(repo, {
    'README.md': 'readme, edited by the user\n',
    'staged.txt': 'staged by the user\n',
    'untracked.txt': "the user's own\n",
    'ignored.log': 'ignored\n',
  });
  git(repo, 'add', 'staged.txt');
  return repo;
}

// Every file under a directory (outside .git), by path, with the hash of its bytes.
function fileHashes(root: string, rel = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of readdirSync(join(root, rel), { withFileTypes: true })) {
    const path = rel ? `${rel}/${d.name}` : d.name;
    if (d.isDirectory()) {
      if (d.name !== '.git') Object.assign(out, fileHashes(root, path));
    } else
      out[path] = createHash('sha1')
        .update(readFileSync(join(root, path)))
        .digest('hex');
  }
  return out;
}

/** What the user sees of their repository; a run must leave every part of it as it was. */
export interface RepoState {
  status: string;
  index: string;
  stash: string;
  files: Record<string, string>;
  worktrees: string;
  refs: string;
  config: string;
}

export function repoState(repo: string): RepoState {
  return {
    status: git(repo, 'status', '--porcelain', '--untracked-files=all'),
    index: createHash('sha1')
      .update(readFileSync(join(repo, '.git', 'index')))
      .digest('hex'),
    stash: git(repo, 'stash', 'list'),
    files: fileHashes(repo),
    worktrees: git(repo, 'worktree', 'list', '--porcelain'),
    refs: git(repo, 'for-each-ref', '--format=%(refname) %(objectname)'),
    config: createHash('sha1')
      .update(readFileSync(join(repo, '.git', 'config')))
      .digest('hex'),
  };
}

/**
 * An agent's clean filter for every file: a shell command that defines it in the repository's config, names
 * it for `*` in `attributes` (a path in the work tree), then edits `src/a.ts` to `edit`. `marker` is a file
 * outside the repository that the filter creates if any git ever runs it.
 */
export function filterAttack(attributes: string, edit: string): { sh: string; marker: string } {
  const marker = join(tempDir('rho-filter-'), 'ran');
  const sh = [
    `git config filter.evil.clean 'touch ${marker}; cat'`,
    `echo '* filter=evil' > ${attributes}`,
    `echo ${edit} > src/a.ts`,
  ].join(' && ');
  return { sh, marker };
}

// A library repository, and the user's repository (userRepo) with it as the submodule vendor/lib, checked
// out and committed.
export function repoWithSubmodule(): string {
  const lib = join(tempDir('rho-sub-'), 'lib');
  mkdirSync(lib);
  git(lib, 'init', '-q');
  writeFileSync(join(lib, 'lib.c'), 'lib\n');
  git(lib, 'add', '.');
  git(lib, 'commit', '-qm', 'lib');
  const repo = userRepo();
  git(repo, '-c', 'protocol.file.allow=always', 'submodule', '-q', 'add', lib, 'vendor/lib');
  git(repo, 'commit', '-qm', 'sub');
  return repo;
}
