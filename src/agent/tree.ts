// Finds every process an agent started, also those that left its process group or session (`setsid`),
// so teardown can end them all. Two marks are used, as careful supervisors do: the parent chain, and an
// environment variable the agent and everything it starts inherit (it survives reparenting to init).
import { closeSync, lstatSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';

export interface Proc {
  pid: number;
  ppid: number;
  pgid: number;
  state: string;
  /** Start time in clock ticks since boot: with the pid, it names one process even if the pid is reused. */
  start: number;
  /** Its threads still running (num_threads). */
  threads: number;
}

// Parses /proc/<pid>/stat ("pid (comm) S ppid pgrp session ... starttime"); comm may hold spaces and ')'.
export function parseStat(text: string): Proc | undefined {
  const close = text.lastIndexOf(')');
  if (close === -1) return undefined;
  const pid = Number(text.slice(0, text.indexOf(' ')));
  const f = text.slice(close + 2).split(' ');
  // After comm: state(0) ppid(1) pgrp(2) session(3) tty(4) tpgid(5) flags(6) minflt..cstime(7-14)
  // priority(15) nice(16) threads(17) itrealvalue(18) starttime(19).
  const proc = {
    pid,
    ppid: Number(f[1]),
    pgid: Number(f[2]),
    state: f[0] ?? '',
    start: Number(f[19]),
    threads: Number(f[17]),
  };
  return Number.isInteger(proc.pid) && Number.isInteger(proc.ppid) ? proc : undefined;
}

const PF_KTHREAD = 0x200000;

// Pure: does /proc/<pid>/stat show a process whose environment is empty for good: a kernel thread (none),
// or one whose image has an environment area with nothing in it (env -i: env_start = env_end, not 0)?
// Not one in the middle of an exec, whose new image has no environment area yet (env_end 0).
export function emptyForGood(text: string): boolean {
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // After comm: flags(6) ... env_start(47) env_end(48) (Linux 3.5 on).
  if ((Number(f[6]) & PF_KTHREAD) !== 0) return true;
  return f[48] !== undefined && f[48] !== '0' && f[47] === f[48];
}

// A zombie has exited: it needs no signal, only its parent's wait. But a process whose main thread ended
// (pthread_exit) while another runs shows Z too, and its threads still run and write (found by review):
// that one is not gone, and SIGKILL to its pid ends the whole thread group.
export const isGone = (p: Proc): boolean => (p.state === 'Z' && !(p.threads > 1)) || p.state === 'X';

// Pure: the processes below root in the parent tree (root itself excluded).
export function descendantsOf(root: number, procs: readonly Proc[]): Proc[] {
  const children = new Map<number, Proc[]>();
  for (const p of procs) {
    const list = children.get(p.ppid);
    if (list) list.push(p);
    else children.set(p.ppid, [p]);
  }
  const out: Proc[] = [];
  const queue = [root];
  const seen = new Set<number>([root]);
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      if (seen.has(child.pid)) continue;
      seen.add(child.pid);
      out.push(child);
      queue.push(child.pid);
    }
  }
  return out;
}

const STAT_BUFFER = Buffer.alloc(4096); // a stat line is at most ~1.1 KB

// /proc/<pid>/stat in one read: open, read, close. readFileSync costs four times as much on these files
// (it probes their size, which /proc gives as 0, then reads until a second read finds the end).
function statText(pid: number | string): string {
  const fd = openSync(`/proc/${pid}/stat`, 'r');
  try {
    return STAT_BUFFER.toString('latin1', 0, readSync(fd, STAT_BUFFER, 0, STAT_BUFFER.length, 0));
  } finally {
    closeSync(fd);
  }
}

