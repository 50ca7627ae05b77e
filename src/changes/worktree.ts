// --worktree: the agent works in a temporary git repository of its own made from HEAD plus the user's
// uncommitted changes (tracked and untracked, not ignored), so it sees what the user sees while the user's
// working tree, index, stashes, refs and config are never written. The repository borrows the user's objects
// (an alternate, which git only ever reads) and has no remote: a `git stash`, `git branch`, `git config` or
// `git gc` the agent runs there stays there, which a linked worktree (`git worktree add`, sharing refs, the
// stash and the config with the user's repository) would not. Nothing here runs `git stash`, and every git
// command on the user's tree runs with GIT_OPTIONAL_LOCKS=0 (no index refresh written on the side).
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  promises as fsp,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { RhoError } from '../errors.js';
import type { SessionScope } from '../session.js';
import { DIFF_ARGS, type ConfigPair } from './git-env.js';
import { git, gitEnv, gitPlace, gitText } from './git.js';
import { eachLimited } from './marks.js';
import { decodeName, fsPath } from './names.js';
import { leftovers } from '../agent/tree.js';
import { tempRoot } from '../files/temp.js';

export interface Worktree {
  /** The temporary directory holding the worktree. */
  tmp: string;
  /** The worktree's root. */
  dir: string;
  /** The agent's workspace: the worktree's root plus the user's path under the repository root. */
  cwd: string;
  /** The user's repository root. */
  repo: string;
  /** The user's workspace, as the run was given it: where the agent would have worked without --worktree. */
  userCwd: string;
  /** The tree of the worktree's start (HEAD plus the user's changes): what the patch is taken against. */
  base: string;
  /** The settings git had when the worktree was made (the user's system and global config, its includes
   * read): the patch is taken with these alone, whatever the agent wrote into any config since. */
  config?: readonly ConfigPair[];
  /** The object stores the patch reads (the worktree's, then the user's), and their object format. */
  objects?: string[];
  format?: string;
  /** The links made to lead into the worktree rather than the user's tree. */
  relinked?: Relinked[];
  /** Kept when the run ends: --keep-worktree, or a patch that could not be written or left something out. */
  kept?: boolean;
}

/** The temporary directories of worktrees: `<prefix><owner pid>-` (removed by the run that made it, or by a
 * later one once that pid is gone), or `<prefix>kept-` (--keep-worktree: the user removes it). */
export const WORKTREE_PREFIX = 'rho-cursor-worktree-';

// The sessions --continue takes up under --worktree: the user's workspace's, and those of earlier worktrees of
// it, each made at <tmp>/<prefix><owner>-<random>/<repository's name>/<path under its root> and gone since.
// Nothing else tells them apart: a repository elsewhere with the same name and path matches as well.
export function worktreeSessions(wt: Pick<Worktree, 'tmp' | 'cwd' | 'userCwd'>): SessionScope {
  const under = relative(wt.tmp, wt.cwd);
  const base = dirname(wt.tmp);
  // The first part has no separator: it is the whole directory name.
  const stamp = new RegExp(`^${WORKTREE_PREFIX}(?:kept|[0-9]+)-.`);
  return {
    ask: undefined,
    belongs: (cwd) => {
      if (cwd === wt.userCwd) return true;
      const rel = relative(base, cwd);
      const at = rel.indexOf(sep);
      return at > 0 && stamp.test(rel.slice(0, at)) && rel.slice(at + 1) === under;
    },
  };
}

// The same scope from the user's workspace, with no worktree of its own (`rho-cursor sessions --worktree`):
// where a --worktree run from this directory would make its worktree, under the same temporary directory.
export function earlierWorktreeSessions(
  place: { root: string; prefix: string },
  userCwd: string,
): SessionScope {
  const tmp = join(tempRoot(), `${WORKTREE_PREFIX}0-`);
  return worktreeSessions({ tmp, cwd: join(tmp, worktreeName(place.root), place.prefix), userCwd });
}

// The worktree's directory under its temporary one: the repository's name, as the user knows it.
const worktreeName = (root: string): string => basename(root) || 'worktree';

