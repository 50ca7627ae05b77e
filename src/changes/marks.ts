// What the ledger keeps of one file: its size, times, inode and mode (cheap, from lstat) and, while the
// snapshot's byte budget lasts, a hash of its content (so a file rewritten with the same bytes is unchanged).
import { close, constants, fstat, lstat, lstatSync, open, read, readlink, type Stats } from 'node:fs';
import { join } from 'node:path';
import { fsPath } from './names.js';
import { promisify } from 'node:util';

// The callback forms, promisified: node:fs/promises costs ~3-7 ms to load on first use, and the first use
// here falls just before the prompt is sent.
const lstatAsync = promisify(lstat);
const readlinkAsync = promisify(readlink);
const openAsync = promisify(open);
const fstatAsync = promisify(fstat);
const closeAsync = promisify(close);
const readAsync = (fd: number, buf: Buffer, at: number): Promise<number> =>
  new Promise((resolve, reject) =>
    read(fd, buf, at, buf.length - at, null, (err, n) => (err ? reject(err) : resolve(n))),
  );

/** One file as the ledger saw it. */
export interface FileMark {
  /** size, mtime, ctime, inode and mode: equal means unchanged (ctime cannot be set back by a process). */
  stat: string;
  /** The content's SHA-1 (a link's target for a symbolic link); absent past the byte budget. */
  hash?: string;
}

/** A file larger than this is compared by its stat alone. */
export const HASH_FILE_MAX_BYTES = 8 * 1024 * 1024;

/** How many bytes one snapshot hashes at most; past it files are compared by their stat alone. */
export class HashBudget {
  used = 0;
  over = false;
  constructor(readonly max: number) {}

  // Takes n bytes from the budget, or says it is spent (and remembers that it was). A file too large to hash
  // is compared by its stat, as documented, and spends nothing: that is no cap reached (found by review: one
  // 11 MB file made every run outside git say `truncated`, "more may have changed").
  take(n: number): boolean {
    if (n > HASH_FILE_MAX_BYTES) return false;
    if (this.used + n > this.max) {
      this.over = true;
      return false;
    }
    this.used += n;
    return true;
  }
}

// The stat part of a mark (times in ms with their fraction: finer than a write and a rewrite apart).
const statKey = (s: Stats): string => `${s.size}:${s.mtimeMs}:${s.ctimeMs}:${s.ino}:${s.mode}`;

/** The stat part of the mark of a folder the ledger does not look into (a walk's `sub/.git/`): that it is one. */
export const FOLDER_STAT = 'folder';

// A mark from a path's lstat: a directory is no file, except at a path that ends in `/` (a folder the walk
// did not enter), whose mark says only that a real directory (not a link to one) is there.
function markFrom(s: Stats, folder: boolean): FileMark | null {
  if (folder) return s.isDirectory() ? { stat: FOLDER_STAT } : null;
  return s.isDirectory() ? null : { stat: statKey(s) };
}

// The path to lstat: without the `/` that names a folder (lstat would follow a link to one).
const unslashed = (path: string): string => (path.endsWith('/') ? path.slice(0, -1) : path);

/** A path lstat could not answer for: neither a file nor nothing (found by review: a path longer than the
 * system takes, ENAMETOOLONG past 4,096 bytes, read as absent, so a deep file the agent rewrote was deleted). */
export interface Unmeasured {
  /** The error's code. */
  unmeasured: string;
}

// Pure: is it a path that could not be measured?
export const isUnmeasured = (m: FileMark | null | Unmeasured): m is Unmeasured =>
  m !== null && 'unmeasured' in m;

// Pure: the mark for a failed lstat: nothing there (ENOENT, or ENOTDIR: a file where a folder of the path
// was), else a path that could not be measured.
const failed = (e: unknown): null | Unmeasured => {
  const code = (e as NodeJS.ErrnoException).code ?? 'an error';
  return code === 'ENOENT' || code === 'ENOTDIR' ? null : { unmeasured: code };
};

// Pure: are two marks the same stat (both nothing there included)? One that could not be measured never is.
export function sameMark(a: FileMark | null | Unmeasured, b: FileMark | null | Unmeasured): boolean {
  if (a === null || b === null) return a === b;
  return !isUnmeasured(a) && !isUnmeasured(b) && a.stat === b.stat;
}

// The mark of a path now (its stat, no hash), null when nothing is there (a directory is no file), or
// Unmeasured.
export async function markOf(path: string): Promise<FileMark | null | Unmeasured> {
  try {
    return markFrom(await lstatAsync(fsPath(unslashed(path))), path.endsWith('/'));
  } catch (e) {
    return failed(e);
  }
}

