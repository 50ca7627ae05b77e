// Process checks for "nothing outlives the run" tests.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * True while `pid` is a live process. A zombie (exited, not yet reaped) counts as gone: where PID 1 does not
 * reap orphans (some containers and sandboxes), a killed grandchild stays a zombie and `kill(pid, 0)` still
 * succeeds on it.
 */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  let state: string | undefined;
  try {
    // /proc/<pid>/stat: "pid (comm) S ..."; comm may hold spaces, so read after the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    state = stat.slice(stat.lastIndexOf(')') + 2).charAt(0);
  } catch {
    state = spawnSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' })
      .stdout.trim()
      .charAt(0);
  }
  return state !== 'Z' && state !== 'X' && state !== '';
}

/** Polls until `pid` is gone (see isRunning); resolves false if it is still running after `ms`. */
export async function waitForGone(pid: number, ms = 2000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (isRunning(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return true;
}
