// The ledger's two looks at the workspace: before the prompt (a snapshot) and after the turn (what changed).
// In a git work tree, what `git status` lists (untracked files included); outside git, a capped walk. The
// snapshot the prompt waits for is stats only; the hashes are taken while the turn runs. The comparison
// reads only what may have changed: stats first, a hash only where they differ.
import {
  copyFileSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { classify, type Change, type Was } from './compare.js';
import {
  armGit,
  filterCommands,
  configSeen,
  excludesPath,
  filterOverrides,
  gitDirConfigs,
  git,
  moduleGitDirs,
  gitRoot,
  statusRecords,
  type ArmedGit,
  type GitPlace,
  type GitOptions,
  type GitResult,
} from './git.js';
import {
  addHash,
  eachLimited,
  HashBudget,
  isUnmeasured,
  markOfSync,
  marksOf,
  sameContent,
  sameMark,
  type FileMark,
  type Unmeasured,
} from './marks.js';
import { decodeName } from './names.js';
import { walkFiles } from './walk.js';
import type { ConfigPair, GitEnvOptions } from './git-env.js';
import { tempRoot } from '../files/temp.js';
import { leftovers } from '../agent/tree.js';

/** At most this many files are looked at (walked outside git, listed by git status in it). */
export const MAX_FILES = 20_000;
/** At most this many bytes are hashed for one snapshot; past it, files are compared by their stat. */
export const MAX_HASH_BYTES = 64 * 1024 * 1024;
/** Files hashed at once during the turn (in the background). */
const HASH_CONCURRENCY = 4;

export interface Snapshot {
  root: string;
  /** Where the workspace sits in git; undefined outside a work tree (a walk). */
  git: GitPlace | undefined;
  /** Each file looked at, relative to the workspace, and its mark (null: listed by git, but absent); a folder a
   * walk did not enter ends in `/`, and its mark says only that it is there. */
  files: Map<string, FileMark | null>;
  /** A cap (files or hashed bytes) was reached: changes past it may go unseen. */
  truncated: boolean;
  /** The listing itself stopped at a cap (not the hashing): a path found after the turn may have been there. */
  cut: boolean;
  /** In git, past the files cap: the paths git listed that were not looked at (what they were is unknown). */
  beyond?: ReadonlySet<string>;
  /** The folders that could not be read (permission denied): a new one after the turn hides what is in it. */
  unreadable: ReadonlySet<string>;
  /** The folders that could not be read for another reason (a path longer than the system takes), with the
   * error's code; and the files listed whose stat could not be taken (those are not in `files`): a new such
   * folder, or any such file after the turn, is a look that could not see all of the workspace. */
  unmeasured: { folders: ReadonlySet<string>; files: ReadonlySet<string> };
  /** Starts hashing the files in the background (once the prompt is sent: the turn is the idle time). */
  startHashing(): void;
  /** Stops the background hashing and resolves once it has stopped. */
  stopHashing(): Promise<void>;
  /** In git: the second look's `git status`, forked ahead of need (armGit); undefined outside git. */
  nextLook: ArmedGit | undefined;
  /** In git: the filter commands before the turn, and the marks of the config files git reads. */
  config?: { filters: ReadonlyMap<string, string>; marks: Map<string, FileMark | null | Unmeasured> };
  /** In git: how the ledger's git runs (its private index, the settings pinned as the snapshot saw them). */
  view?: GitView;
  /** In git: the ignored entries git listed (files, and folders ending in `/`), workspace-relative. */
  ignored?: ReadonlySet<string>;
  /** In git: the submodules git listed as changed, with their state (`.M S.M.`). */
  submodules?: ReadonlyMap<string, string>;
  /** In git: the submodule folders that were not checked out (no `.git` in them), ending in `/`: git lists
   * nothing in one, so both looks walk it. */
  unpopulated?: readonly string[];
  /** Removes the snapshot's private files (its copy of the index); the ledger calls it once done. */
  dispose(): void;
}

/** How the ledger's own git looks at the repository, the same before and after the turn. */
export interface GitView {
  /** The private directory holding the copy of the index and of the excludes file. */
  dir: string;
  env: GitOptions;
  /** The real index's mark at the snapshot: when it changed, the agent's staging is looked at too. */
  index?: { path: string; mark: FileMark | null | Unmeasured };
  /** The git dir the snapshot found, and its identity (device and inode): git follows GIT_DIR through a link
   * or a `gitdir:` file, so the agent could put another repository's in its place. */
  gitDir?: { path: string; id: string };
}

// The identity of a real directory (not a link to one), or undefined.
function dirId(path: string): string | undefined {
  try {
    const st = lstatSync(path);
    return st.isDirectory() ? `${st.dev}:${st.ino}` : undefined;
  } catch {
    return undefined;
  }
}

/** One changed path and how it changed. */
export interface Changed {
  path: string;
  change: Change;
}

// The workspace before the prompt: its stats now, its hashes while the turn runs (startHashing).
export async function takeSnapshot(root: string, stop?: AbortSignal): Promise<Snapshot> {
  // Each git here is ended by the run's stop, and its empty answer never read as "not in git".
  const found = await gitRoot(root, stop);
  stop?.throwIfAborted();
  const seen = found ? await configSeen(root, found, stop) : undefined;
  stop?.throwIfAborted();
  const view = found && seen ? makeView(found, seen) : undefined;
  try {
    return await snapshotWith(root, found, seen, view, stop);
  } catch (e) {
    if (view) removeView(view);
    throw e;
  }
}

async function snapshotWith(
  root: string,
  found: Omit<GitPlace, 'head'> | undefined,
  seen: Awaited<ReturnType<typeof configSeen>> | undefined,
  view: GitView | undefined,
  stop: AbortSignal | undefined,
): Promise<Snapshot> {
  // The listing of a large repository (or on a slow disk) takes as long as git needs: the run's stop ends it
  // (found by review: a SIGINT waited the whole `git status`, up to its 60 s bound). Only here, before the
  // prompt: the look after the turn runs however the turn ended.
  const listing = view ? { ...view.env, signal: stop } : undefined;
  const [status, index] =
    found && listing
      ? await Promise.all([
          git(root, statusArgs(), { ...listing, maxBytes: STATUS_MAX_BYTES }),
          indexList(root, found.prefix, listing),
        ])
      : [undefined, undefined];
  stop?.throwIfAborted();
  const flagged = index?.flagged ?? [];
  const unpopulated = index ? notCheckedOut(root, index.gitlinks) : [];
  const listed =
    found && status
      ? await withNested(root, await readStatus(status, found.prefix, stop), unpopulated)
      : undefined;
  // A workspace git does not look into (a folder the repository ignores: `scratch/`, or everything in a
  // dotfiles repository in $HOME; a submodule's folder not checked out) is one git lists nothing in, not even
  // a new file: it is walked, as one outside git is (found by review).
  if (view && (listed?.ignoredWhole || index?.inSubmodule)) {
    removeView(view);
    return snapshotWith(root, undefined, undefined, undefined, stop);
  }
  const place: GitPlace | undefined = found && listed ? { ...found, head: listed.head } : undefined;
  const walked = place ? undefined : await walkFiles(root, MAX_FILES, undefined, stop);
  // In git, also the files in the git dir that decide what git runs and lists: an agent's hook, a config
  // that names a command or moves the work tree, an exclude or attributes file that hides a change. And the
  // tracked files git is told not to look at (assume-unchanged, skip-worktree): looked at here, as a walk does.
  // Git's control files and the flagged ones first: few, and never cut by the cap (a control file missing
  // from the snapshot would read as one the agent added).
  const paths = listed
    ? [...new Set([...gitControls(root, place!), ...flagged, ...listed.entries.keys()])]
    : walked!.files;
  const files = new Map<string, FileMark | null>();
  const unmeasuredFiles = new Set<string>();
  for (const [p, m] of await marksOf(root, paths.slice(0, MAX_FILES), stop))
    if (isUnmeasured(m)) unmeasuredFiles.add(p);
    else files.set(p, m);
  const budget = new HashBudget(MAX_HASH_BYTES);
  let stopped = false;
  let started = false;
  let hashing: Promise<void> = Promise.resolve();
  const snapshot: Snapshot = {
    root,
    git: place,
    nextLook:
      place && view ? armGit(root, statusArgs(), { ...view.env, maxBytes: STATUS_MAX_BYTES }) : undefined,
    ...(seen ? { config: { filters: seen.filters, marks: await marksOf('/', seen.files) } } : {}),
    ...(view ? { view } : {}),
    // A status cut before its ignored entries cannot tell a newly ignored file after the turn: none is looked
    // for (truncated says more may have changed).
    ...(listed
      ? { ...(listed.cut ? {} : { ignored: listed.ignored }), submodules: listed.submodules, unpopulated }
      : {}),
    files,
    truncated: (walked?.truncated ?? listed?.truncated ?? false) || paths.length > MAX_FILES,
    cut: (walked?.truncated ?? listed?.truncated ?? false) || paths.length > MAX_FILES,
    ...(listed && paths.length > MAX_FILES ? { beyond: new Set(paths.slice(MAX_FILES)) } : {}),
    unreadable: new Set(walked?.unreadable ?? listed?.unreadable ?? []),
    unmeasured: {
      folders: new Set(walked?.unmeasured ?? listed?.unmeasured ?? []),
      files: unmeasuredFiles,
    },
    startHashing: () => {
      // Once: a retry's prompt (--retries) waits for the same snapshot.
      if (started) return;
      started = true;
      hashing = eachLimited([...files], HASH_CONCURRENCY, async ([p, m]) => {
        if (m && !stopped) await addHash(join(root, p), m, budget);
      });
    },
    stopHashing: async () => {
      stopped = true;
      await hashing;
      // Hashing stopped at the byte cap: past it, files are compared by their stat alone.
      if (budget.over) snapshot.truncated = true;
    },
    dispose: () => {
      snapshot.nextLook?.disarm();
      if (view) removeView(view);
    },
  };
  return snapshot;
}

// The ledger's view of the repository, made at the snapshot: a private copy of the index (the real one is
// the agent's to change: an entry it marks assume-unchanged or skip-worktree, or whose stat it forges, would
// hide a change from `git status`; the copy holds what the index held before the turn), a private copy of the
// excludes file (the agent can append to the user's ~/.config/git/ignore), the git dir and work tree the
// snapshot found, and the settings that decide what git calls unchanged pinned as the snapshot saw them.
function makeView(found: Omit<GitPlace, 'head'>, seen: { values: ReadonlyMap<string, string> }): GitView {
  // Those a run ended by SIGKILL left are removed first (their pid is gone).
  for (const { path } of leftovers(tempRoot(), LEDGER_PREFIX)) rmSync(path, { recursive: true, force: true });
  const dir = mkdtempSync(join(tempRoot(), `${LEDGER_PREFIX}${process.pid}-`));
  views.add(dir);
  const index = join(dir, 'index');
  let indexMark: GitView['index'];
  if (found.index) {
    indexMark = { path: found.index, mark: markOfSync(found.index) };
    try {
      copyFileSync(found.index, index);
      // Its own time kept: git tells a racily clean entry by comparing it with the index's mtime.
      const st = statSync(found.index);
      utimesSync(index, st.atime, st.mtime);
    } catch {
      // no index yet: an empty one
    }
  }
  const excludes = join(dir, 'exclude');
  writeFileSync(excludes, readSmall(excludesPath(seen.values, process.env)));
  const vars: Record<string, string> = { GIT_INDEX_FILE: index, GIT_WORK_TREE: found.root };
  if (found.gitDir) vars.GIT_DIR = found.gitDir;
  const id = found.gitDir ? dirId(found.gitDir) : undefined;
  return {
    dir,
    env: { vars, config: pinnedConfig(seen.values, excludes) },
    ...(indexMark ? { index: indexMark } : {}),
    ...(found.gitDir && id ? { gitDir: { path: found.gitDir, id } } : {}),
  };
}

/** The private directories of the ledger's views: `<prefix><pid>-`. */
export const LEDGER_PREFIX = 'rho-cursor-ledger-';
const views = new Set<string>();
// Removed however the run ends (the exit hook runs synchronously).
process.once('exit', () => {
  for (const d of views) rmSync(d, { recursive: true, force: true });
});

function removeView(view: GitView): void {
  views.delete(view.dir);
  rmSync(view.dir, { recursive: true, force: true });
}

// A small regular file's content ('' when absent, unreadable or anything else: a FIFO is never opened); at
// most 1 MiB of it.
function readSmall(path: string): Buffer | string {
  if (!path) return '';
  try {
    if (!statSync(path).isFile()) return '';
    return readFileSync(path).subarray(0, 1024 * 1024);
  } catch {
    return '';
  }
}

// Pure: the settings the ledger's `git status` runs with, the same before and after the turn whatever any
// config says by then (the agent can write the repository's and the user's global config): modes count
// (core.fileMode; a repository set to ignore them would hide a chmod), every stat field and ctime count
// (core.checkStat=minimal or core.trustctime=false hide a same-size rewrite whose mtime was put back), names
// by case as the snapshot saw it (core.ignoreCase=true hides `SRC/main.c` beside `src/main.c`), end-of-line
// conversion and links as the snapshot saw them, and the excludes file's copy.
export function pinnedConfig(values: ReadonlyMap<string, string>, excludes: string): ConfigPair[] {
  return [
    ['core.fileMode', 'true'],
    ['core.checkStat', 'default'],
    ['core.trustctime', 'true'],
    ['core.ignoreCase', values.get('core.ignorecase') ?? 'false'],
    ['core.autocrlf', values.get('core.autocrlf') ?? 'false'],
    ['core.symlinks', values.get('core.symlinks') ?? 'true'],
    ['core.excludesFile', excludes],
  ];
}

/** What the index lists under the workspace (`git ls-files -v -s -z`), workspace-relative. */
export interface IndexList {
  /** The paths whose tag says git does not look at the file (lower case: assume-unchanged; `S`:
   * skip-worktree). */
  flagged: string[];
  /** The submodules (gitlinks, mode 160000). */
  gitlinks: string[];
  /** The workspace is in a submodule's folder (with git's root above it, one that is not checked out). */
  inSubmodule: boolean;
}

// Pure: reads `git ls-files -v -s -z` (`H 100644 <id> 0\tpath`; without -s, `H path`).
export function parseIndexList(out: string, prefix: string): IndexList {
  const flagged: string[] = [];
  const gitlinks = new Set<string>();
  let inSubmodule = false;
  for (const e of out.split('\0')) {
    if (e.length < 3 || e[1] !== ' ') continue;
    const tab = e.indexOf('\t');
    const path = tab < 0 ? e.slice(2) : e.slice(tab + 1);
    const gitlink = tab >= 0 && e.startsWith('160000 ', 2);
    if (gitlink && prefix.startsWith(`${path}/`)) inSubmodule = true;
    if (!path.startsWith(prefix)) continue;
    const rel = path.slice(prefix.length);
    const tag = e[0]!;
    if (tag === 'S' || (tag >= 'a' && tag <= 'z')) flagged.push(rel);
    if (gitlink) gitlinks.add(rel);
  }
  return { flagged, gitlinks: [...gitlinks], inSubmodule };
}

// Pure: the flagged paths alone.
export const parseFlagged = (out: string, prefix: string): string[] => parseIndexList(out, prefix).flagged;

// The index's list, from the ledger's copy of it; paths from the top (`--full-name`: without it they are
// relative to the workspace, and none started with its prefix below the top, found while fixing the review).
async function indexList(root: string, prefix: string, env: GitOptions): Promise<IndexList> {
  const r = await git(root, ['ls-files', '-v', '-s', '-z', '--full-name', '--', '.'], env);
  if (r.code !== 0) throw new Error(`git ls-files failed: ${r.stderr || `exit ${r.code}`}`);
  return parseIndexList(decodeName(r.stdout), prefix);
}

// The submodule folders with no `.git` in them (a clone without --recursive, as CI's checkouts make by
// default: the folder is there, empty), ending in `/`. git lists nothing in such a folder, not even a file
// the agent writes there, so they are walked as folders outside git are.
function notCheckedOut(root: string, gitlinks: readonly string[]): string[] {
  return gitlinks
    .filter((p) => {
      try {
        lstatSync(join(root, p, '.git'));
        return false;
      } catch {
        return true;
      }
    })
    .map((p) => `${p}/`);
}

/** What one `git status` said: the listed paths (workspace-relative, with their letters) and HEAD. */
interface GitStatus {
  entries: Map<string, string>;
  head: string | null;
  /** Untracked directories git lists whole and never looks into (a repository of their own), ending in `/`. */
  nested: string[];
  /** The walk of the nested ones stopped at a cap. */
  truncated: boolean;
  /** The folders git (or the walk of a nested one) could not open. */
  unreadable: string[];
  /** The folders it could not open for another reason than permission (unopened). */
  unmeasured: string[];
  /** The ignored files, and folders (ending in `/`) git lists whole. */
  ignored: Set<string>;
  /** The status was cut at STATUS_MAX_BYTES: the lists above are its first part (the ignored ones come last
   * in it, so they may be missing whole). */
  cut?: boolean;
  /** Submodules git lists as changed, with their state. */
  submodules: Map<string, string>;
  /** The workspace itself is ignored (git lists it, or a folder above it, as one ignored entry). */
  ignoredWhole: boolean;
}

// `git status`: untracked files listed one by one, the ignored ones too (a folder an ignore rule names is one
// entry, never walked: `node_modules/`), submodules looked into (git asks each checked-out one for its own
// status: none, no cost), and HEAD from the same process (`--branch`; no ahead/behind count, which reads
// history).
const STATUS_ARGS = [
  'status',
  '--porcelain=v2',
  '--branch',
  '--no-ahead-behind',
  '-z',
  '--untracked-files=all',
  '--ignored=matching',
  '--no-renames',
  '--ignore-submodules=none',
  '--',
  '.',
];

// The status, with the view's index, git dir, work tree and settings (GitView).
const statusArgs = (): string[] => [...STATUS_ARGS];

/** At most this much of a `git status` is read (about 200,000 entries, ten times the files looked at): past
 * it git is ended and the snapshot is `truncated`. Every entry git lists is held while it is read (found by
 * review: an agent that makes 300,000 files took the run to 259 MB, and a few million would end it out of
 * memory, with no result); what is past the cap may have changed, and `truncated` says so. */
export const STATUS_MAX_BYTES = 8 * 1024 * 1024;

/** Entries of a status read between two turns of the event loop (~10 ms of work on a busy machine). */
export const STATUS_BATCH = 10_000;

/** At most this many hooks are looked at in each git dir. */
const MAX_HOOKS = 256;

// The git dir's files that decide what git runs and what it lists, relative to the workspace: the configs,
// the exclude and attributes files, and every hook (present or not: one the agent adds is a change too;
// git's `.sample` files are not hooks). The same of each submodule's git dir (`.git/modules/<name>`): a hook
// there runs in the submodule, and a config there is read by every git command in it (an fsmonitor command
// runs at the user's next `git status`).
function gitControls(root: string, place: Pick<GitPlace, 'gitDir' | 'commonDir'>): string[] {
  const common = place.commonDir ?? place.gitDir;
  if (!common) return [];
  const abs = [
    ...gitDirConfigs(place),
    ...[common, ...moduleGitDirs(place)].flatMap((d) => [
      join(d, 'info', 'exclude'),
      join(d, 'info', 'attributes'),
      ...hooksIn(d),
    ]),
  ];
  return [...new Set(abs.map((a) => relative(root, a)))];
}

// The hooks of one git dir (at most MAX_HOOKS, in name order), absolute.
function hooksIn(gitDir: string): string[] {
  const hooks = join(gitDir, 'hooks');
  try {
    // git never runs a `.sample`: renamed to what git runs, it is a new hook, and listed as one.
    return readdirSync(hooks)
      .filter((n) => !n.endsWith('.sample'))
      .sort()
      .slice(0, MAX_HOOKS)
      .map((n) => join(hooks, n));
  } catch {
    return []; // no hooks folder
  }
}

// Pure: the folders git says it could not open (`warning: could not open directory 'locked/': Permission
// denied`): unreadable, or, for any other reason, unmeasured (with it). git cuts its message at about 4 KiB, so
// one for a path past the system's length (found by review) has neither its closing quote nor its reason:
// matched without them, the path as far as git wrote it.
export function unopened(stderr: string): { unreadable: string[]; unmeasured: string[] } {
  const unreadable: string[] = [];
  const unmeasured: string[] = [];
  for (const m of stderr.matchAll(/could not open directory '([^'\n]*)(?:'(?:: ([^\n]*))?)?/g)) {
    if (m[2] === 'Permission denied') unreadable.push(m[1]!);
    else unmeasured.push(`${m[1]!} (${m[2] ?? 'its name cut by git: a path too long'})`);
  }
  return { unreadable, unmeasured };
}

// Its entries under the workspace (paths relative to it), and HEAD.
export async function readStatus(r: GitResult, prefix: string, signal?: AbortSignal): Promise<GitStatus> {
  // A status that failed is no empty one: the ledger says it could not measure, never that nothing changed.
  if (r.code !== 0) throw new Error(`git status failed: ${r.stderr || `exit ${r.code}`}`);
  const entries = new Map<string, string>();
  const nested: string[] = [];
  const ignored = new Set<string>();
  const submodules = new Map<string, string>();
  // A status cut at STATUS_MAX_BYTES: its records up to the last whole one (each ends with a NUL).
  const cut = r.cut === true;
  let head: string | null = null;
  let ignoredWhole = false;
  let read = 0;
  for (const e of statusRecords(decodeName(listedPart(r)))) {
    // Read a part at a time: 8 MiB of status is ~240,000 entries and half a second of work, during which
    // a signal or --timeout would wait (found by review: 1.3-4.4 s with a million untracked files).
    if (++read % STATUS_BATCH === 0) {
      await new Promise((resolve) => setImmediate(resolve));
      signal?.throwIfAborted();
    }
    if ('head' in e) {
      head = e.head;
      continue;
    }
    // `! scratch/` (or `! scratch/ws/`) for a workspace in scratch/ws: the only entry git lists there.
    if (e.xy === '!!' && prefix !== '' && e.path.endsWith('/') && prefix.startsWith(e.path)) {
      ignoredWhole = true;
      continue;
    }
    if (!e.path.startsWith(prefix)) continue;
    const rel = e.path.slice(prefix.length);
    if (e.xy === '!!') {
      ignored.add(rel);
      continue;
    }
    if (e.sub) {
      submodules.set(rel, `${e.xy} ${e.sub}`);
      continue;
    }
    if (e.path.endsWith('/')) {
      if (e.xy === '??') nested.push(e.path.slice(prefix.length));
      continue;
    }
    entries.set(e.path.slice(prefix.length), e.xy);
  }
  return {
    entries,
    head,
    nested,
    truncated: cut,
    ...unopened(r.stderr),
    ignored,
    ...(cut ? { cut } : {}),
    submodules,
    ignoredWhole,
  };
}

// The files of the untracked directories git does not look into (a repository made in the workspace: the
// agent's `git init` in a new folder would hide every file in it), walked as outside git, as untracked: its
// `.git` (and any node_modules) is listed as the folder (`sub/.git/`), so a new one is never nothing. So are
// `more` (the submodule folders not checked out). They share one walk's caps: past them `truncated` says
// more may be there.
async function withNested(root: string, status: GitStatus, more: readonly string[] = []): Promise<GitStatus> {
  let folders = MAX_FILES / 2;
  for (const dir of [...status.nested, ...more]) {
    if (status.entries.size > MAX_FILES || folders <= 0) {
      status.truncated = true;
      break;
    }
    const walked = await walkFiles(join(root, dir), MAX_FILES, folders);
    folders -= walked.folders;
    status.truncated ||= walked.truncated;
    for (const u of walked.unreadable ?? []) status.unreadable.push(dir + u);
    for (const u of walked.unmeasured ?? []) status.unmeasured.push(dir + u);
    for (const f of walked.files) status.entries.set(dir + f, '??');
  }
  return status;
}

// The options of the ledger's own diffs: paths from the root whatever diff.relative says, no renames, nothing
// run (git-env.ts has the rest).
const NAME_DIFF = ['--name-status', '-z', '--no-renames', '--no-relative', '--no-ext-diff', '--no-textconv'];

// Pure: a `git diff --name-status -z` under the workspace: each path, with whether it existed on the old side.
export function parseNameStatus(out: string, prefix: string): Map<string, boolean> {
  const found = new Map<string, boolean>();
  const f = out.split('\0');
  for (let i = 0; i + 1 < f.length; i += 2) {
    const path = f[i + 1]!;
    // No path git lists is empty: an empty one is a listing cut after a status letter (listedPart).
    if (path !== '' && path.startsWith(prefix)) found.set(path.slice(prefix.length), f[i] !== 'A');
  }
  return found;
}

// The part of a listing read up to STATUS_MAX_BYTES that ends with a whole field (a cut one is dropped): every
// field of `git status -z` and of `git diff -z --name-status` ends with a NUL.
function listedPart(r: GitResult): Buffer {
  return r.cut ? r.stdout.subarray(0, r.stdout.lastIndexOf(0) + 1) : r.stdout;
}

/** Paths a diff names, with whether each existed before; `cut` when the listing was cut at its bound. */
interface Named {
  found: Map<string, boolean>;
  cut: boolean;
}
const NONE: Named = { found: new Map(), cut: false };

// Paths changed between two commits under the workspace (the agent committed, or checked out another),
// with whether each existed at the first.
async function committed(
  root: string,
  env: GitEnvOptions,
  from: string | null,
  to: string | null,
  prefix: string,
): Promise<Named> {
  if (from === to || !from || !to) return NONE;
  // Read up to the status's bound: the agent can commit a million files.
  const r = await git(root, ['diff', ...NAME_DIFF, from, to, '--', '.'], {
    ...env,
    maxBytes: STATUS_MAX_BYTES,
  });
  // A diff that failed (the commit the snapshot saw is gone: the agent made a new repository, or removed
  // it) is no empty one: the ledger says it could not measure, never that nothing changed.
  if (r.code !== 0) throw new Error(`git diff failed: ${r.stderr || `exit ${r.code}`}`);
  return { found: parseNameStatus(decodeName(listedPart(r)), prefix), cut: r.cut === true };
}

// What the agent staged (its real index against the snapshot's HEAD), looked at only when that index changed:
// the ledger's status reads its own copy, so a change staged and then undone in the work tree is found here.
async function staged(before: Snapshot, place: GitPlace): Promise<Named> {
  const view = before.view;
  if (!view?.index || sameMark(markOfSync(view.index.path), view.index.mark)) return NONE;
  const env = { ...view.env, vars: { ...view.env.vars, GIT_INDEX_FILE: view.index.path } };
  const base = place.head ?? (await emptyTree(before.root, env));
  // Read up to the status's bound: the agent can stage a million files.
  const r = await git(before.root, ['diff-index', '--cached', ...NAME_DIFF, base, '--', '.'], {
    ...env,
    maxBytes: STATUS_MAX_BYTES,
  });
  if (r.code !== 0) throw new Error(`git diff-index failed: ${r.stderr || `exit ${r.code}`}`);
  return { found: parseNameStatus(decodeName(listedPart(r)), place.prefix), cut: r.cut === true };
}

// The empty tree's id in this repository's object format.
async function emptyTree(root: string, env: GitEnvOptions): Promise<string> {
  const r = await git(root, ['hash-object', '-t', 'tree', '--stdin'], { ...env, input: Buffer.alloc(0) });
  return r.stdout.toString('utf8').trim();
}

/** What changed since the snapshot, sorted by path; whether a cap kept part of it from being seen; and why the
 * look after the turn could not see all of the workspace (empty when it could). */
export interface Measured {
  changed: Changed[];
  truncated: boolean;
  incomplete: string[];
}

// What changed since the snapshot (Measured).
// `giveUp`: the bound of the run's end (a second signal, the kill grace past --timeout): the look is ended
// there, its git with it, and fails, so the changes read as not measured, never as none (found by review:
// a `git status` that took 30 s held a --timeout 2s run for 32 s).
export async function changesSince(before: Snapshot, giveUp?: AbortSignal): Promise<Measured> {
  if (before.view && giveUp) before.view.env = { ...before.view.env, signal: giveUp };
  try {
    return await (giveUp
      ? Promise.race([compareWith(before, giveUp), endedBy(giveUp)])
      : compareWith(before));
  } finally {
    before.dispose();
  }
}

/** The look after the turn was ended by the run's own end (a signal, --timeout), not by anything it met. */
export class LookEnded extends Error {}

// Rejects once the signal is aborted (at once if it is).
function endedBy(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    const end = (): void =>
      reject(new LookEnded(`the look after the turn was ended ${String(signal.reason)}`));
    if (signal.aborted) end();
    else signal.addEventListener('abort', end, { once: true });
  });
}

