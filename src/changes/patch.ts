// --patch: what changed in the worktree since its start, as `git diff --binary`, which applies with `git apply`
// in the user's tree (paths from the repository root, limited to the workspace). It carries every change the
// ledger reports, also a file the agent hid with an ignore rule of its own; what no patch can carry (a
// repository of its own, a path git refuses) is left out and named, never lost with the rest.
// Only the worktree's files decide it. The worktree's git dir is the agent's (its index, config, hooks,
// info/exclude and info/attributes, even the `.git` that names it: the agent can point it at the user's
// repository), so none of it is used: the patch is taken in a git dir made for it here, with an index of its
// own filled from the start's tree (read-tree, then `add -A`), its own object store (the worktree's and the
// user's read as alternates, never written), and the config the worktree was made with.
import { lstatSync, mkdtempSync, promises as fsp, writeFileSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import { tempRoot } from '../files/temp.js';
import { DIFF_ARGS, type ConfigPair } from './git-env.js';
import { git, gitText, type GitOptions } from './git.js';
import { redactBytes } from '../lifecycle/secrets.js';
import { decodeName, fsPath } from './names.js';
import { removeTree, restoreLinks, WORKTREE_PREFIX, type Worktree } from './worktree.js';

/** The patch, and what the worktree holds that it does not. */
export interface Patch {
  bytes: Buffer;
  /** The key was in it, and is masked: `[redacted]` in its place. */
  redacted: boolean;
  /** Paths changed that no patch can carry, relative to the workspace: a folder holding a repository of its
   * own (ending in `/`), a path git refuses (`x/.GIT/y`). */
  leftOut: string[];
  /** What git said of the files it could not add (its `error:` lines), when it said anything. */
  refused: string;
}

/** The paths the ledger found changed, relative to the workspace. */
export interface Reported {
  added: readonly string[];
  modified: readonly string[];
  deleted: readonly string[];
}

// Pure: is one of the path's parts `.git`, in any case? git holds no such path (it refuses `.GIT` too).
const hasGitPart = (path: string): boolean => path.split('/').some((p) => p.toLowerCase() === '.git');

// Pure: is the path (from the worktree's root) in the worktree's own git dir, or outside the worktree? The
// ledger lists git's control files too (a hook the agent writes there is a change), but they belong to the
// agent's repository, not to the tree the patch is for: no patch carries them, and none is missed.
export const outsideTheTree = (path: string): boolean => {
  const first = posix.normalize(path).split('/')[0];
  return first === '.git' || first === '..';
};

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

// Pure: the ledger's changes (from the root) the patch does not carry, whatever their kind (found by review: a
// change git's attributes undo as it adds, a CRLF rewrite under `text`, was listed and in no patch, with no
// word). A folder the ledger did not enter (`x/node_modules/`) is carried when a file in it is; what is in the
// worktree's git dir is no change of the tree, and what is in a folder left out whole is named by it.
export function missingChanges(
  listed: readonly string[],
  carried: ReadonlySet<string>,
  folders: readonly string[],
): string[] {
  const has = (p: string): boolean =>
    p.endsWith('/') ? [...carried].some((c) => c.startsWith(p)) : carried.has(p);
  const inFolder = (p: string): boolean => folders.some((d) => p.startsWith(d) || `${p}/` === d);
  return [...new Set(listed)].filter((p) => !outsideTheTree(p) && !has(p) && !inFolder(p));
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
// patch is not taken. `reported`: the ledger's changes, when it measured them. `key`: the forms of the key,
// never written into the patch (secrets.ts).
export async function worktreePatch(
  wt: Worktree,
  reported: Reported | null,
  giveUp?: AbortSignal,
  key: readonly string[] = [],
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
    const changed = [...(reported?.added ?? []), ...(reported?.modified ?? [])].map(root);
    const repos = nestedRepos(await untracked(wt.dir, o).finally(ended), changed);
    // A submodule is never checked out in the worktree: whatever is in its folder is the agent's, and no
    // patch carries it (found by review: a file written there went with the worktree, named nowhere). The
    // ledger lists such files (it walks a submodule folder that is not checked out); git refuses to add them
    // (`Pathspec … is in submodule`), and would fail the whole patch: they are named instead.
    const subs = await filledSubmodules(wt, o).finally(ended);
    const inSub = (p: string): boolean => subs.some((s) => p.startsWith(s));
    const refused = [await addAll(wt.dir, repos, o).finally(ended)];
    const hidden = hiddenCandidates(
      changed.filter((p) => !inSub(p)),
      repos,
    );
    refused.push(await addHidden(wt.dir, hidden, o).finally(ended));
    const { bytes, redacted } = await maskedDiff(wt, o, key, ended);
    const carried = await named(wt, o).finally(ended);
    const folders = [...repos, ...subs];
    const listed = [...changed, ...(reported?.deleted ?? []).map(root)];
    const leftOut = [...folders, ...missingChanges(listed, carried, folders)]
      .map((p) => (under === '' ? p : p.startsWith(`${under}/`) ? p.slice(under.length + 1) : undefined))
      .filter((p): p is string => p !== undefined);
    return { bytes, redacted, leftOut: [...new Set(leftOut)], refused: refused.filter(Boolean).join('; ') };
  } finally {
    removeTree(tmp);
  }
}

// The diff of the index against the start, the key masked (found by review: an agent that wrote the key into
// a file's content or name got it into the patch). Where it is in what the agent wrote, the files holding it
// are put in the index with it masked, so their hunks are whole and apply (a binary file's hunk is deflated
// and encoded: masking the patch's bytes alone would leave it there); then whatever still holds it (a name, a
// line of the start's) is masked in the patch's bytes.
async function maskedDiff(
  wt: Worktree,
  o: GitOptions,
  key: readonly string[],
  ended: () => void,
): Promise<{ bytes: Buffer; redacted: boolean }> {
  const diff = async (): Promise<Buffer> => {
    const r = await git(wt.cwd, ['diff', '--cached', ...DIFF_ARGS, wt.base, '--', '.'], o);
    ended();
    if (r.code !== 0) throw new Error(`git diff failed: ${r.stderr}`);
    return r.stdout;
  };
  let bytes = await diff();
  if (key.length === 0) return { bytes, redacted: false };
  const holds = key.some((f) => bytes.includes(f)) || bytes.includes('\nGIT binary patch\n');
  const blobs = holds && (await maskBlobs(wt, o, key).finally(ended));
  if (blobs) bytes = await diff();
  const masked = redactBytes(bytes, key);
  return { bytes: masked ?? bytes, redacted: blobs || masked !== undefined };
}

// Every file the patch adds or changes whose content holds the key, put in the index with the key masked;
// says whether there was one.
async function maskBlobs(wt: Worktree, o: GitOptions, key: readonly string[]): Promise<boolean> {
  const args = ['diff', '--cached', '--raw', '-z', '--no-renames', '--no-abbrev', '--no-relative', wt.base];
  const raw = await git(wt.cwd, [...args, '--', '.'], o);
  if (raw.code !== 0) throw new Error(`git diff failed: ${raw.stderr || `exit ${raw.code}`}`);
  const files = newSides(raw.stdout);
  if (files.length === 0) return false;
  const batch = await git(wt.dir, ['cat-file', '--batch'], {
    ...o,
    input: Buffer.from(files.map((f) => `${f.id}\n`).join('')),
  });
  if (batch.code !== 0) throw new Error(`git cat-file failed: ${batch.stderr || `exit ${batch.code}`}`);
  const contents = batchContents(batch.stdout);
  const entries: Buffer[] = [];
  for (const [i, f] of files.entries()) {
    const masked = contents[i] ? redactBytes(contents[i], key) : undefined;
    if (!masked) continue;
    const id = (
      await gitText(wt.dir, ['hash-object', '-w', '--no-filters', '--stdin'], { ...o, input: masked })
    ).trim();
    entries.push(Buffer.concat([Buffer.from(`${f.mode} ${id}\t`), f.path, Buffer.of(0)]));
  }
  if (entries.length === 0) return false;
  await gitText(wt.dir, ['update-index', '-z', '--index-info'], { ...o, input: Buffer.concat(entries) });
  return true;
}

// Pure: the new side of each file a `git diff --raw -z --no-abbrev` adds or changes (not a submodule): its
// mode, its blob id and its path from the root, as bytes.
export function newSides(raw: Buffer): Array<{ mode: string; id: string; path: Buffer }> {
  const out: Array<{ mode: string; id: string; path: Buffer }> = [];
  let at = 0;
  while (at < raw.length) {
    const metaEnd = raw.indexOf(0, at);
    const pathEnd = metaEnd < 0 ? -1 : raw.indexOf(0, metaEnd + 1);
    if (pathEnd < 0) break;
    const [, mode, , id, status] = raw.toString('latin1', at, metaEnd).split(' ');
    if (mode && id && status && status !== 'D' && mode !== '160000')
      out.push({ mode, id, path: raw.subarray(metaEnd + 1, pathEnd) });
    at = pathEnd + 1;
  }
  return out;
}

// Pure: the contents of a `git cat-file --batch` answer, in the order asked (undefined for one missing).
export function batchContents(out: Buffer): Array<Buffer | undefined> {
  const contents: Array<Buffer | undefined> = [];
  let at = 0;
  while (at < out.length) {
    const nl = out.indexOf(0x0a, at);
    if (nl < 0) break;
    const size = /^\S+ \S+ (\d+)$/.exec(out.toString('latin1', at, nl));
    if (!size) {
      contents.push(undefined);
      at = nl + 1;
      continue;
    }
    const end = nl + 1 + Number(size[1]);
    contents.push(out.subarray(nl + 1, end));
    at = end + 1;
  }
  return contents;
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

// The start's submodules in the workspace whose folders in the worktree hold anything, from the root, each
// ending in `/`.
async function filledSubmodules(wt: Worktree, o: GitOptions): Promise<string[]> {
  const r = await git(wt.cwd, ['ls-tree', '-r', '-z', '--full-name', wt.base, '--', '.'], o);
  if (r.code !== 0) throw new Error(`git ls-tree failed: ${r.stderr || `exit ${r.code}`}`);
  const subs = decodeName(r.stdout)
    .split('\0')
    .filter((e) => e.startsWith('160000 '))
    .map((e) => e.slice(e.indexOf('\t') + 1));
  const filled: string[] = [];
  for (const sub of subs) {
    const names = await fsp.readdir(fsPath(join(wt.dir, sub))).catch(() => []);
    if (names.length > 0) filled.push(`${sub}/`);
  }
  return filled;
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
