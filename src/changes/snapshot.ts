// The ledger's two looks at the workspace: before the prompt (a snapshot) and after the turn (what changed).
// In a git work tree, what `git status` lists (untracked files included); outside git, a capped walk. The
// snapshot the prompt waits for is stats only; the hashes are taken while the turn runs. The comparison
// reads only what may have changed: stats first, a hash only where they differ.
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { classify, type Change, type Was } from './compare.js';
import {
  armGit,
  filterCommands,
  configSeen,
  filterOverrides,
  gitDirConfigs,
  git,
  gitRoot,
  parseStatusV2,
  type ArmedGit,
  type GitPlace,
  type GitResult,
} from './git.js';
import {
  addHash,
  eachLimited,
  HashBudget,
  markOfSync,
  marksOf,
  sameContent,
  type FileMark,
} from './marks.js';
import { decodeName } from './names.js';
import { walkFiles } from './walk.js';

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
  /** Each file looked at, relative to the workspace, and its mark (null: listed by git, but absent). */
  files: Map<string, FileMark | null>;
  /** A cap (files or hashed bytes) was reached: changes past it may go unseen. */
  truncated: boolean;
  /** The folders that could not be read (permission denied): a new one after the turn hides what is in it. */
  unreadable: ReadonlySet<string>;
  /** Starts hashing the files in the background (once the prompt is sent: the turn is the idle time). */
  startHashing(): void;
  /** Stops the background hashing and resolves once it has stopped. */
  stopHashing(): Promise<void>;
  /** In git: the second look's `git status`, forked ahead of need (armGit); undefined outside git. */
  nextLook: ArmedGit | undefined;
  /** In git: the filter commands before the turn, and the marks of the config files git reads. */
  config?: { filters: ReadonlyMap<string, string>; marks: Map<string, FileMark | null> };
}

/** One changed path and how it changed. */
export interface Changed {
  path: string;
  change: Change;
}

// The workspace before the prompt: its stats now, its hashes while the turn runs (startHashing).
export async function takeSnapshot(root: string): Promise<Snapshot> {
  const found = await gitRoot(root);
  const [status, seen] = found
    ? await Promise.all([git(root, statusArgs(found)), configSeen(root, found)])
    : [undefined, undefined];
  const listed = found && status ? await withNested(root, readStatus(status, found.prefix)) : undefined;
  const place: GitPlace | undefined = found && listed ? { ...found, head: listed.head } : undefined;
  const walked = place ? undefined : await walkFiles(root, MAX_FILES);
  // In git, also the files in the git dir that decide what git runs and lists: an agent's hook, a config
  // that names a command or moves the work tree, an exclude or attributes file that hides a change.
  const paths = listed
    ? [...new Set([...listed.entries.keys(), ...gitControls(root, place!)])]
    : walked!.files;
  const files = await marksOf(root, paths.slice(0, MAX_FILES));
  const budget = new HashBudget(MAX_HASH_BYTES);
  let stopped = false;
  let started = false;
  let hashing: Promise<void> = Promise.resolve();
  const snapshot: Snapshot = {
    root,
    git: place,
    nextLook: place ? armGit(root, statusArgs(place)) : undefined,
    ...(seen ? { config: { filters: seen.filters, marks: await marksOf('/', seen.files) } } : {}),
    files,
    truncated: (walked?.truncated ?? listed?.truncated ?? false) || paths.length > MAX_FILES,
    unreadable: new Set(walked?.unreadable ?? listed?.unreadable ?? []),
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
  };
  return snapshot;
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
}

// `git status`: untracked files listed one by one, submodules not looked into, and HEAD from the same
// process (`--branch`; no ahead/behind count, which reads history).
const STATUS_ARGS = [
  'status',
  '--porcelain=v2',
  '--branch',
  '--no-ahead-behind',
  '-z',
  '--untracked-files=all',
  '--no-renames',
  '--ignore-submodules=all',
  '--',
  '.',
];

