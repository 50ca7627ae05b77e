// The paths a request names as the file system would reach them: a path through a symlink (`src/out/x` where
// `src/out` links outside the workspace) is judged where it lands too, so a Write(src/**) allow never vouches
// for a file outside src/, and a deny covers a file reached by another name.
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { globForm, globRoot } from './match.js';
import type { Rule, RuleSet } from './rules.js';

/** How many path components one request may have looked up (each an lstat): a bound on what an agent's
 * paths cost, whatever their number. */
export const LOOKUPS_MAX = 4096;

const UNREAD = Symbol('unread');

/** Longer paths are not looked up: the kernel refuses them too (ENAMETOOLONG). */
const PATH_MAX = 4096;

// Where a path lands as the kernel reads it, its end possibly not there yet: component by component, each
// symlink followed (a dangling one too: writing through it creates its target), `..` taken from where the
// link led. Undefined past 40 links (a loop), as the kernel gives up too; UNREAD once the request's lookups
// are spent.
function realOf(path: string, cwd: string, budget: { left: number }): string | undefined | typeof UNREAD {
  const todo = (isAbsolute(path) ? path : `${cwd}/${path}`).split('/');
  let at = '/';
  let links = 0;
  while (todo.length > 0) {
    if (--budget.left < 0) return UNREAD;
    const part = todo.shift()!;
    // Stryker disable next-line all: a shortcut: path.join of '' or '.' is where it was, and lstat of a folder finds no link
    if (part === '' || part === '.') continue;
    // Stryker disable next-line all: a shortcut too: path.join(at, '..') is dirname(at), and `at` is never a link here
    if (part === '..') {
      at = dirname(at);
      continue;
    }
    const next = join(at, part);
    let target: string | undefined;
    try {
      target = lstatSync(next).isSymbolicLink() ? readlinkSync(next) : undefined;
    } catch {
      // not there (yet): what follows is read as written
    }
    if (target === undefined) {
      at = next;
      continue;
    }
    if (++links > 40) return undefined;
    todo.unshift(...target.split('/'));
    if (isAbsolute(target)) at = '/';
  }
  return at;
}

/** What stands beside a path whose landing place was not looked up: matched by no workspace glob. */
export const NOT_LOOKED_UP = '/(not looked up) ';

// The paths and, beside each one a symlink leads elsewhere, where it lands (in the workspace's own spelling,
// relative to it, or absolute outside it). A path left unread once LOOKUPS_MAX are spent is matched by no
// workspace glob beside it (`/(not looked up) <path>`): no allow rule vouches for where it may land, and
// every deny rule may cover it (judge.ts).
export function withRealPaths(paths: readonly string[], cwd: string): string[] {
  let realCwd: string;
  try {
    realCwd = realpathSync(cwd);
  } catch {
    return [...paths];
  }
  const out = new Set(paths);
  const budget = { left: LOOKUPS_MAX };
  for (const p of paths) {
    // Too long to look up as written is not looked up either: a tool that normalises it first (`./` x 2,100
    // + `src/envlink`) still reaches where it leads (found by review).
    const real = p.length > PATH_MAX ? UNREAD : realOf(p, cwd, budget);
    if (real === undefined) continue;
    if (real === UNREAD) {
      out.add(`${NOT_LOOKED_UP}${p}`);
      continue;
    }
    const rel = relative(realCwd, real);
    const inside = rel !== '..' && !rel.startsWith('../') && !isAbsolute(rel);
    const landed = inside ? join(cwd, rel) : real;
    if (landed !== resolve(cwd, p)) out.add(landed);
  }
  return [...out];
}

// The real path of a directory that may not exist yet: its longest existing ancestor resolved, then the rest
// as written. Undefined when nothing of it can be resolved.
function realDir(path: string): string | undefined {
  const tail: string[] = [];
  for (let at = path; ; at = dirname(at)) {
    try {
      return join(realpathSync(at), ...tail);
    } catch {
      if (at === dirname(at)) return undefined;
      tail.unshift(basename(at));
    }
  }
}

// The absolute globs a Read(...) or Write(...) rule is matched by: as written (resolved against the workspace
// or the home directory), and with its leading names resolved by realpath, so `/s/wslink/.env` covers the
// `.env` of the workspace `/s/ws` that `wslink` links to (found by review); a real path inside the workspace is
// also written in the workspace's own spelling, as withRealPaths gives the paths it judges.
export function globForms(glob: string, cwd: string, home: string): string[] {
  const root = globRoot(glob, cwd, home);
  const forms = [globForm(root)];
  const real = realDir(root.prefix);
  if (real !== undefined) {
    forms.push(globForm({ prefix: real, rest: root.rest }));
    let realCwd: string;
    try {
      realCwd = realpathSync(cwd);
    } catch {
      realCwd = cwd;
    }
    const rel = relative(realCwd, real);
    if (rel !== '..' && !rel.startsWith('../') && !isAbsolute(rel))
      forms.push(globForm({ prefix: join(cwd, rel), rest: root.rest }));
  }
  return [...new Set(forms)];
}

// The run's rules with every Read(...) and Write(...) rule's forms resolved, once for a workspace: the edge
// that reads the file system, so the matcher stays pure.
export function resolvePathRules(rules: RuleSet, cwd: string, home = homedir()): RuleSet {
  const resolved = (r: Rule): Rule =>
    r.type === 'Read' || r.type === 'Write' ? { ...r, forms: globForms(r.glob, cwd, home) } : r;
  return { allow: rules.allow.map(resolved), deny: rules.deny.map(resolved) };
}
