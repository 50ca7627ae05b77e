// The workspace outside git: a capped walk (`.git` and `node_modules` not entered, but listed), files only, in a
// fixed order, so the walk before the turn and the walk after it see the same files when both stop at the cap.
import { readdir } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { decodeName, fsPath } from './names.js';

// The callback form: node:fs/promises (and the readline and watch modules it loads) cost ~8 ms of CPU on
// first use, in every run whose workspace is not in git.
const readdirAsync = promisify(readdir);

/** Directories no walk enters, at any depth. */
export const WALK_SKIPPED = ['.git', 'node_modules'] as const;
const SKIPPED: ReadonlySet<string> = new Set(WALK_SKIPPED);

/** The files found (paths relative to the root, `/`-separated) and whether the cap stopped the walk. */
export interface Walked {
  /** The files, and the folders not entered (WALK_SKIPPED), each of those ending in `/`. */
  files: string[];
  truncated: boolean;
  /** How many folders were read. */
  folders: number;
  /** The folders that could not be read (permission denied), relative to the root. */
  unreadable?: string[];
  /** The folders that could not be read for another reason than that or their absence (a path longer than
   * the system takes, ENAMETOOLONG), each with the error's code: `deep/dir (ENAMETOOLONG)`. */
  unmeasured?: string[];
}

// Lists the files (and links, and anything else that is not a directory) under root, at most maxFiles, from
// at most maxFolders folders: a tree of folders with no file in them (300,000 empty ones took 26 s to walk)
// is as capped as one of files. A folder not entered is listed itself (`sub/.git/`): what it holds is not
// looked at, but a new one is never nothing (found by review: a `git init` in a new folder, or a new folder
// holding only node_modules, listed no file at all).
// `stop` ends the walk between two folders (its reason thrown).
export async function walkFiles(
  root: string,
  maxFiles: number,
  maxFolders = Math.max(64, Math.floor(maxFiles / 2)),
  stop?: AbortSignal,
): Promise<Walked> {
  const files: string[] = [];
  const dirs: string[] = [''];
  const unreadable: string[] = [];
  const unmeasured: string[] = [];
  let folders = 0;
  const done = (truncated: boolean): Walked => ({
    files,
    truncated,
    folders,
    ...(unreadable.length > 0 ? { unreadable } : {}),
    ...(unmeasured.length > 0 ? { unmeasured } : {}),
  });
  while (dirs.length > 0) {
    stop?.throwIfAborted();
    if (folders === maxFolders) return done(true);
    folders++;
    const rel = dirs.pop()!;
    let names: { name: string; dir: boolean }[];
    try {
      const dir = fsPath(rel === '' ? root : join(root, rel));
      const entries = await readdirAsync(dir, { withFileTypes: true });
      names = entries.map((d) => ({ name: d.name, dir: d.isDirectory() }));
      // A name that is not UTF-8 reads as U+FFFD, a name no file has: that folder is read again as bytes, so
      // the file is still one the ledger sees (names.ts).
      if (names.some((n) => n.name.includes('\ufffd')))
        names = (await readdirAsync(dir, { withFileTypes: true, encoding: 'buffer' })).map((d) => ({
          name: decodeName(d.name),
          dir: d.isDirectory(),
        }));
    } catch (e) {
      // Gone meanwhile: nothing to see. Unreadable (an agent's `chmod 000`, for anyone but root): said so. Any
      // other error (a path past the system's length, found by review: its files went unseen) too.
      const code = (e as NodeJS.ErrnoException).code ?? 'an error';
      if (code === 'EACCES' || code === 'EPERM') unreadable.push(rel);
      else if (code !== 'ENOENT' && code !== 'ENOTDIR') unmeasured.push(`${rel} (${code})`);
      continue;
    }
    names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const sub: string[] = [];
    for (const n of names) {
      const path = rel === '' ? n.name : `${rel}/${n.name}`;
      if (n.dir && !SKIPPED.has(n.name)) sub.push(path);
      else {
        if (files.length >= maxFiles) return done(true);
        files.push(n.dir ? `${path}/` : path);
      }
    }
    // Depth first, in name order: pushed in reverse so the first name is walked first.
    for (let i = sub.length - 1; i >= 0; i--) dirs.push(sub[i]!);
  }
  return done(false);
}