// The status of the work tree found at the snapshot, wherever the config the agent may have written points
// git (`core.worktree`).
// core.fileMode=true: a repository set to ignore modes (common on WSL and shared drives) would hide the
// agent's chmod of a clean tracked file from `git status`, so the ledger would never look at it (found by
// review).
const statusArgs = (place: { root: string }): string[] => [
  '-c',
  'core.fileMode=true',
  `--work-tree=${place.root}`,
  ...STATUS_ARGS,
];

/** At most this many hooks are looked at. */
const MAX_HOOKS = 256;

// The git dir's files that decide what git runs and what it lists, relative to the workspace: the configs,
// the exclude and attributes files, and every hook (present or not: one the agent adds is a change too;
// git's `.sample` files are not hooks).
function gitControls(root: string, place: Pick<GitPlace, 'gitDir' | 'commonDir'>): string[] {
  const common = place.commonDir ?? place.gitDir;
  if (!common) return [];
  const hooks = join(common, 'hooks');
  let hookNames: string[] = [];
  try {
    // git never runs a `.sample`: renamed to what git runs, it is a new hook, and listed as one.
    hookNames = readdirSync(hooks)
      .filter((n) => !n.endsWith('.sample'))
      .sort()
      .slice(0, MAX_HOOKS);
  } catch {
    // no hooks folder
  }
  const abs = [
    ...gitDirConfigs(place),
    join(common, 'info', 'exclude'),
    join(common, 'info', 'attributes'),
    ...hookNames.map((n) => join(hooks, n)),
  ];
  return [...new Set(abs.map((a) => relative(root, a)))];
}

// The folders git says it could not open (`warning: could not open directory 'locked/': Permission denied`).
export function unopened(stderr: string): string[] {
  return [...stderr.matchAll(/could not open directory '([^']*)'/g)].map((m) => m[1]!);
}

// Its entries under the workspace (paths relative to it), and HEAD.
function readStatus(r: GitResult, prefix: string): GitStatus {
  // A status that failed is no empty one: the ledger says it could not measure, never that nothing changed.
  if (r.code !== 0) throw new Error(`git status failed: ${r.stderr || `exit ${r.code}`}`);
  const entries = new Map<string, string>();
  const nested: string[] = [];
  const status = parseStatusV2(decodeName(r.stdout));
  for (const e of status.entries) {
    if (!e.path.startsWith(prefix)) continue;
    if (e.path.endsWith('/')) {
      if (e.xy === '??') nested.push(e.path.slice(prefix.length));
      continue;
    }
    entries.set(e.path.slice(prefix.length), e.xy);
  }
  return { entries, head: status.head, nested, truncated: false, unreadable: unopened(r.stderr) };
}

// The files of the untracked directories git does not look into (a repository made in the workspace: the
// agent's `git init` in a new folder would hide every file in it), walked as outside git, as untracked.
// They share one walk's caps: past them `truncated` says more may be there.
async function withNested(root: string, status: GitStatus): Promise<GitStatus> {
  let folders = MAX_FILES / 2;
  for (const dir of status.nested) {
    if (status.entries.size > MAX_FILES || folders <= 0) {
      status.truncated = true;
      break;
    }
    const walked = await walkFiles(join(root, dir), MAX_FILES, folders);
    folders -= walked.folders;
    status.truncated ||= walked.truncated;
    for (const u of walked.unreadable ?? []) status.unreadable.push(dir + u);
    for (const f of walked.files) status.entries.set(dir + f, '??');
  }
  return status;
}

// Paths changed between two commits under the workspace (the agent committed, or checked out another),
// with whether each existed at the first.
async function committed(
  root: string,
  from: string | null,
  to: string | null,
  prefix: string,
): Promise<Map<string, boolean>> {
  const out = new Map<string, boolean>();
  if (from === to || !from || !to) return out;
  const r = await git(root, ['diff', '--name-status', '-z', '--no-renames', from, to, '--', '.']);
  // A diff that failed (the commit the snapshot saw is gone: the agent made a new repository, or removed
  // it) is no empty one: the ledger says it could not measure, never that nothing changed.
  if (r.code !== 0) throw new Error(`git diff failed: ${r.stderr || `exit ${r.code}`}`);
  const f = decodeName(r.stdout).split('\0');
  for (let i = 0; i + 1 < f.length; i += 2) {
    const path = f[i + 1]!;
    if (path.startsWith(prefix)) out.set(path.slice(prefix.length), f[i] !== 'A');
  }
  return out;
}