// Makes the worktree; outside a git work tree (or in a repository with no commit) a usage error. `keep`:
// --keep-worktree, whose worktree no later run sweeps away. `signal`: the run's stop. A checkout of a large
// repository takes seconds (or a user's smudge filter for ever): a signal or --timeout meanwhile ends the git
// at work and every step after it, the half-made worktree is removed, and the stop's error is thrown (found
// by review: a SIGINT waited 5 s for a 60,000-file checkout, and --timeout 1s ended the run after 3.7 s).
export async function makeWorktree(userCwd: string, keep = false, signal?: AbortSignal): Promise<Worktree> {
  const place = await gitPlace(userCwd, signal);
  // A git ended by the stop is not "no work tree here".
  signal?.throwIfAborted();
  if (!place)
    throw new RhoError('usage', `option '--worktree' needs a git work tree: ${userCwd} is not in one`);
  if (!place.head)
    throw new RhoError(
      'usage',
      `option '--worktree' needs a commit to start from: ${place.root} has none yet`,
    );
  sweepStaleWorktrees();
  const tmp = mkdtempSync(join(tempRoot(), `${WORKTREE_PREFIX}${keep ? 'kept' : process.pid}-`));
  const dir = join(tmp, worktreeName(place.root));
  const wt: Worktree = {
    tmp,
    dir,
    cwd: join(dir, place.prefix),
    repo: place.root,
    userCwd,
    base: '',
    kept: keep,
  };
  // Each step's git is ended by the stop, and no step starts after it.
  const step = async <T>(p: Promise<T>): Promise<T> => {
    const v = await p;
    signal?.throwIfAborted();
    return v;
  };
  const o = { signal };
  try {
    // A repository of its own that reads the user's objects (and, for a shallow clone such as CI's checkout,
    // knows where history stops), checked out at HEAD. No template: no hooks, of ours or the user's.
    const common =
      place.commonDir ??
      (
        await step(gitText(place.root, ['rev-parse', '--path-format=absolute', '--git-common-dir'], o))
      ).trim();
    // In the user's object format (SHA-1 or SHA-256): the objects it reads are theirs.
    const format =
      (await step(gitText(place.root, ['rev-parse', '--show-object-format'], o))).trim() || 'sha1';
    await step(gitText(tmp, ['init', '--quiet', '--template=', `--object-format=${format}`, dir], o));
    // The objects the start adds (the user's uncommitted and untracked files, its trees) go to a store beside
    // the worktree, not in it: the agent can remove or rewrite its repository's objects, never the start the
    // patch is taken against. The worktree reads that store, and the user's, as alternates.
    const store = join(tmp, 'objects');
    await fsp.mkdir(join(store, 'info'), { recursive: true });
    wt.objects = [store, join(common, 'objects')];
    writeFileSync(join(dir, '.git', 'objects', 'info', 'alternates'), `${wt.objects.join('\n')}\n`);
    const toStore = {
      vars: { GIT_OBJECT_DIRECTORY: store, GIT_ALTERNATE_OBJECT_DIRECTORIES: join(common, 'objects') },
      signal,
    };
    wt.format = format;
    wt.config = frozenConfig((await step(git(dir, ['config', '--list', '-z'], o))).stdout);
    if (existsSync(join(common, 'shallow')))
      copyFileSync(join(common, 'shallow'), join(dir, '.git', 'shallow'));
    await step(gitText(dir, ['checkout', '--quiet', '--detach', place.head], o));
    // With explicit prefixes, context and paths from the root, whatever the user's diff settings say (their
    // diff.noprefix made this patch unappliable: found by review).
    const diff = (await step(git(place.root, ['diff', ...DIFF_ARGS, 'HEAD'], o))).stdout;
    if (diff.length > 0)
      await step(gitText(dir, ['apply', '--binary', '--whitespace=nowarn', '-'], { input: diff, signal }));
    await step(copyUntracked(place.root, dir, signal));
    // The user's folder may be one the worktree lacks (a new empty folder, an ignored one: git copies
    // neither): made, so the agent works where the user is (found by review: its spawn failed for want of a
    // cwd). Made only as folders under the worktree's root, never through a link out of it.
    await step(makeWorkspace(dir, place.prefix));
    // The worktree's own index (never the user's) holds the start, so the patch is what the agent changed.
    await step(gitText(dir, ['add', '-A'], toStore));
    // The start as the user has it (links with their own targets), then the links retargeted: the patch
    // puts those back first, so it says only what the agent did to them.
    wt.base = (await step(gitText(dir, ['write-tree'], toStore))).trim();
    wt.relinked = await step(retargetLinks(dir, realpathSync(place.root), signal));
    return wt;
  } catch (e) {
    removeWorktreeSync(wt);
    // A git ended by the stop failed: the stop is what happened.
    if (signal?.aborted) throw signal.reason;
    if (e instanceof RhoError) throw e;
    throw new RhoError(
      'usage',
      `option '--worktree': could not prepare the worktree: ${(e as Error).message}`,
    );
  }
}

