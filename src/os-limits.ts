// The operating system's limits (open files, processes, memory) as named errors with a hint: a machine
// that is out of something is not a bug in rho-cursor (`internal`), and the person can act on it.
import { closeSync, openSync } from 'node:fs';
import { RhoError } from './errors.js';

/** Each limit: what ran out, and what the person can do. */
const LIMITS: Record<string, readonly [string, string]> = {
  EMFILE: [
    'too many open files in this process (EMFILE)',
    "raise the open-file limit, e.g. 'ulimit -n 4096'",
  ],
  ENFILE: ["the system's table of open files is full (ENFILE)", 'end some programs, or raise fs.file-max'],
  ENOMEM: ['out of memory (ENOMEM)', 'free some memory, or raise the memory limit of this session'],
};

/** EAGAIN means "out of processes" only where a process was being made. */
const SPAWN_LIMIT: readonly [string, string] = [
  'the system refused a new process (EAGAIN)',
  "a process limit is reached: raise 'ulimit -u' or the cgroup's pids.max, or end some processes",
];

// Pure: the os_limit error for e while `doing` something, or undefined when e is no OS limit.
export function osLimitError(e: unknown, doing: string, o: { spawn?: boolean } = {}): RhoError | undefined {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  const limit = code === 'EAGAIN' && o.spawn ? SPAWN_LIMIT : code ? LIMITS[code] : undefined;
  if (!limit) return undefined;
  return new RhoError('os_limit', `${limit[0]} while ${doing}`, { hint: limit[1], cause: e });
}

// Node's spawn gives no error code when it could not open the child's pipes (it only leaves its stdio
// unset): one more open says which file limit it met, EMFILE (this process) or ENFILE (the system).
export function pipesLimitError(doing: string): RhoError {
  try {
    closeSync(openSync('/dev/null', 'r'));
  } catch (e) {
    const named = osLimitError(e, doing);
    if (named) return named;
  }
  return osLimitError({ code: 'EMFILE' }, doing)!;
}