// What changed since the snapshot, sorted by path; and whether a cap kept part of it from being seen.
export async function changesSince(before: Snapshot): Promise<{ changed: Changed[]; truncated: boolean }> {
  const { root } = before;
  const [, now] = await Promise.all([before.stopHashing(), lookAgain(before)]);
  // A folder that became unreadable during the turn (the agent's `chmod 000`, for anyone but root) hides
  // what is in it: the ledger could not look, which is never "nothing changed".
  const hidden = now.unreadable.filter((d) => !before.unreadable.has(d));
  if (hidden.length > 0) throw new Error(`folders became unreadable during the turn: ${hidden.join(', ')}`);
  const was = new Map<string, Was>(before.files);
  let truncated = before.truncated || now.truncated;
  for (const [p, existed] of now.committed) if (!was.has(p)) was.set(p, existed ? 'clean' : null);
  let more = 0;
  for (const [p, w] of now.seen) {
    if (was.has(p)) continue;
    // At most MAX_FILES paths beyond the snapshot's: past them, `truncated` says more may have changed.
    if (++more > MAX_FILES) {
      truncated = true;
      break;
    }
    was.set(p, w);
  }
  const changed: Changed[] = [];
  const marks = await marksOf(root, [...was.keys()]);
  for (const [path, w] of was) {
    const mark = marks.get(path) ?? null;
    const same =
      w !== null && w !== 'clean' && mark !== null && (await sameContent(join(root, path), w, mark));
    const change = classify(w, mark !== null, same);
    if (change) changed.push({ path, change });
  }
  changed.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { changed, truncated };
}

// The second look: the paths to compare that the snapshot did not hold (with what they were before), and
// the paths a commit of the agent changed.
async function lookAgain(before: Snapshot): Promise<{
  seen: Map<string, Was>;
  committed: Map<string, boolean>;
  truncated: boolean;
  unreadable: string[];
}> {
  const seen = new Map<string, Was>();
  if (before.git) {
    const place = before.git;
    // A filter command the agent added or changed is not run by this git: while every config file git reads
    // is as it was (its stat, ctime included), the status armed at the snapshot runs; else one that empties
    // every filter command that is not as it was.
    const config = before.config;
    const same = config !== undefined && [...config.marks].every(([f, m]) => markOfSync(f)?.stat === m?.stat);
    if (!same) before.nextLook?.disarm();
    const look =
      same && before.nextLook
        ? await before.nextLook.run()
        : await git(before.root, [
            ...filterOverrides(config?.filters ?? new Map(), await filterCommands(before.root)),
            ...statusArgs(place),
          ]);
    const status = await withNested(before.root, readStatus(look, place.prefix));
    // Not listed before: a tracked file that was clean then, or a file that did not exist.
    for (const [p, xy] of status.entries) seen.set(p, xy === '??' || xy[0] === 'A' ? null : 'clean');
    // A hook or another of git's control files the agent added.
    for (const p of gitControls(before.root, place)) if (!before.files.has(p)) seen.set(p, null);
    return {
      seen,
      committed: await committed(before.root, place.head, status.head, place.prefix),
      truncated: status.truncated,
      unreadable: status.unreadable,
    };
  }
  const now = await walkFiles(before.root, MAX_FILES);
  // Past the first walk's cap a file may have been there all along: only a full first walk tells new ones.
  if (!before.truncated) for (const p of now.files) seen.set(p, null);
  return { seen, committed: new Map(), truncated: now.truncated, unreadable: now.unreadable ?? [] };
}
