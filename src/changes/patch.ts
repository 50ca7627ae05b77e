// --patch: what changed in the worktree since its start, as `git diff --binary`, which applies with `git apply`
// in the user's tree (paths from the repository root, limited to the workspace). It carries every change the
// ledger reports, also a file the agent hid with an ignore rule of its own; what no patch can carry (a
// repository of its own, a path git refuses) is left out and named, never lost with the rest.
// Only the worktree's files decide it. The worktree's git dir is the agent's (its index, config, hooks,
// info/exclude and info/attributes, even the `.git` that names it: the agent can point it at the user's
// repository), so none of it is used: the patch is taken in a git dir made for it here, with an index of its
// own filled from the start's tree (read-tree, then `add -A`), its own object store (the worktree's and the
// user's read as alternates, never written), and the config the worktree was made with.
import { lstatSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { tempRoot } from '../files/temp.js';
import { DIFF_ARGS, type ConfigPair } from './git-env.js';
import { git, gitText, type GitOptions } from './git.js';
import { decodeName, fsPath } from './names.js';
import { removeTree, restoreLinks, WORKTREE_PREFIX, type Worktree } from './worktree.js';

/** The patch, and what the worktree holds that it does not. */
export interface Patch {
  bytes: Buffer;
  /** Paths changed that no patch can carry, relative to the workspace: a folder holding a repository of its
   * own (ending in `/`), a path git refuses (`x/.GIT/y`). */
  leftOut: string[];
  /** What git said of the files it could not add (its `error:` lines), when it said anything. */
  refused: string;
}

/** The paths the ledger found added or modified, relative to the workspace. */
export interface Reported {
  added: readonly string[];
  modified: readonly string[];
}

// Pure: is one of the path's parts `.git`, in any case? git holds no such path (it refuses `.GIT` too).
const hasGitPart = (path: string): boolean => path.split('/').some((p) => p.toLowerCase() === '.git');

// Pure: the folders that hold a repository of their own, from what git lists as untracked (a repository is
// one entry ending in `/`) and the ledger's paths (a `.git`, file or folder, names its folder), from the root.
export function nestedRepos(untracked: readonly string[], reported: readonly string[]): string[] {
  const repos = new Set(untracked.filter((p) => p.endsWith('/')));
  for (const p of reported) {
    const m = /^(.+\/)\.git\/?$/.exec(p);
    if (m) repos.add(m[1]!);
  }
  return [...repos].sort();
}

// Pure: the ledger's paths git must be told to add whatever the ignore rules say (the agent's own
// `.gitignore` hides a file from `add -A`): those git can hold, outside the repositories left out.
export function hiddenCandidates(reported: readonly string[], repos: readonly string[]): string[] {
  return reported.filter((p) => !hasGitPart(p) && !repos.some((r) => p.startsWith(r)));
}

// Pure: git's `error:` lines, at most a few.
const errorLines = (stderr: string): string =>
  stderr
    .split('\n')
    .filter((l) => l.startsWith('error: '))
    .slice(0, 3)
    .join('; ');

// NUL-separated pathspecs for --pathspec-from-file, each as its bytes (names.ts).
const specs = (paths: readonly string[]): Buffer =>
  Buffer.concat(paths.map((p) => Buffer.concat([Buffer.from(fsPath(p)), Buffer.of(0)])));

// `giveUp`: the bound of the run's end (as for the ledger's look): the git at work is ended there, and the
// patch is not taken. `reported`: the ledger's changes, when it measured them.
export async function worktreePatch(
  wt: Worktree,
  reported: Reported | null,
  giveUp?: AbortSignal,
): Promise<Patch> {
  await restoreLinks(wt.relinked ?? []);
  const tmp = mkdtempSync(join(tempRoot(), `${WORKTREE_PREFIX}${process.pid}-patch-`));
  try {
    const gitDir = join(tmp, 'git');
    const format = wt.format ?? 'sha1';
    const ended = (): void => {
      if (giveUp?.aborted) throw new Error(`it was ended ${String(giveUp.reason)}`);
    };
    ended();
    await gitText(tmp, ['init', '--quiet', '--bare', '--template=', `--object-format=${format}`, gitDir]);
    const objects = wt.objects ?? [];
    writeFileSync(join(gitDir, 'objects', 'info', 'alternates'), `${objects.join('\n')}\n`);
    const o = { ...patchEnv(wt, gitDir, join(tmp, 'index')), signal: giveUp };
    await gitText(wt.dir, ['read-tree', wt.base], o).finally(ended);
    // The ledger's paths from the repository root, as git names them.
    const under = relative(wt.dir, wt.cwd);
    const root = (p: string): string => (under === '' ? p : `${under}/${p}`);
    const added = (reported?.added ?? []).map(root);
    const changed = [...added, ...(reported?.modified ?? []).map(root)];
    const repos = nestedRepos(await untracked(wt.dir, o).finally(ended), changed);
    const refused = [await addAll(wt.dir, repos, o).finally(ended)];
    refused.push(await addHidden(wt.dir, hiddenCandidates(changed, repos), o).finally(ended));
    const r = await git(wt.cwd, ['diff', '--cached', ...DIFF_ARGS, wt.base, '--', '.'], o);
    ended();
    if (r.code !== 0) throw new Error(`git diff failed: ${r.stderr}`);
    const carried = await named(wt, o).finally(ended);
    // What the ledger found added that the patch does not create (a name git refuses, say); a folder the
    // ledger did not enter (`x/node_modules/`) is carried when a file in it is.
    const has = (p: string): boolean =>
      p.endsWith('/') ? [...carried].some((c) => c.startsWith(p)) : carried.has(p);
    const missing = added.filter((p) => !has(p) && !repos.some((d) => p.startsWith(d)));
    const inside = (p: string): string | undefined =>
      under === '' ? p : p.startsWith(`${under}/`) ? p.slice(under.length + 1) : undefined;
    const leftOut = [...repos, ...missing].map(inside).filter((p): p is string => p !== undefined);
    return { bytes: r.stdout, leftOut: [...new Set(leftOut)], refused: refused.filter(Boolean).join('; ') };
  } finally {
    removeTree(tmp);
  }
}

// The untracked files git adds (not ignored), and each repository of its own as one entry ending in `/`.
async function untracked(dir: string, o: GitOptions): Promise<string[]> {
  const r = await git(dir, ['ls-files', '--others', '--exclude-standard', '-z'], o);
  if (r.code !== 0) throw new Error(`git ls-files failed: ${r.stderr || `exit ${r.code}`}`);
  return decodeName(r.stdout)
    .split('\0')
    .filter((p) => p !== '');
}

// `git add -A`, the repositories of their own left out: one is no patch (one with no commit fails the whole
// `add`, found by review: nothing of the agent's work was written). A file git cannot add (a name it refuses)
// is passed over, and what git said of it returned.
async function addAll(dir: string, repos: readonly string[], o: GitOptions): Promise<string> {
  const only = repos.length === 0 ? [] : ['.', ...repos.map((r) => `:(exclude,literal)${r}`)];
  const args = ['add', '-A', '--ignore-errors'];
  const r = await git(
    dir,
    only.length === 0 ? args : [...args, '--pathspec-from-file=-', '--pathspec-file-nul'],
    only.length === 0 ? o : { ...o, input: specs(only) },
  );
  if (r.code !== 0 && r.code !== 1) throw new Error(`git add failed: ${r.stderr || `exit ${r.code}`}`);
  return errorLines(r.stderr);
}

// The ledger's paths that are there, added whatever the ignore rules say (`add -f`, literal names): a file the
// agent hid with its own `.gitignore` (found by review: it was in the ledger, not in the patch).
async function addHidden(dir: string, paths: readonly string[], o: GitOptions): Promise<string> {
  const there = paths.filter((p) => {
    try {
      const st = lstatSync(fsPath(join(dir, p.endsWith('/') ? p.slice(0, -1) : p)));
      return p.endsWith('/') ? st.isDirectory() : !st.isDirectory();
    } catch {
      return false;
    }
  });
  if (there.length === 0) return '';
  const r = await git(
    dir,
    ['add', '-f', '--ignore-errors', '--pathspec-from-file=-', '--pathspec-file-nul'],
    {
      ...o,
      vars: { ...o.vars, GIT_LITERAL_PATHSPECS: '1' },
      input: specs(there),
    },
  );
  if (r.code !== 0 && r.code !== 1) throw new Error(`git add failed: ${r.stderr || `exit ${r.code}`}`);
  return errorLines(r.stderr);
}

// The paths the patch changes, from the repository root.
async function named(wt: Worktree, o: GitOptions): Promise<Set<string>> {
  const args = ['diff', '--cached', '--name-only', '-z', '--no-renames', '--no-relative', wt.base, '--', '.'];
  const r = await git(wt.cwd, args, o);
  if (r.code !== 0) throw new Error(`git diff failed: ${r.stderr || `exit ${r.code}`}`);
  return new Set(decodeName(r.stdout).split('\0'));
}

// How the patch's git runs: that git dir, index and work tree; no config file read (not the system's, not the
// global one, which the agent may have changed: the worktree's own config as made is passed instead), and
// the work tree's files as they are: modes kept, names by their case, no excludes file.
function patchEnv(wt: Worktree, gitDir: string, index: string): GitOptions {
  return {
    vars: {
      GIT_DIR: gitDir,
      GIT_WORK_TREE: wt.dir,
      GIT_INDEX_FILE: index,
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_COMMON_DIR: undefined,
      GIT_OBJECT_DIRECTORY: undefined,
      GIT_ALTERNATE_OBJECT_DIRECTORIES: undefined,
    },
    config: [
      ...(wt.config ?? []),
      ['core.bare', 'false'],
      ['core.fileMode', 'true'],
      ['core.ignoreCase', 'false'],
      ['core.excludesFile', ''],
    ] as ConfigPair[],
  };
}
