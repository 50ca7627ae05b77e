// The few git commands the ledger and --worktree run, and the pure parse of `git status --porcelain -z`.
import { execFile, spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { safeGitEnv, type ConfigPair, type GitEnvOptions } from './git-env.js';

/** The longest one git command may take before it is ended (and counts as failed). */
const GIT_TIMEOUT_MS = 60_000;

/** What one git command gave back; never throws for a non-zero exit (the caller decides). */
export interface GitResult {
  code: number;
  stdout: Buffer;
  stderr: string;
  /** With `maxBytes`: the output went past it, so git was ended and stdout holds its first maxBytes. */
  cut?: boolean;
}

/** How one git command runs: its stdin, and what it needs beyond the neutral environment (git-env.ts). */
export interface GitOptions extends GitEnvOptions {
  input?: Buffer;
  /** Ends the command (SIGTERM, as its timeout does) once aborted: the run's stop, for the steps before the
   * prompt that a signal or --timeout must not wait for. */
  signal?: AbortSignal | undefined;
  /** At most this much of its stdout is kept: past it git is ended and the result is `cut` (code 0). Without
   * it, output past 1 GiB is a failure. */
  maxBytes?: number;
}

// The environment every git command of rho-cursor runs in (git-env.ts: no hook, fsmonitor, pager or fetch).
export function gitEnv(env: NodeJS.ProcessEnv = process.env, o: GitEnvOptions = {}): NodeJS.ProcessEnv {
  return safeGitEnv(env, o);
}

// Runs git in a directory; a missing git is a result with code 127, never a throw.
export function git(cwd: string, args: string[], o: GitOptions = {}): Promise<GitResult> {
  return new Promise((resolve) => {
    const child = execFile(
      'git',
      args,
      // Bounded: a git that hangs (a network filesystem, say) must not hold the run's end for ever.
      {
        cwd,
        env: gitEnv(process.env, o),
        encoding: 'buffer',
        maxBuffer: o.maxBytes ?? 1024 * 1024 * 1024,
        timeout: GIT_TIMEOUT_MS,
        signal: o.signal,
      },
      (err, stdout, stderr) => {
        const cut = o.maxBytes !== undefined && err?.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER';
        const code =
          err === null || cut
            ? 0
            : typeof (err as { code?: unknown }).code === 'number'
              ? Number(err.code)
              : 127;
        resolve({
          code,
          stdout: stdout ?? Buffer.alloc(0),
          stderr: String(stderr ?? '').trim(),
          ...(cut ? { cut } : {}),
        });
      },
    );
    if (o.input) child.stdin?.end(o.input);
  });
}

/** A git command forked ahead of need: `run()` starts it, `disarm()` lets its process go unused. */
export interface ArmedGit {
  /** Runs the command; `signal` ends it (SIGTERM), as git()'s does. */
  run(signal?: AbortSignal): Promise<GitResult>;
  disarm(): void;
}

// Forks the process of a git command now and runs git only when run() is called: a shell waiting for one
// line on stdin, which then execs git. The fork of rho-cursor (tens of MiB of heap to copy page tables for)
// and the shell's start happen while the turn runs, not between the agent's answer and the result. The
// shell holds nothing: it is unref'd until run(), and it exits without running git when its stdin ends
// (disarm(), or rho-cursor gone). A fork that fails runs the command the usual way.
export function armGit(
  cwd: string,
  args: string[],
  o: GitEnvOptions & Pick<GitOptions, 'maxBytes'> = {},
): ArmedGit {
  let child: ReturnType<typeof spawn>;
  try {
    child = spawn('/bin/sh', ['-c', 'read -r _ && exec git "$@"', 'sh', ...args], {
      cwd,
      env: gitEnv(process.env, o),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
  } catch {
    return { run: () => git(cwd, args, o), disarm: () => {} };
  }
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  // With maxBytes, as git() does: past it the output is cut there and git ended.
  let kept = 0;
  let cut = false;
  child.stdout!.on('data', (d: Buffer) => {
    if (cut) return;
    if (o.maxBytes !== undefined && kept + d.length > o.maxBytes) {
      out.push(d.subarray(0, o.maxBytes - kept));
      kept = o.maxBytes;
      cut = true;
      child.kill('SIGTERM');
      return;
    }
    kept += d.length;
    out.push(d);
  });
  child.stderr!.on('data', (d: Buffer) => err.push(d));
  const closed = new Promise<number | null>((resolve) => {
    child.once('close', (code) => resolve(code));
    child.once('error', () => resolve(null));
  });
  const handles = [child, child.stdin!, child.stdout!, child.stderr!] as unknown as {
    ref?(): void;
    unref?(): void;
  }[];
  for (const h of handles) h.unref?.();
  let used = false;
  return {
    run: async (signal) => {
      if (used) return git(cwd, args, { ...o, signal });
      used = true;
      for (const h of handles) h.ref?.();
      child.stdin!.end('\n');
      const timer = setTimeout(() => child.kill('SIGKILL'), GIT_TIMEOUT_MS);
      const end = (): boolean => child.kill('SIGTERM');
      if (signal?.aborted) end();
      signal?.addEventListener('abort', end, { once: true });
      const code = await closed;
      clearTimeout(timer);
      signal?.removeEventListener('abort', end);
      // The shell never started (no /bin/sh, a spawn error): the usual way.
      if (code === null && out.length === 0 && !signal?.aborted && !cut)
        return git(cwd, args, { ...o, signal });
      return {
        code: cut ? 0 : (code ?? 127),
        stdout: Buffer.concat(out),
        stderr: Buffer.concat(err).toString('utf8').trim(),
        ...(cut ? { cut } : {}),
      };
    },
    disarm: () => {
      if (used) return;
      used = true;
      child.stdin!.end();
    },
  };
}

// Runs git and returns its stdout as text, or throws an Error naming the command and git's own message.
export async function gitText(cwd: string, args: string[], o: GitOptions = {}): Promise<string> {
  const r = await git(cwd, args, o);
  if (r.code !== 0) throw new Error(`git ${args[0]} failed: ${r.stderr || `exit ${r.code}`}`);
  return r.stdout.toString('utf8');
}

/** One entry of `git status --porcelain=v2 -z`: its two status letters (`??` untracked) and its path from the
 * repository root. */
export interface StatusEntry {
  xy: string;
  path: string;
  /** A submodule's state (`S<c><m><u>`: commit changed, tracked changes, untracked files), for one only. */
  sub?: string;
}

/** What one `git status --porcelain=v2 --branch -z` said: its entries and the commit HEAD names. */
export interface StatusV2 {
  entries: StatusEntry[];
  /** HEAD's commit, or null in a repository with no commit yet (`(initial)`). */
  head: string | null;
}

// The rest of a record after its first n space-separated fields: a path, which may itself hold spaces.
function afterFields(record: string, n: number): string {
  let at = 0;
  for (let i = 0; i < n; i++) {
    at = record.indexOf(' ', at) + 1;
    if (at === 0) return '';
  }
  return record.slice(at);
}

// Pure: reads `git status --porcelain=v2 --branch -z`: the `# branch.oid` header (HEAD, so no second git
// process asks for it), ordinary (`1`), renamed or copied (`2`, followed by the old path's own record),
// unmerged (`u`), untracked (`?`) and ignored (`!`) entries.
export function parseStatusV2(out: string): StatusV2 {
  const entries: StatusEntry[] = [];
  let head: string | null = null;
  for (const r of statusRecords(out)) {
    if ('head' in r) head = r.head;
    else entries.push(r);
  }
  return { entries, head };
}

// The same records one at a time (HEAD as `{head}`), so a long listing can be read a part at a time with
// the event loop's turns between them (snapshot.ts readStatus: a signal or --timeout acts meanwhile).
export function* statusRecords(out: string): Generator<StatusEntry | { head: string | null }> {
  const records = out.split('\0');
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    const kind = r[0];
    let path = '';
    if (kind === '#') {
      if (r.startsWith('# branch.oid ')) {
        const oid = r.slice('# branch.oid '.length);
        yield { head: oid === '(initial)' ? null : oid };
      }
      continue;
    } else if (kind === '1') path = afterFields(r, 8);
    else if (kind === '2') {
      path = afterFields(r, 9);
      i++; // the old path
    } else if (kind === 'u') path = afterFields(r, 10);
    else if (kind === '?' || kind === '!') path = r.slice(2);
    if (path === '') continue;
    const sub = kind === '1' || kind === '2' || kind === 'u' ? r.slice(5, 9) : '';
    yield {
      xy: kind === '?' ? '??' : kind === '!' ? '!!' : r.slice(2, 4),
      path,
      ...(sub.startsWith('S') ? { sub } : {}),
    };
  }
}

/** Where a directory sits in git: the repository's root, the directory's path under it, and HEAD. */
export interface GitPlace {
  root: string;
  /** The directory's path from the root, ending with `/`, or '' at the root. */
  prefix: string;
  /** The repository's git dir and common dir (a linked worktree's differ), absolute. */
  gitDir?: string;
  commonDir?: string;
  /** The index file git reads here (GIT_INDEX_FILE, or the git dir's `index`), absolute. */
  index?: string;
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

// Is the directory in a git work tree, and where? undefined outside one (or without git). HEAD is left to
// the caller: the ledger reads it from its own `git status`, --worktree from gitHead.
// `signal` ends the git (then undefined: the caller checks its signal first).
export async function gitRoot(
  cwd: string,
  signal?: AbortSignal,
): Promise<Omit<GitPlace, 'head'> | undefined> {
  if (!mayBeInGit(cwd)) return undefined;
  const r = await git(
    cwd,
    [
      'rev-parse',
      '--is-inside-work-tree',
      '--show-toplevel',
      '--show-prefix',
      '--absolute-git-dir',
      '--path-format=absolute',
      '--git-common-dir',
      '--git-path',
      'index',
    ],
    { signal },
  );
  if (r.code !== 0) return undefined;
  const [inside, root, prefix, gitDir, commonDir, index] = r.stdout.toString('utf8').split('\n');
  if (inside !== 'true' || !root) return undefined;
  return {
    root,
    prefix: prefix ?? '',
    ...(gitDir ? { gitDir } : {}),
    ...(commonDir ? { commonDir } : {}),
    ...(index ? { index: resolve(cwd, index) } : {}),
  };
}

// The same with HEAD.
export async function gitPlace(cwd: string, signal?: AbortSignal): Promise<GitPlace | undefined> {
  const place = await gitRoot(cwd, signal);
  return place && { ...place, head: await gitHead(cwd, signal) };
}

// HEAD's commit id, or null when the repository has none yet.
export async function gitHead(cwd: string, signal?: AbortSignal): Promise<string | null> {
  const r = await git(cwd, ['rev-parse', '-q', '--verify', 'HEAD^{commit}'], { signal });
  return r.code === 0 ? r.stdout.toString('utf8').trim() || null : null;
}

// The filter drivers' commands in every config git reads here (the repository's, the user's, the system's,
// and the files they include): git runs a clean filter during `git status` for a file whose stat changed,
// so one the agent added or changed would run from rho-cursor's own git.
const FILTER_KEY = /^filter\..+\.(?:clean|smudge|process)$/;

/** What git's config was at the snapshot: the filter commands by key, and every file it was read from, or
 * may be (the system's, the user's, the repository's, a worktree's, and the files they include). */
export interface ConfigSeen {
  filters: Map<string, string>;
  files: string[];
  /** Each setting's last value, by its key as git lists it (section and name in lower case). */
  values: Map<string, string>;
}

// `git config --list --show-origin -z`: each setting with the file it came from. And each submodule's own
// config (`.git/modules/<name>/config`, read by the `git status` git runs in a checked-out submodule, which a
// filter there runs from): its filter commands join the same keys' (the setting that empties one empties it
// in every repository), each value tagged with the submodule's git dir, so one a submodule's config adds or
// changes is no longer what that key held.
export async function configSeen(
  cwd: string,
  place: Pick<GitPlace, 'gitDir' | 'commonDir'>,
  signal?: AbortSignal,
): Promise<ConfigSeen> {
  const list = ['--list', '--show-origin', '-z'];
  const modules = moduleGitDirs(place);
  const [r, ...own] = await Promise.all([
    git(cwd, ['config', ...list], { signal }),
    ...modules.map((d) =>
      git(cwd, ['config', '--file', join(d, 'config'), '--includes', ...list], { signal }),
    ),
  ]);
  const filters = new Map<string, string>();
  const values = new Map<string, string>();
  const files = new Set(configCandidates(place));
  const read = (out: Buffer, each: (key: string, value: string) => void): void => {
    const f = out.toString('utf8').split('\0');
    for (let i = 0; i + 1 < f.length; i += 2) {
      const origin = f[i]!;
      const entry = f[i + 1]!;
      if (origin.startsWith('file:')) files.add(resolve(cwd, origin.slice('file:'.length)));
      const nl = entry.indexOf('\n');
      const key = nl < 0 ? entry : entry.slice(0, nl);
      if (key !== '') each(key, nl < 0 ? 'true' : entry.slice(nl + 1));
    }
  };
  read(r.stdout, (key, value) => {
    values.set(key, value);
    if (FILTER_KEY.test(key)) filters.set(key, value);
  });
  own.forEach((m, i) =>
    read(m.stdout, (key, value) => {
      if (!FILTER_KEY.test(key)) return;
      const was = filters.get(key);
      filters.set(key, `${was === undefined ? '' : `${was}\0`}${modules[i]}\0${value}`);
    }),
  );
  return { filters, files: [...files], values };
}

// The config files git reads when they exist, whether or not they do now: one the agent creates counts too.
function configCandidates(place: Pick<GitPlace, 'gitDir' | 'commonDir'>): string[] {
  const env = process.env;
  const home = env.HOME ?? '';
  const xdg = env.XDG_CONFIG_HOME || join(home, '.config');
  const out = [
    env.GIT_CONFIG_SYSTEM ?? '/etc/gitconfig',
    env.GIT_CONFIG_GLOBAL ?? join(home, '.gitconfig'),
    join(xdg, 'git', 'config'),
  ];
  return [...out, ...gitDirConfigs(place)];
}

// The git dir's own files that say where git reads its config: the config, a worktree's, and `commondir`
// (which moves the config, and info/, refs and objects, elsewhere); and each submodule git dir's config.
export function gitDirConfigs(place: Pick<GitPlace, 'gitDir' | 'commonDir'>): string[] {
  const common = place.commonDir ?? place.gitDir;
  const own = place.gitDir ?? common;
  if (!common || !own) return [];
  return [
    join(common, 'config'),
    join(own, 'config.worktree'),
    join(own, 'commondir'),
    ...moduleGitDirs(place).flatMap((d) => [join(d, 'config'), join(d, 'config.worktree')]),
  ];
}

/** At most this many submodule git dirs are looked at, and this many folders read to find them. */
export const MAX_MODULES = 256;
const MAX_MODULE_FOLDERS = 4 * MAX_MODULES;

// The git dirs of the submodules (`modules/<name>` under the common dir, a name may hold `/`; a submodule's
// own submodules under its `modules/`, at any depth), absolute, in a fixed order. A folder there holding a
// `HEAD` or a `config` is one; any other folder is part of a name, and looked into. None without submodules
// (one readdir that fails).
export function moduleGitDirs(place: Pick<GitPlace, 'gitDir' | 'commonDir'>): string[] {
  const common = place.commonDir ?? place.gitDir;
  if (!common) return [];
  const found: string[] = [];
  const queue = [join(common, 'modules')];
  for (let read = 0; queue.length > 0 && read < MAX_MODULE_FOLDERS && found.length < MAX_MODULES; read++) {
    const dir = queue.shift()!;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    if (entries.some((e) => e.name === 'HEAD' || e.name === 'config')) {
      found.push(dir);
      queue.push(join(dir, 'modules'));
      continue;
    }
    // Folders only (a link to one is not followed), in name order.
    const names = entries.filter((e) => e.isDirectory()).map((e) => e.name);
    for (const n of names.sort()) queue.push(join(dir, n));
  }
  return found;
}

// The filter commands now, by key (from the same listing as configSeen's).
export async function filterCommands(
  cwd: string,
  place: Pick<GitPlace, 'gitDir' | 'commonDir'> = {},
): Promise<Map<string, string>> {
  return (await configSeen(cwd, place)).filters;
}

// Pure: an empty command (no filter) for each filter command that is not as it was, so git runs only the
// filters that were there before the turn. Settings, not `-c key=`: a filter's name may hold `=` (git-env.ts).
export function filterOverrides(
  before: ReadonlyMap<string, string>,
  now: ReadonlyMap<string, string>,
): ConfigPair[] {
  return [...now].filter(([k, v]) => before.get(k) !== v).map(([k]) => [k, ''] as const);
}

// Pure: the excludes file git reads (core.excludesFile, `~/` its owner's home; else git's default under
// XDG_CONFIG_HOME or ~/.config), from the settings and the environment; '' for none.
export function excludesPath(values: ReadonlyMap<string, string>, env: NodeJS.ProcessEnv): string {
  const home = env.HOME ?? '';
  const set = values.get('core.excludesfile');
  if (set !== undefined) return set.startsWith('~/') ? join(home, set.slice(2)) : set;
  if (env.XDG_CONFIG_HOME) return join(env.XDG_CONFIG_HOME, 'git', 'ignore');
  return home ? join(home, '.config', 'git', 'ignore') : '';
}
