// Reads a file rho-cursor did not write (a config file, --attach, --prompt-file, --output-schema) within
// bounds: opened non-blocking and checked with fstat before a byte is read, so a FIFO, a device, a socket or
// a directory is refused at once instead of blocking the run or filling its memory, and read up to a cap.
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { osLimitError } from '../os-limits.js';

const MiB = 1024 * 1024;

/** The most rho-cursor reads of each kind of file it did not write. */
export const FILE_CAPS = {
  config: MiB,
  schema: MiB,
  promptFile: 10 * MiB,
  attach: 10 * MiB,
  /** A GitHub runner's file command (GITHUB_ENV...), read before and after the agent: a step's starts empty. */
  runnerFile: MiB,
} as const;

export type FileKind = keyof typeof FILE_CAPS;

/** Why a file was not read. */
export type Refusal =
  | { reason: 'missing' }
  | { reason: 'not-regular'; what: string }
  | { reason: 'too-large'; size: number; cap: number }
  | { reason: 'unreadable'; code: string };

/** Thrown by readUntrusted; the caller words it as a usage or config error naming the file. */
export class FileRefused extends Error {
  constructor(
    readonly path: string,
    readonly refusal: Refusal,
  ) {
    super(`${path} ${describeRefusal(refusal)}`);
  }
}

// Pure: what a file that is not a regular one is, in words.
export function whatItIs(
  st: Pick<Stats, 'isFIFO' | 'isCharacterDevice' | 'isBlockDevice' | 'isSocket' | 'isDirectory'>,
): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

// Pure: the refusal as the end of a sentence that starts with the file's name.
export function describeRefusal(r: Refusal): string {
  switch (r.reason) {
    case 'missing':
      return 'does not exist';
    case 'not-regular':
      return `is ${r.what}, not a regular file: rho-cursor reads only regular files here`;
    case 'too-large':
      return `is over ${fmtBytes(r.cap)} (the cap for this file), at ${fmtBytes(r.size)} or more`;
    case 'unreadable':
      return `cannot be read (${r.code})`;
  }
}

// Pure: a size as people say it (10 MiB, 1.5 MiB, 812 bytes).
export function fmtBytes(n: number): string {
  // One decimal, rounded up: a size past a cap never reads as the cap itself.
  const up = (x: number): number => Math.ceil(x * 10) / 10;
  if (n >= MiB) return `${up(n / MiB)} MiB`;
  if (n >= 1024) return `${up(n / 1024)} KiB`;
  return `${n} bytes`;
}

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;
const CHUNK = 64 * 1024;

// Opens, checks and reads the file: at most `cap` bytes of a regular file, else a FileRefused (an OS limit
// such as EMFILE is an os_limit error instead: the file is fine, the machine is not).
export function readUntrusted(path: string, kind: FileKind): Buffer {
  const cap = FILE_CAPS[kind];
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (e) {
    throw refusalOf(path, e);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new FileRefused(path, { reason: 'not-regular', what: whatItIs(st) });
    if (st.size > cap) throw new FileRefused(path, { reason: 'too-large', size: st.size, cap });
    return readCapped(fd, path, cap);
  } catch (e) {
    throw e instanceof FileRefused ? e : refusalOf(path, e);
  } finally {
    closeSync(fd);
  }
}

// Reads to the end, never past cap + 1 bytes: a file that grows while it is read is still bounded.
function readCapped(fd: number, path: string, cap: number): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const buf = Buffer.allocUnsafe(Math.min(CHUNK, cap + 1 - total));
    const n = readSync(fd, buf, 0, buf.length, null);
    if (n === 0) break;
    chunks.push(n === buf.length ? buf : buf.subarray(0, n));
    total += n;
    if (total > cap) throw new FileRefused(path, { reason: 'too-large', size: total, cap });
  }
  return Buffer.concat(chunks, total);
}

// An error from open or read as a refusal; a socket cannot be opened at all (ENXIO) and says so.
function refusalOf(path: string, e: unknown): Error {
  const code = (e as NodeJS.ErrnoException).code ?? 'EIO';
  const limit = osLimitError(e, `reading ${path}`);
  if (limit) return limit;
  if (code === 'ENOENT' || code === 'ENOTDIR') return new FileRefused(path, { reason: 'missing' });
  if (code === 'ENXIO') return new FileRefused(path, { reason: 'not-regular', what: 'a socket' });
  if (code === 'EISDIR') return new FileRefused(path, { reason: 'not-regular', what: 'a directory' });
  return new FileRefused(path, { reason: 'unreadable', code });
}