async function compareWith(before: Snapshot, giveUp?: AbortSignal): Promise<Measured> {
  const { root } = before;
  const [, now] = await Promise.all([before.stopHashing(), lookAgain(before, giveUp)]);
  // A folder that became unreadable during the turn (the agent's `chmod 000`, for anyone but root) hides
  // what is in it: the ledger could not look, which is never "nothing changed".
  const hidden = now.unreadable.filter((d) => !before.unreadable.has(d));
  if (hidden.length > 0) throw new Error(`folders became unreadable during the turn: ${hidden.join(', ')}`);
  const was = new Map<string, Was>(before.files);
  // The files whose stat could not be taken before the turn are looked at again: never absent, nor the same.
  for (const p of before.unmeasured.files) was.set(p, 'clean');
  let truncated = before.truncated || now.truncated;
  // A cap the second look reached (its listing, the paths beyond the snapshot's, the newly ignored ones).
  let capped = now.truncated;
  for (const [p, existed] of now.committed) if (!was.has(p)) was.set(p, existed ? 'clean' : null);
  let more = 0;
  const add = (entries: Iterable<[string, Was]>): void => {
    for (const [p, w] of entries) {
      if (was.has(p)) continue;
      // At most MAX_FILES paths beyond the snapshot's: past them, `truncated` says more may have changed.
      if (++more > MAX_FILES) {
        truncated = capped = true;
        return;
      }
      was.set(p, w);
    }
  };
  add(now.seen);
  const unmeasured: string[] = [];
  let changed = await compare(root, was, unmeasured);
  // An ignore file the agent added or changed hides what it names from git status (`*` in a new
  // src/.gitignore hides itself and every new file beside it): the ignored files that were not there
  // before, under its folder, are looked at too.
  const beyond = await newlyIgnored(before, now, changed);
  truncated ||= beyond.truncated;
  capped ||= beyond.truncated;
  if (beyond.paths.length > 0) {
    const checked = new Set(was.keys());
    add(beyond.paths.map((p) => [p, null]));
    const fresh = new Map([...was].filter(([p]) => !checked.has(p)));
    changed = [...changed, ...(await compare(root, fresh, unmeasured))];
  }
  // A submodule's own changes (an edit, a new file, a commit in it) are its state in git status.
  for (const p of new Set([...(before.submodules?.keys() ?? []), ...now.submodules.keys()]))
    if (before.submodules?.get(p) !== now.submodules.get(p) && !was.has(p))
      changed.push({ path: p, change: 'modified' });
  changed.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const incomplete: string[] = [];
  // The first look was whole and the second reached a cap: the agent grew the workspace past it (found by
  // review: 10,001 empty folders, no change themselves, put a file beyond them out of the walk's sight). What
  // lies past the cap was not looked at: no promise only the ledger checks is kept by that.
  if (capped && !before.cut)
    incomplete.push(
      "the workspace grew past the ledger's cap during the turn (what lies past it was not looked at)",
    );
  // A folder that could not be read (a path longer than the system takes) hides what is in it, and a file
  // whose stat could not be taken is neither there nor gone (found by review: each read as nothing there).
  const unread = now.unmeasured.filter((d) => !before.unmeasured.folders.has(d));
  if (unread.length > 0) incomplete.push(`folders that could not be read: ${unread.join(', ')}`);
  if (unmeasured.length > 0) incomplete.push(`files that could not be measured: ${unmeasured.join(', ')}`);
  return { changed, truncated, incomplete };
}