// The processes on the machine with a pid of at least minPid, read from /proc; empty where there is no
// /proc. minPid (see newPidsFrom) skips the processes that cannot have started after the agent.
export function listProcs(minPid = 0): Proc[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const out: Proc[] = [];
  for (const e of entries) {
    const c = e.charCodeAt(0);
    if (c < 48 || c > 57 || (minPid > 0 && Number(e) < minPid)) continue;
    try {
      const p = parseStat(statText(e));
      if (p) out.push(p);
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

// Is a process of that pid still there? (EPERM: it is, and someone else's.) The sweeps of what a SIGKILLed
// run left behind (its cgroup, its fence dir, its worktree) ask this of the pid in the leftover's name.
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** What a run ended by SIGKILL left behind: a directory named after its pid. */
export interface Leftover {
  /** The directory's path. */
  path: string;
  /** The pid of the run that made it (gone now). */
  pid: number;
}

// The directories in root named `<prefix><pid>-…` whose run is gone: not this process, no live process of
// that pid, and owned by this user (another user's are never touched). Empty where root cannot be read.
export function leftovers(root: string, prefix: string): Leftover[] {
  let names: string[];
  try {
    names = readdirSync(root).filter((n) => n.startsWith(prefix));
  } catch {
    return [];
  }
  const found: Leftover[] = [];
  for (const name of names) {
    const pid = Number(name.slice(prefix.length).split('-')[0]);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || processExists(pid)) continue;
    const path = join(root, name);
    try {
      if (lstatSync(path).uid === process.getuid?.()) found.push({ path, pid });
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

// Is there a /proc to read (Linux)? An empty listing means nothing matched only where there is one.
let procReadable: boolean | undefined;
export function hasProc(): boolean {
  if (procReadable === undefined) {
    try {
      readFileSync('/proc/self/stat');
      procReadable = true;
    } catch {
      procReadable = false;
    }
  }
  return procReadable;
}

// How many processes and threads the machine has started since boot (/proc/stat's `processes`); undefined
// where it cannot be read.
export function forkCount(): number | undefined {
  try {
    const m = /^processes (\d+)$/m.exec(readFileSync('/proc/stat', 'latin1'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** How many times a survey that found nothing is taken while processes were created during each. */
export const SURVEY_LOOKS = 5;

// A survey is a snapshot: a process that keeps starting its successor and exiting (each generation in a new
// session) slips through one, the generation it lists gone before it is read and the next born after the
// listing (found by review). So one that found nothing is trusted only if no process was created on the
// machine while it ran (the fork count the same before and after: then every process there at its end was
// there at its start, and was read) and it could tell every process's mark (`look` gives undefined when
// one was in the middle of an exec). Otherwise it is taken again, up to `looks` times; `sure` is false when
// none could be trusted. Where the count cannot be read, a survey is trusted as before.
export function quietSurvey<T>(
  look: () => { found: T[]; decided: boolean },
  forks: () => number | undefined = forkCount,
  looks = SURVEY_LOOKS,
): { found: T[]; sure: boolean } {
  for (let i = 0; i < looks; i++) {
    const before = forks();
    const { found, decided } = look();
    if (found.length > 0) return { found, sure: true };
    if (decided && (before === undefined || forks() === before)) return { found, sure: true };
  }
  return { found: [], sure: false };
}

// The highest pid the kernel hands out before it wraps around (/proc/sys/kernel/pid_max).
function pidMax(): number | undefined {
  try {
    const n = Number(readFileSync('/proc/sys/kernel/pid_max', 'latin1').trim());
    return Number.isInteger(n) && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}

// Pure: the least pid a process started after `root` can have, or 0 when any pid can. The kernel hands out
// pids in increasing order and wraps only at pid_max, so fewer than pid_max - root starts (each one a fork
// counted in /proc/stat, threads included) since just before root's own cannot have wrapped: every process
// started since has a pid above root's. Reading only those is the difference between a handful of /proc
// files and every process on the machine.
export function newPidsFrom(root: number, forksBefore?: number, forksNow?: number, max?: number): number {
  if (forksBefore === undefined || forksNow === undefined || max === undefined) return 0;
  return forksNow - forksBefore < max - root ? root : 0;
}

// newPidsFrom with the machine's own counts now.
export function newPidsSince(root: number, forksBefore: number | undefined): number {
  return newPidsFrom(root, forksBefore, forkCount(), pidMax());
}

// Does the process carry the run's environment mark? Unreadable (another user's, or gone) counts as no.
// A process whose main thread ended (see isGone) has no environ of its own any more: its live threads do.
// Undefined: it cannot tell yet, the process is in the middle of an exec (its environ reads empty until the
// new image's is set up; a process that keeps starting its successor was missed so, found by review).
export function carriesMark(p: Proc, mark: string): boolean | undefined {
  try {
    const env = readFileSync(`/proc/${p.pid}/environ`);
    if (env.length > 0) return env.includes(mark);
    // Read after the environ: an exec that began before it has its new image's environment area by now.
    return emptyForGood(statText(p.pid)) ? false : undefined;
  } catch {
    try {
      return readdirSync(`/proc/${p.pid}/task`).some(
        (tid) => tid !== String(p.pid) && readFileSync(`/proc/${p.pid}/task/${tid}/environ`).includes(mark),
      );
    } catch {
      return false;
    }
  }
}

// The live processes that belong to the agent: its descendants, and any process carrying the run's mark.
// `since` is the agent's own start time: a process started before it cannot carry its mark, so its
// environment is not read (reading every process's environ was most of a teardown's cost). Those whose mark
// cannot be told yet (see carriesMark) go into `undecided`.
export function agentProcesses(
  root: number,
  mark: string,
  {
    self = process.pid,
    since = 0,
    procs = listProcs(),
    undecided = [],
  }: { self?: number; since?: number; procs?: Proc[]; undecided?: Proc[] } = {},
): Proc[] {
  const found = new Map<number, Proc>();
  for (const p of descendantsOf(root, procs)) found.set(p.pid, p);
  for (const p of procs) {
    if (p.pid === self || p.pid === root || found.has(p.pid) || isGone(p) || p.start < since) continue;
    const marked = carriesMark(p, mark);
    if (marked) found.set(p.pid, p);
    else if (marked === undefined) undecided.push(p);
  }
  return [...found.values()].filter((p) => !isGone(p));
}

// One process's state now, or undefined once it is gone.
export function readProc(pid: number): Proc | undefined {
  try {
    return parseStat(statText(pid));
  } catch {
    return undefined;
  }
}