// The same, synchronously: after the turn, thousands of lstat calls in a row cost less without promises.
export function markOfSync(path: string): FileMark | null | Unmeasured {
  try {
    return markFrom(lstatSync(fsPath(unslashed(path))), path.endsWith('/'));
  } catch (e) {
    return failed(e);
  }
}

// Adds the content hash to a mark taken before the turn, while the turn runs: the hash counts only if the
// file's stat is still the one recorded once it was read (else the file changed, and the stat says so).
export async function addHash(path: string, mark: FileMark, budget: HashBudget): Promise<void> {
  if (mark.stat === FOLDER_STAT) return;
  const size = Number(mark.stat.slice(0, mark.stat.indexOf(':')));
  if (!budget.take(size)) return;
  const link = (Number(mark.stat.split(':')[4]) & 0o170000) === 0o120000;
  // At most the recorded size is read: a file the agent grew meanwhile is no longer the one recorded.
  const hash = await hashOf(path, link, size);
  if (hash !== undefined && sameMark(await markOf(path), mark)) mark.hash = hash;
}

// The content hash of a file (a link's target for a link), or undefined when it cannot be read, is not a
// regular file (a FIFO, a socket, a device: never opened for reading, which could block for ever), or holds
// more than maxBytes (never read whole: the agent may have grown it since its size was looked at).
export async function hashOf(
  path: string,
  link: boolean,
  maxBytes = HASH_FILE_MAX_BYTES,
): Promise<string | undefined> {
  try {
    const data = link
      ? Buffer.concat([Buffer.from('link:'), await readlinkAsync(fsPath(path), { encoding: 'buffer' })])
      : await readRegular(path, maxBytes);
    if (data === undefined) return undefined;
    const { createHash } = await import('node:crypto');
    return createHash('sha1').update(data).digest('hex');
  } catch {
    return undefined;
  }
}

// A regular file's content, read without blocking on anything else (opened non-blocking, not following a
// link, then fstat), at most maxBytes of it; undefined for anything else or anything larger.
async function readRegular(path: string, maxBytes: number): Promise<Buffer | undefined> {
  const fd = await openAsync(fsPath(path), constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  try {
    const s = await fstatAsync(fd);
    if (!s.isFile() || s.size > maxBytes) return undefined;
    // One byte more than allowed tells a file that grew past it since the fstat.
    const buf = Buffer.alloc(Math.min(s.size, maxBytes) + 1);
    let at = 0;
    for (;;) {
      const n = await readAsync(fd, buf, at);
      if (n === 0) break;
      at += n;
      if (at === buf.length) return undefined;
    }
    return buf.subarray(0, at);
  } finally {
    await closeAsync(fd).catch(() => {});
  }
}

// The mode in a statKey: the file's type and permission bits.
const modeOf = (stat: string): number => Number(stat.split(':')[4]);

// Is the file unchanged? Equal stats say so at once; otherwise equal hashes do (only hashed when needed),
// with the same mode: a chmod (`+x` on a script) is a change whatever the bytes (found by review).
export async function sameContent(path: string, was: FileMark, now: FileMark): Promise<boolean> {
  if (was.stat === now.stat) return true;
  if (was.hash === undefined || modeOf(was.stat) !== modeOf(now.stat)) return false;
  const size = now.stat.slice(0, now.stat.indexOf(':'));
  if (Number(size) > HASH_FILE_MAX_BYTES) return false;
  const link = (modeOf(now.stat) & 0o170000) === 0o120000;
  return (await hashOf(path, link)) === was.hash;
}

/** How many files are looked at synchronously between two turns of the event loop. */
const BATCH = 256;

// The marks of many paths, looked at synchronously in batches that let the event loop breathe between them:
// far cheaper than one promise per file, and the agent's messages are still read while it runs. `stop` ends
// it between two batches (its reason thrown).
export async function marksOf(
  root: string,
  paths: readonly string[],
  stop?: AbortSignal,
): Promise<Map<string, FileMark | null | Unmeasured>> {
  const out = new Map<string, FileMark | null | Unmeasured>();
  for (let i = 0; i < paths.length; i += BATCH) {
    stop?.throwIfAborted();
    for (const p of paths.slice(i, i + BATCH)) out.set(p, markOfSync(join(root, p)));
    if (i + BATCH < paths.length) await new Promise((resolve) => setImmediate(resolve));
  }
  return out;
}

// Runs fn over items with at most `limit` at once (file descriptors are finite).
export async function eachLimited<T>(
  items: T[],
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
