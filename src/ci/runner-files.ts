// The GitHub runner's file commands: files a step appends to and the runner reads once the step is over.
// GITHUB_ENV sets variables for every later step (NODE_OPTIONS, LD_PRELOAD...), GITHUB_PATH their PATH,
// GITHUB_OUTPUT the step's outputs, GITHUB_STATE a post step's state, GITHUB_STEP_SUMMARY the job's page.
// They are rho-cursor's step's, never the agent's: the agent is started without their names, and what a
// run finds in them once the agent is gone, other than what was there before, is put back as it was.
import {
  chmodSync,
  closeSync,
  constants,
  fstatSync,
  ftruncateSync,
  lstatSync,
  openSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { FileRefused, readUntrusted } from '../files/untrusted.js';

/** The variables that name the runner's file commands. */
export const RUNNER_FILE_VARS = [
  'GITHUB_ENV',
  'GITHUB_PATH',
  'GITHUB_OUTPUT',
  'GITHUB_STATE',
  'GITHUB_STEP_SUMMARY',
] as const;

// Pure: the agent's environment, without the names of the runner's file commands.
export function withoutRunnerFiles(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (!RUNNER_FILE_VARS.some((v) => v in env)) return env;
  const out = { ...env };
  for (const v of RUNNER_FILE_VARS) delete out[v];
  return out;
}

/** One file as it was before the agent started: its bytes, or undefined when there was none. */
interface Kept {
  name: (typeof RUNNER_FILE_VARS)[number];
  path: string;
  before: Buffer | undefined;
}

/** What check() found: a runner file the agent changed, by its variable's name, and whether it was put back. */
export interface RunnerFileChange {
  name: string;
  path: string;
  restored: boolean;
}

export class RunnerFiles {
  private constructor(private readonly kept: Kept[]) {}

  // Reads each runner file named in env as it is now (a regular file, at most 1 MiB: a step's file starts
  // empty); undefined when env names none. A file that cannot be read is left out: nothing to compare.
  static watch(env: NodeJS.ProcessEnv): RunnerFiles | undefined {
    const kept: Kept[] = [];
    for (const name of RUNNER_FILE_VARS) {
      const path = env[name];
      if (!path) continue;
      try {
        kept.push({ name, path, before: readUntrusted(path, 'runnerFile') });
      } catch (e) {
        if (e instanceof FileRefused && e.refusal.reason === 'missing')
          kept.push({ name, path, before: undefined });
      }
    }
    return kept.length > 0 ? new RunnerFiles(kept) : undefined;
  }

  // Once the agent and its processes are gone: every file that is not as it was is put back (written anew
  // beside it and renamed over it, so a link the agent left there is replaced, never followed).
  check(): RunnerFileChange[] {
    const changed: RunnerFileChange[] = [];
    for (const k of this.kept) {
      if (same(k)) continue;
      changed.push({ name: k.name, path: k.path, restored: restore(k) });
    }
    return changed;
  }
}

// Is the file as it was (its bytes equal, or still absent)?
function same(k: Kept): boolean {
  let now: Buffer | undefined;
  try {
    now = readUntrusted(k.path, 'runnerFile');
  } catch (e) {
    if (e instanceof FileRefused && e.refusal.reason === 'missing') return k.before === undefined;
    return false;
  }
  return k.before !== undefined && now.equals(k.before);
}

// Puts the file back as it was; false when it could not be. A folder the agent made read-only (it is the
// runner user's, as the agent is) is given back its owner's write bit first; where no new file can be made
// beside it at all (a full disk), the file is rewritten in place, opened without following a link.
function restore(k: Kept): boolean {
  if (replace(k)) return true;
  try {
    const dir = dirname(k.path);
    const s = lstatSync(dir);
    if (s.isDirectory()) chmodSync(dir, (s.mode & 0o7777) | 0o700);
  } catch {
    // not ours to open
  }
  return replace(k) || rewrite(k);
}

function replace(k: Kept): boolean {
  try {
    if (k.before === undefined) {
      rmSync(k.path, { recursive: true, force: true });
      return true;
    }
    // Unique beside the file (this pid and the time within it), made with O_EXCL: a name already there fails
    // this try and the in-place rewrite follows. No secret is needed, so node:crypto (~3 ms of every start,
    // loaded where this module is imported) stays unloaded.
    const tmp = join(
      dirname(k.path),
      `.${basename(k.path)}.rho-${process.pid}-${process.hrtime.bigint().toString(36)}`,
    );
    writeFileSync(tmp, k.before, { flag: 'wx', mode: 0o644 });
    try {
      renameSync(tmp, k.path);
    } catch {
      // A folder the agent made there: removed, then the file takes its place.
      rmSync(k.path, { recursive: true, force: true });
      renameSync(tmp, k.path);
    }
    return isRegular(k.path);
  } catch {
    return false;
  }
}

function rewrite(k: Kept): boolean {
  try {
    const fd = openSync(k.path, constants.O_WRONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    try {
      if (!fstatSync(fd).isFile()) return false;
      ftruncateSync(fd, 0);
      if (k.before) writeSync(fd, k.before, 0, k.before.length, 0);
      return true;
    } finally {
      closeSync(fd);
    }
  } catch {
    return false;
  }
}

function isRegular(path: string): boolean {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  try {
    return fstatSync(fd).isFile();
  } finally {
    closeSync(fd);
  }
}
