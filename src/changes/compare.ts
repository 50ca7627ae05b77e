// Pure: how one path changed between the two looks, and the run's changes as the result reports them.
import type { FileMark } from './marks.js';

export type Change = 'added' | 'modified' | 'deleted';

/** A path before the turn: its mark, null when absent, or 'clean' for a tracked file git did not list. */
export type Was = FileMark | null | 'clean';

/** What changed in the workspace during the run (result.changes). */
export interface Changes {
  added: string[];
  modified: string[];
  deleted: string[];
  /** Changed paths no completed edit, delete or move tool call of the run named. */
  unaccounted: string[];
  /** A cap was reached: some changes may not be listed. */
  truncated: boolean;
}

// How a path changed, from whether it was there before, whether it is there now, and whether its content
// is the same (only asked when it was and is there).
export function classify(was: Was, existsNow: boolean, same: boolean): Change | undefined {
  if (was === null) return existsNow ? 'added' : undefined;
  if (!existsNow) return 'deleted';
  return was === 'clean' || !same ? 'modified' : undefined;
}

// The result's `changes` from the changed paths and the paths the run's tools account for.
export function changesOf(
  changed: readonly { path: string; change: Change }[],
  accounted: (path: string) => boolean,
  truncated: boolean,
): Changes {
  const c: Changes = { added: [], modified: [], deleted: [], unaccounted: [], truncated };
  for (const { path, change } of changed) {
    c[change].push(path);
    if (!accounted(path)) c.unaccounted.push(path);
  }
  return c;
}

/** How many paths the text line and a warning name before "and N more". */
const NAMED = 10;

// A name as a list shows it: as it is when nothing in it could read as the list's own punctuation, else in
// double quotes with `"` and `\` escaped, so a file the agent names `a.ts, -auth.ts` (or `b and 3 more`) reads
// as the one name it is. Its controls are made visible later, by the line's sink.
export function shownName(name: string): string {
  return /^[^\s,"'\\]+$/u.test(name) ? name : `"${name.replace(/["\\]/g, '\\$&')}"`;
}

// Every changed path, each with its sign (+ added, ~ modified, - deleted), in path order, shown as a list
// shows a name.
export function signedPaths(c: Changes): string[] {
  const all = [
    ...c.added.map((p) => ({ p, s: '+' })),
    ...c.modified.map((p) => ({ p, s: '~' })),
    ...c.deleted.map((p) => ({ p, s: '-' })),
  ];
  all.sort((a, b) => (a.p < b.p ? -1 : a.p > b.p ? 1 : 0));
  return all.map((x) => x.s + shownName(x.p));
}

// The first NAMED of a list's names, then "and N more" for the rest.
const some = (named: readonly string[], total: number): string =>
  named.join(', ') + (total > NAMED ? ` and ${total - NAMED} more` : '');

// Names already shown (signedPaths), shortened as above.
export const listSome = (shown: readonly string[]): string => some(shown.slice(0, NAMED), shown.length);

// Names shortened as above, each shown as shownName shows it.
export const nameSome = (names: readonly string[]): string =>
  some(names.slice(0, NAMED).map(shownName), names.length);

// Text mode's one stderr line: `changed 3 files: +new.ts, ~src/a.ts, -old.md`.
export function changesLine(c: Changes): string {
  const signed = signedPaths(c);
  const more = c.truncated ? ' (the ledger reached its cap: more may have changed)' : '';
  if (signed.length === 0) return `changed no files${more}`;
  return `changed ${signed.length} file${signed.length === 1 ? '' : 's'}: ${listSome(signed)}${more}`;
}