// Pure: where a link in the worktree should point, given where it leads (`real`, resolved from its place in
// the worktree, every link on the way followed): into the user's work tree (`realRoot`) it would let the agent
// write the user's files through it (found by review: `abs-src -> /home/u/repo/src`, or as many `../` as
// reach `/` and then that path), so it leads to the same place in the worktree instead; undefined: kept.
export function intoWorktree(real: string, realRoot: string, dir: string): string | undefined {
  const rel = relative(realRoot, real);
  if (rel.startsWith('..') || isAbsolute(rel)) return undefined;
  return rel === '' ? dir : join(dir, rel);
}

// Where a link leads, every link followed; for one whose target does not exist yet (a write through it would
// create it), where its folder leads, and the name.
async function leadsTo(link: string | Buffer): Promise<string | undefined> {
  try {
    return await fsp.realpath(link);
  } catch {
    if (typeof link !== 'string') return undefined;
    try {
      const at = resolve(dirname(link), await fsp.readlink(link));
      return join(await fsp.realpath(dirname(at)), basename(at));
    } catch {
      return undefined;
    }
  }
}

/** A link made to lead into the worktree: where, and the target it had. */
interface Relinked {
  link: string | Buffer;
  original: Buffer;
  into: string;
}

// Every link the worktree's index holds (checked out, from the user's uncommitted changes, or copied
// untracked), retargeted as above; returns those that were.
async function retargetLinks(dir: string, realRoot: string, signal?: AbortSignal): Promise<Relinked[]> {
  const r = await git(dir, ['ls-files', '-s', '-z'], { signal });
  if (r.code !== 0) throw new Error(`git ls-files failed: ${r.stderr || `exit ${r.code}`}`);
  const links = decodeName(r.stdout)
    .split('\0')
    .filter((e) => e.startsWith('120000 '))
    .map((e) => fsPath(join(dir, e.slice(e.indexOf('\t') + 1))));
  const done: Relinked[] = [];
  await eachLimited(links, 16, async (link) => {
    if (signal?.aborted) return;
    const real = await leadsTo(link);
    const into = real === undefined ? undefined : intoWorktree(real, realRoot, dir);
    if (into === undefined) return;
    const original = await fsp.readlink(link, { encoding: 'buffer' });
    await relink(link, into);
    done.push({ link, original, into });
  });
  return done;
}

// The retargeted links the agent left as they were get their own targets back (after the ledger's look),
// so the patch, taken against the start as the user has it, applies to their tree.
export async function restoreLinks(relinked: Relinked[]): Promise<void> {
  await eachLimited(relinked, 16, async ({ link, original, into }) => {
    const now = await fsp.readlink(link, { encoding: 'buffer' }).catch(() => undefined);
    if (now === undefined || !now.equals(Buffer.from(into))) return;
    await relink(link, original);
  });
}

// The link made again, leading to target.
async function relink(link: string | Buffer, target: string | Buffer): Promise<void> {
  await fsp.unlink(link);
  await fsp.symlink(target, link);
}

// Makes the folders of prefix under dir that are not there; throws when one is there but is no folder of the
// worktree's own (a file, or a link: the user's folder is one in their tree, so the worktree's is too).
async function makeWorkspace(dir: string, prefix: string): Promise<void> {
  let at = dir;
  for (const part of prefix.split('/').filter((p) => p !== '')) {
    at = join(at, part);
    const s = await fsp.lstat(at).catch(() => undefined);
    if (!s) await fsp.mkdir(at);
    else if (!s.isDirectory()) throw new Error(`${at} is not a folder in the worktree`);
  }
}

// Copies the user's untracked, not ignored files into the worktree (links as links).
async function copyUntracked(repo: string, dir: string, signal?: AbortSignal): Promise<void> {
  const r = await git(repo, ['ls-files', '--others', '--exclude-standard', '-z'], { signal });
  if (r.code !== 0) throw new Error(`git ls-files failed: ${r.stderr || `exit ${r.code}`}`);
  // Names as bytes: one that is not UTF-8 is copied too (names.ts).
  const files = decodeName(r.stdout)
    .split('\0')
    .filter((f) => f !== '');
  await eachLimited(files, 16, async (f) => {
    if (signal?.aborted) return;
    const from = fsPath(join(repo, f));
    const to = fsPath(join(dir, f));
    const s = await fsp.lstat(from).catch(() => undefined);
    if (!s || s.isDirectory()) return;
    await fsp.mkdir(fsPath(dirname(join(dir, f))), { recursive: true });
    if (s.isSymbolicLink()) await fsp.symlink(await fsp.readlink(from, { encoding: 'buffer' }), to);
    else if (s.isFile()) await fsp.copyFile(from, to);
  });
}