// How each path changed; a path whose stat could not be taken is added to `unmeasured` (with the error's code)
// instead, never read as absent or the same.
async function compare(
  root: string,
  was: ReadonlyMap<string, Was>,
  unmeasured: string[],
): Promise<Changed[]> {
  const changed: Changed[] = [];
  const marks = await marksOf(root, [...was.keys()]);
  for (const [path, w] of was) {
    const mark = marks.get(path) ?? null;
    if (isUnmeasured(mark)) {
      unmeasured.push(`${path} (${mark.unmeasured})`);
      continue;
    }
    const same =
      w !== null && w !== 'clean' && mark !== null && (await sameContent(join(root, path), w, mark));
    const change = classify(w, mark !== null, same);
    if (change) changed.push({ path, change });
  }
  return changed;
}

// Pure: the folders whose ignore rules changed during the turn (workspace-relative, '' for all of it): those
// of a `.gitignore` that changed or appeared (listed, or new among the ignored: one holding `*` ignores
// itself), all of it when the repository's info/exclude did.
export function ignoreScopes(
  changed: readonly string[],
  newIgnored: readonly string[],
  exclude: string,
): string[] {
  const scopes = new Set<string>();
  for (const p of [...changed, ...newIgnored]) {
    if (p === exclude) scopes.add('');
    else if (p === '.gitignore' || p.endsWith('/.gitignore'))
      scopes.add(dirname(p) === '.' ? '' : dirname(p));
  }
  return [...scopes];
}

