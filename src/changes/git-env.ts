// Pure: the one environment every git command of rho-cursor runs in. Once the agent has run, a repository's
// config, hooks and attributes may be the agent's, and rho-cursor's own git must run nothing it wrote: no hook,
// no fsmonitor, no pager, no external diff, no filter it added, no fetch. Settings are passed as
// GIT_CONFIG_COUNT / GIT_CONFIG_KEY_n / GIT_CONFIG_VALUE_n (git 2.31+), never as `-c key=value`: git splits
// `-c` at the first `=`, so a key holding one (a filter named `x=y`: `filter.x=y.clean`) would become another
// key with the rest as its value (found by review). In the environment the key and the value are apart.

/** One config setting: its key and its value. */
export type ConfigPair = readonly [key: string, value: string];

// What no repository's config may turn on for rho-cursor's git. The command-line scope these land in outranks
// every config file (system, global, the repository's, a worktree's, and what they include).
export const NEUTRAL_CONFIG: readonly ConfigPair[] = [
  // No hook: not the agent's .git/hooks/post-index-change (run by `git add`), not a core.hooksPath it set.
  ['core.hooksPath', '/dev/null'],
  // No fsmonitor command, and no cached view of the work tree that the index's bytes (the agent's) carry.
  ['core.fsmonitor', 'false'],
  ['core.untrackedCache', 'false'],
  ['core.pager', 'cat'],
  // No `git gc --auto` (and its hooks) started on the side.
  ['gc.auto', '0'],
  ['maintenance.auto', 'false'],
  ['protocol.allow', 'never'],
];

// Environment variables that would make git run a command of their own, or look at another repository.
const DROPPED = [
  'GIT_EXTERNAL_DIFF',
  'GIT_DIFF_OPTS',
  'GIT_PAGER',
  'GIT_SSH',
  'GIT_SSH_COMMAND',
  'GIT_ASKPASS',
];

/** What a git command needs beyond the neutral environment. */
export interface GitEnvOptions {
  /** More settings, after the neutral ones (a later one wins for a key that takes one value). */
  config?: readonly ConfigPair[];
  /** Variables to set (GIT_INDEX_FILE, GIT_DIR, ...); undefined removes one. */
  vars?: Readonly<Record<string, string | undefined>>;
}

// The environment: the user's own (their GIT_CONFIG_* kept, ours appended after them), no prompt, no optional
// index write (`git status` would refresh the user's index on the side), no fetch of a missing object (a
// promisor remote the agent configured would run its upload-pack), no replace ref (which would change what a
// commit holds), C messages, and the settings above.
export function safeGitEnv(env: NodeJS.ProcessEnv, o: GitEnvOptions = {}): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  for (const k of DROPPED) delete out[k];
  const n = Math.max(0, Number.parseInt(env.GIT_CONFIG_COUNT ?? '0', 10) || 0);
  const pairs = [...NEUTRAL_CONFIG, ...(o.config ?? [])];
  pairs.forEach(([k, v], i) => {
    out[`GIT_CONFIG_KEY_${n + i}`] = k;
    out[`GIT_CONFIG_VALUE_${n + i}`] = v;
  });
  Object.assign(out, {
    GIT_CONFIG_COUNT: String(n + pairs.length),
    GIT_OPTIONAL_LOCKS: '0',
    GIT_TERMINAL_PROMPT: '0',
    GIT_NO_LAZY_FETCH: '1',
    GIT_ALLOW_PROTOCOL: 'none',
    GIT_NO_REPLACE_OBJECTS: '1',
    GIT_PAGER: 'cat',
    PAGER: 'cat',
    LC_ALL: 'C',
  });
  for (const [k, v] of Object.entries(o.vars ?? {})) {
    if (v === undefined) delete out[k];
    else out[k] = v;
  }
  return out;
}

// The options every diff rho-cursor takes passes, whatever the user's or the agent's config says: prefixes
// `a/` and `b/` (diff.noprefix, diff.mnemonicPrefix), paths from the repository's root (diff.relative), three
// lines of context (diff.context: fewer needs `git apply --unidiff-zero`), no colour, no external diff or
// textconv, no renames (diff.renames), submodules as commit ids (diff.submodule), binary content in full.
export const DIFF_ARGS: readonly string[] = [
  '--binary',
  '--src-prefix=a/',
  '--dst-prefix=b/',
  '--no-relative',
  '--no-color',
  '--no-ext-diff',
  '--no-textconv',
  '--no-renames',
  '--submodule=short',
  '--unified=3',
];