// Pure: the settings of a `git config --list -z` to pass on as they are (git-env.ts), less the includes (their
// settings are in the list already, and one followed again would read a file as it is now).
export function frozenConfig(listing: Buffer): ConfigPair[] {
  const out: ConfigPair[] = [];
  for (const entry of listing.toString('utf8').split('\0')) {
    if (entry === '') continue;
    const nl = entry.indexOf('\n');
    const key = nl < 0 ? entry : entry.slice(0, nl);
    if (/^include(?:if\..*)?\.path$/i.test(key)) continue;
    out.push([key, nl < 0 ? 'true' : entry.slice(nl + 1)]);
  }
  return out;
}

/** The file in a worktree's temporary directory that marks it kept by its run (the patch could not carry the
 * agent's work): no later run's sweep removes it. */
export const KEPT_MARK = 'rho-cursor-kept';

// Keeps the worktree: nothing the agent did is lost when the patch cannot hold it. Marked for the sweep by a
// file of its own (never through a link the agent put there: created only where nothing is).
export function keepWorktree(wt: Worktree): void {
  wt.kept = true;
  try {
    writeFileSync(join(wt.tmp, KEPT_MARK), '', { flag: 'wx' });
  } catch {
    // something is there already: marked all the same
  }
}

// Removes the worktree: its temporary directory, whatever the agent left in it; a kept one stays.
export function removeWorktree(wt: Worktree): Promise<void> {
  if (!wt.kept) removeTree(wt.tmp);
  return Promise.resolve();
}

// The same, synchronously, for the exit hook.
export function removeWorktreeSync(wt: Worktree): void {
  if (!wt.kept) removeTree(wt.tmp);
}

// Removes a directory tree, also one the agent made unreadable (`chmod 000` on a folder: rm then fails with
// EACCES for anyone but root): the tree's folders are made the owner's to list and change, then it is
// removed again. Links are never followed. Throws what the second try throws.
export function removeTree(path: string): void {
  try {
    rmSync(path, { recursive: true, force: true });
  } catch {
    openFolders(path);
    rmSync(path, { recursive: true, force: true });
  }
}

// Gives the owner rwx on every folder under path (not through links), as far as it can.
function openFolders(path: string): void {
  try {
    if (!lstatSync(path).isDirectory()) return;
    chmodSync(path, 0o700);
    for (const name of readdirSync(path)) openFolders(join(path, name));
  } catch {
    // not ours to open: the second rm says so
  }
}

// Removes the worktrees that runs ended by SIGKILL (or a crash) left behind: a temporary directory whose
// owner pid is gone, the user's own, and git's record of it (pruned in the repository its `.git` file names).
// Kept worktrees (--keep-worktree's, and those a run kept for its patch) and live runs' are never touched.
// Returns what it removed.
export function sweepStaleWorktrees(root = tempRoot()): string[] {
  const done: string[] = [];
  for (const { path: tmp } of leftovers(root, WORKTREE_PREFIX)) {
    if (marked(tmp)) continue;
    try {
      // A linked worktree of an earlier version of rho-cursor is pruned from its repository too.
      const repoGitDirs = readdirSync(tmp).map((d) => commonGitDir(join(tmp, d)));
      removeTree(tmp);
      for (const gitDir of repoGitDirs)
        if (gitDir)
          try {
            execFileSync('git', ['--git-dir', gitDir, 'worktree', 'prune'], {
              env: gitEnv(),
              stdio: 'ignore',
            });
          } catch {
            // git gc prunes it in time
          }
      done.push(tmp);
    } catch {
      // half made, or not ours: left alone
    }
  }
  return done;
}

// Does the temporary directory hold the kept mark (anything at its name)?
function marked(tmp: string): boolean {
  try {
    lstatSync(join(tmp, KEPT_MARK));
    return true;
  } catch {
    return false;
  }
}

// The repository's git dir a worktree belongs to, from its `.git` file (`gitdir: <repo>/.git/worktrees/<n>`
// and that dir's `commondir`); undefined when it cannot be read.
function commonGitDir(worktree: string): string | undefined {
  try {
    const m = /^gitdir: (.+)$/m.exec(readFileSync(join(worktree, '.git'), 'utf8'));
    if (!m) return undefined;
    const own = resolve(worktree, m[1]!.trim());
    const common = readFileSync(join(own, 'commondir'), 'utf8').trim();
    return isAbsolute(common) ? common : resolve(own, common);
  } catch {
    return undefined;
  }
}