// Pure: the ignored entries after the turn that were not ignored before (nor inside a folder ignored before),
// under one of the scopes.
export function newIgnoredEntries(
  before: ReadonlySet<string>,
  now: ReadonlySet<string>,
  scopes: readonly string[],
): string[] {
  const folders = [...before].filter((p) => p.endsWith('/'));
  return [...now].filter(
    (p) =>
      !before.has(p) &&
      !folders.some((f) => p.startsWith(f)) &&
      scopes.some((s) => s === '' || p.startsWith(`${s}/`)),
  );
}

// The files to look at because an ignore file changed: the new ignored files under the changed rules' folders,
// and the files in new ignored folders there (walked, within the walk's caps).
async function newlyIgnored(
  before: Snapshot,
  now: { ignored: ReadonlySet<string> },
  changed: readonly Changed[],
): Promise<{ paths: string[]; truncated: boolean }> {
  if (!before.ignored || !before.git) return { paths: [], truncated: false };
  const common = before.git.commonDir ?? before.git.gitDir;
  const exclude = common ? relative(before.root, join(common, 'info', 'exclude')) : '';
  const fresh = [...now.ignored].filter((p) => !before.ignored!.has(p));
  const scopes = ignoreScopes(
    changed.map((c) => c.path),
    fresh,
    exclude,
  );
  if (scopes.length === 0) return { paths: [], truncated: false };
  const paths: string[] = [];
  let truncated = false;
  for (const e of newIgnoredEntries(before.ignored, now.ignored, scopes)) {
    if (!e.endsWith('/')) {
      paths.push(e);
      continue;
    }
    const walked = await walkFiles(join(before.root, e), MAX_FILES - paths.length);
    truncated ||= walked.truncated;
    for (const f of walked.files) paths.push(e + f);
    if (paths.length >= MAX_FILES) return { paths, truncated: true };
  }
  return { paths, truncated };
}

