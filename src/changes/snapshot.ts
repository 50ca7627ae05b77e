// The ledger's two looks at the workspace: before the prompt (a snapshot) and after the turn (what changed).
// In a git work tree, what `git status` lists (untracked files included) plus a hash of each; outside git, a
// capped walk. The comparison reads only what may have changed: stats first, hashes only where they differ.
import { join } from 'node:path';
import { classify, type Change, type Was } from './compare.js';
import { git, gitHead, gitPlace, parseStatus, type GitPlace } from './git.js';
import { eachLimited, HashBudget, markOf, sameContent, type FileMark } from './marks.js';
import { walkFiles } from './walk.js';

/** At most this many files are looked at (walked outside git, listed by git status in it). */
export const MAX_FILES = 20_000;
/** At most this many bytes are hashed for one snapshot; past it, files are compared by their stat. */
export const MAX_HASH_BYTES = 64 * 1024 * 1024;
/** Files read at once. */
const CONCURRENCY = 32;

export interface Snapshot {
  root: string;
  /** Where the workspace sits in git; undefined outside a work tree (a walk). */
  git: GitPlace | undefined;
  /** Each file looked at, relative to the workspace, and its mark (null: listed by git, but absent). */
  files: Map<string, FileMark | null>;
  /** A cap (files or hashed bytes) was reached: changes past it may go unseen. */
  truncated: boolean;
}

/** One changed path and how it changed. */
export interface Changed {
  path: string;
  change: Change;
}

// The workspace before the prompt.
export async function takeSnapshot(root: string): Promise<Snapshot> {
  const place = await gitPlace(root);
  const budget = new HashBudget(MAX_HASH_BYTES);
  const listed = place ? await gitListed(root, place) : await walkFiles(root, MAX_FILES);
  const files = new Map<string, FileMark | null>();
  const paths = place ? [...(listed as Map<string, string>).keys()] : (listed as { files: string[] }).files;
  const capped = paths.slice(0, MAX_FILES);
  await eachLimited(capped, CONCURRENCY, async (p) => {
    files.set(p, await markOf(join(root, p), budget));
  });
  const walkedOver = !place && (listed as { truncated: boolean }).truncated;
  return { root, git: place, files, truncated: walkedOver || paths.length > MAX_FILES || budget.over };
}

// What git status lists under the workspace: workspace-relative path -> its two status letters.
async function gitListed(root: string, place: GitPlace): Promise<Map<string, string>> {
  const r = await git(root, [
    'status',
    '--porcelain',
    '-z',
    '--untracked-files=all',
    '--no-renames',
    '--',
    '.',
  ]);
  const out = new Map<string, string>();
  if (r.code !== 0) return out;
  for (const e of parseStatus(r.stdout.toString('utf8'))) {
    if (!e.path.startsWith(place.prefix) || e.path.endsWith('/')) continue;
    out.set(e.path.slice(place.prefix.length), e.x + e.y);
  }
  return out;
}

// Paths changed between two commits under the workspace (the agent committed, or checked out another),
// with whether each existed at the first.
async function committed(root: string, place: GitPlace, head: string | null): Promise<Map<string, boolean>> {
  const out = new Map<string, boolean>();
  if (head === place.head || !place.head || !head) return out;
  const r = await git(root, ['diff', '--name-status', '-z', '--no-renames', place.head, head, '--', '.']);
  const f = r.stdout.toString('utf8').split('\0');
  for (let i = 0; i + 1 < f.length; i += 2) {
    const path = f[i + 1]!;
    if (path.startsWith(place.prefix)) out.set(path.slice(place.prefix.length), f[i] !== 'A');
  }
  return out;
}

// What changed since the snapshot, sorted by path; and whether a cap kept part of it from being seen.
export async function changesSince(before: Snapshot): Promise<{ changed: Changed[]; truncated: boolean }> {
  const { root } = before;
  const was = new Map<string, Was>();
  let truncated = before.truncated;
  for (const [p, m] of before.files) was.set(p, m);
  if (before.git) {
    const [listed, head] = await Promise.all([gitListed(root, before.git), gitHead(root)]);
    for (const [p, existed] of await committed(root, before.git, head))
      if (!was.has(p)) was.set(p, existed ? 'clean' : null);
    let n = was.size;
    for (const [p, xy] of listed) {
      if (was.has(p)) continue;
      if (++n > MAX_FILES) {
        truncated = true;
        break;
      }
      // Not listed before: a tracked file that was clean then, or a file that did not exist.
      was.set(p, xy === '??' || xy[0] === 'A' ? null : 'clean');
    }
  } else {
    const now = await walkFiles(root, MAX_FILES);
    truncated ||= now.truncated;
    // Past the first walk's cap a file may have been there all along: only a full first walk tells new ones.
    if (!before.truncated) for (const p of now.files) if (!was.has(p)) was.set(p, null);
  }
  const changed: Changed[] = [];
  await eachLimited([...was.entries()], CONCURRENCY, async ([path, w]) => {
    const now = await markOf(join(root, path));
    const same = w !== null && w !== 'clean' && now !== null && (await sameContent(join(root, path), w, now));
    const change = classify(w, now !== null, same);
    if (change) changed.push({ path, change });
  });
  changed.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { changed, truncated };
}
