// The fence's I/O edge: a private per-run config dir that mirrors the user's, and its release, which carries
// back what the agent wrote and removes the dir. Synchronous on purpose: the process exit hook runs it too.
import {
  chmodSync,
  copyFileSync,
  cpSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
  type Stats,
} from 'node:fs';
import { join } from 'node:path';
import { RhoError } from '../errors.js';
import { leftovers } from '../agent/tree.js';
import { tempRoot } from '../files/temp.js';

export const CONFIG_FILE = 'cli-config.json';
export const DIR_PREFIX = 'rho-cursor-fence-';
const OWNER_FILE = 'owner.json';

export interface FenceDir {
  /** The private dir, given to the agent as CURSOR_CONFIG_DIR. */
  dir: string;
  /** Carries back what the agent created or replaced, then removes the dir; idempotent. Returns what failed. */
  release(): string[];
}

// The overlay, its temp files and any `.bad` copy belong to the run, never to the user's dir.
const isRunOwn = (name: string): boolean => name.includes(CONFIG_FILE);

// Lists the user's config dir; a missing one mirrors as empty (Cursor would create it).
function entriesOf(userDir: string): string[] {
  try {
    return readdirSync(userDir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

// Creates the private dir (mode 0700): a symlink to each entry of the user's dir, so logins and settings
// are the user's own and writes inside them land there, and the generated cli-config.json as a real file.
// It sits in a 0700 run dir beside an owner.json naming the user's dir, which the agent never sees, so a
// run that was SIGKILLed can still be carried back and removed by the next one (sweepStaleFenceDirs).
export function prepareFenceDir(userDir: string, configText: string, root = tempRoot()): FenceDir {
  let runDir: string | undefined;
  try {
    runDir = mkdtempSync(join(root, `${DIR_PREFIX}${process.pid}-`));
    chmodSync(runDir, 0o700);
    writeFileSync(join(runDir, OWNER_FILE), JSON.stringify({ userDir }), { mode: 0o600 });
    const dir = join(runDir, 'config');
    mkdirSync(dir, { mode: 0o700 });
    chmodSync(dir, 0o700);
    for (const name of entriesOf(userDir)) {
      if (!isRunOwn(name)) symlinkSync(join(userDir, name), join(dir, name));
    }
    writeFileSync(join(dir, CONFIG_FILE), configText, { mode: 0o600 });
  } catch (err) {
    if (runDir) rmSync(runDir, { recursive: true, force: true });
    throw new RhoError(
      'fence_failed',
      `cannot prepare the fence's private config dir: ${(err as Error).message}`,
      { cause: err },
    );
  }
  return { dir: join(runDir, 'config'), release: releaser(runDir, userDir) };
}

// The release of one run dir: carry back, then remove; idempotent.
function releaser(runDir: string, userDir: string): () => string[] {
  let released = false;
  return () => {
    if (released) return [];
    released = true;
    const problems = carryBack(join(runDir, 'config'), userDir);
    try {
      rmSync(runDir, { recursive: true, force: true, maxRetries: 2 });
    } catch (err) {
      problems.push(`could not remove ${runDir}: ${(err as Error).message}`);
    }
    return problems;
  };
}

// Releases the run dirs that runs ended by SIGKILL left behind (their pid is gone); returns what it did.
export function sweepStaleFenceDirs(root = tempRoot()): string[] {
  const done: string[] = [];
  for (const { path: runDir, pid } of leftovers(root, DIR_PREFIX)) {
    try {
      const owner = JSON.parse(readFileSync(join(runDir, OWNER_FILE), 'utf8')) as { userDir?: unknown };
      if (typeof owner.userDir !== 'string') continue;
      done.push(...releaser(runDir, owner.userDir)(), `released ${runDir} left by pid ${pid}`);
    } catch {
      // not ours, or half made: leave it
    }
  }
  return done;
}

// Copies every entry the agent created or replaced (not one of our symlinks, not the overlay) to the user's dir.
function carryBack(dir: string, userDir: string): string[] {
  const problems: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return problems;
  }
  for (const name of names) {
    if (isRunOwn(name)) continue;
    const from = join(dir, name);
    try {
      const st = lstatSync(from);
      if (st.isSymbolicLink() && readlinkSync(from) === join(userDir, name)) continue;
      mkdirSync(userDir, { recursive: true, mode: 0o700 });
      place(from, st, join(userDir, name), join(userDir, `.${name}.rho-cursor-${process.pid}`));
    } catch (err) {
      problems.push(`could not carry ${name} back to ${userDir}: ${(err as Error).message}`);
    }
  }
  return problems;
}

// Puts one entry in place: a temp name beside it, then a rename, so the user's dir never holds half a file.
function place(from: string, st: Stats, to: string, tmp: string): void {
  try {
    if (st.isDirectory()) {
      if (isDir(to)) return void cpSync(from, to, { recursive: true, force: true, verbatimSymlinks: true });
      cpSync(from, tmp, { recursive: true, verbatimSymlinks: true });
    } else if (st.isSymbolicLink()) {
      symlinkSync(readlinkSync(from), tmp);
    } else if (!st.isFile()) {
      // A FIFO the agent left would block the copy (and the run's teardown) for ever; a device or a socket is
      // no config either: none is carried back.
      throw new Error(`${from} is not a regular file, not carried back`);
    } else {
      copyFileSync(from, tmp);
      chmodSync(tmp, st.mode & 0o7777);
    }
    renameSync(tmp, to);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
}

// Is this path a directory (following links)?
function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
