// Finds every process an agent started, also those that left its process group or session (`setsid`),
// so teardown can end them all. Two marks are used, as careful supervisors do: the parent chain, and an
// environment variable the agent and everything it starts inherit (it survives reparenting to init).
import { closeSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';

export interface Proc {
  pid: number;
  ppid: number;
  pgid: number;
  state: string;
  /** Start time in clock ticks since boot: with the pid, it names one process even if the pid is reused. */
  start: number;
}

// Parses /proc/<pid>/stat ("pid (comm) S ppid pgrp session ... starttime"); comm may hold spaces and ')'.
export function parseStat(text: string): Proc | undefined {
  const close = text.lastIndexOf(')');
  if (close === -1) return undefined;
  const pid = Number(text.slice(0, text.indexOf(' ')));
  const f = text.slice(close + 2).split(' ');
  // After comm: state(0) ppid(1) pgrp(2) session(3) tty(4) tpgid(5) flags(6) minflt..cstime(7-14)
  // priority(15) nice(16) threads(17) itrealvalue(18) starttime(19).
  const proc = { pid, ppid: Number(f[1]), pgid: Number(f[2]), state: f[0] ?? '', start: Number(f[19]) };
  return Number.isInteger(proc.pid) && Number.isInteger(proc.ppid) ? proc : undefined;
}

// A zombie has exited: it needs no signal, only its parent's wait.
export const isGone = (p: Proc): boolean => p.state === 'Z' || p.state === 'X';

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

// Every process on the machine, read from /proc; empty where there is no /proc.
export function listProcs(): Proc[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const out: Proc[] = [];
  for (const e of entries) {
    const c = e.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    try {
      const p = parseStat(statText(e));
      if (p) out.push(p);
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

// Does the process carry the run's environment mark? Unreadable (another user's, or gone) counts as no.
export function carriesMark(pid: number, mark: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`).includes(mark);
  } catch {
    return false;
  }
}

// The live processes that belong to the agent: its descendants, and any process carrying the run's mark.
// `since` is the agent's own start time: a process started before it cannot carry its mark, so its
// environment is not read (reading every process's environ was most of a teardown's cost).
export function agentProcesses(
  root: number,
  mark: string,
  {
    self = process.pid,
    since = 0,
    procs = listProcs(),
  }: { self?: number; since?: number; procs?: Proc[] } = {},
): Proc[] {
  const found = new Map<number, Proc>();
  for (const p of descendantsOf(root, procs)) found.set(p.pid, p);
  for (const p of procs) {
    if (p.pid === self || p.pid === root || found.has(p.pid) || isGone(p) || p.start < since) continue;
    if (carriesMark(p.pid, mark)) found.set(p.pid, p);
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