// The second look: the paths to compare that the snapshot did not hold (with what they were before), and
// the paths a commit of the agent changed.
async function lookAgain(
  before: Snapshot,
  giveUp?: AbortSignal,
): Promise<{
  seen: Map<string, Was>;
  committed: Map<string, boolean>;
  truncated: boolean;
  unreadable: string[];
  unmeasured: string[];
  ignored: ReadonlySet<string>;
  submodules: ReadonlyMap<string, string>;
}> {
  const seen = new Map<string, Was>();
  if (before.git && before.view) {
    const place = before.git;
    const view = before.view;
    if (view.gitDir && dirId(view.gitDir.path) !== view.gitDir.id) {
      before.nextLook?.disarm();
      throw new Error(`the repository's git dir was replaced during the turn: ${view.gitDir.path}`);
    }
    // A filter command the agent added or changed is not run by this git: while every config file git reads
    // is as it was (its stat, ctime included), the status armed at the snapshot runs; else one that empties
    // every filter command that is not as it was.
    // A config file git may read now that was not looked at then (a submodule's git dir the agent made)
    // counts as one that changed.
    const config = before.config;
    const same =
      config !== undefined &&
      [...config.marks].every(([f, m]) => sameMark(markOfSync(f), m)) &&
      gitDirConfigs(place).every((f) => config.marks.has(f));
    if (!same) before.nextLook?.disarm();
    const env: GitEnvOptions = same
      ? view.env
      : {
          ...view.env,
          config: [
            ...(view.env.config ?? []),
            ...filterOverrides(config?.filters ?? new Map(), await filterCommands(before.root, place)),
          ],
        };
    const look =
      same && before.nextLook
        ? await before.nextLook.run(giveUp)
        : await git(before.root, statusArgs(), { ...env, maxBytes: STATUS_MAX_BYTES });
    const status = await withNested(
      before.root,
      await readStatus(look, place.prefix, giveUp),
      before.unpopulated,
    );
    // git lists nothing in a workspace ignored whole, a file the agent added included: the ledger could not
    // look (an ignore rule above the workspace, in a .gitignore outside it, is the agent's to write too).
    if (status.ignoredWhole)
      throw new Error('the workspace became ignored by its repository during the turn');
    // Not listed before: a tracked file that was clean then, or a file that did not exist.
    // Past the snapshot's cap, a path git listed then too was there all along, in a state not looked at:
    // neither new nor clean (`truncated` says more may have changed).
    for (const [p, xy] of status.entries)
      if (!before.beyond?.has(p)) seen.set(p, xy === '??' || xy[0] === 'A' ? null : 'clean');
    // A hook or another of git's control files the agent added.
    for (const p of gitControls(before.root, place)) if (!before.files.has(p)) seen.set(p, null);
    const [moved, stagedNow] = await Promise.all([
      committed(before.root, env, place.head, status.head, place.prefix),
      staged(before, place),
    ]);
    for (const [p, existed] of stagedNow.found) if (!seen.has(p)) seen.set(p, existed ? 'clean' : null);
    return {
      seen,
      committed: moved.found,
      truncated: status.truncated || moved.cut || stagedNow.cut,
      unreadable: status.unreadable,
      unmeasured: status.unmeasured,
      ignored: status.ignored,
      submodules: status.submodules,
    };
  }
  const now = await walkFiles(before.root, MAX_FILES);
  // Past the first walk's cap a file may have been there all along: only a full first walk tells new ones
  // (whatever the hashing's byte cap did: that one says nothing of which files were there).
  if (!before.cut) for (const p of now.files) seen.set(p, null);
  return {
    seen,
    committed: new Map(),
    truncated: now.truncated,
    unreadable: now.unreadable ?? [],
    unmeasured: now.unmeasured ?? [],
    ignored: new Set(),
    submodules: new Map(),
  };
}
