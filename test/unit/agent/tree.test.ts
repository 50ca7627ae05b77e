// Finding an agent's processes: the parent tree (pure), and the run's mark read from /proc, which is
// read only for processes started no earlier than the agent.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  agentProcesses,
  descendantsOf,
  forkCount,
  listProcs,
  newPidsFrom,
  parseStat,
  type Proc,
} from '../../../src/agent/tree.js';

const proc = (pid: number, ppid: number, start = 0): Proc => ({ pid, ppid, pgid: pid, state: 'S', start });

describe('descendantsOf', () => {
  it('walks the whole tree below the root, not the root or its siblings', () => {
    const procs = [proc(10, 1), proc(11, 10), proc(12, 11), proc(13, 1), proc(14, 12)];
    expect(descendantsOf(10, procs).map((p) => p.pid)).toEqual([11, 12, 14]);
  });
});

describe('newPidsFrom', () => {
  it('skips the pids below the agent while too few processes started since to wrap the pid counter', () => {
    expect(newPidsFrom(1000, 50_000, 50_010, 32_768)).toBe(1000);
    expect(newPidsFrom(30_000, 50_000, 50_000 + 2_767, 32_768)).toBe(30_000);
  });

  it('reads every pid once enough processes started that the counter may have wrapped, or a count is unknown', () => {
    expect(newPidsFrom(30_000, 50_000, 50_000 + 2_768, 32_768)).toBe(0);
    expect(newPidsFrom(1000, undefined, 50_010, 32_768)).toBe(0);
    expect(newPidsFrom(1000, 50_000, undefined, 32_768)).toBe(0);
    expect(newPidsFrom(1000, 50_000, 50_010, undefined)).toBe(0);
  });
});

describe('parseStat', () => {
  it('reads a comm holding spaces and parentheses', () => {
    const fields = ['S', '7', '9', '9', '0', '-1', '0', ...Array(12).fill('0'), '4242'];
    const p = parseStat(`123 (a (b) c) ${fields.join(' ')}`);
    expect(p).toEqual({ pid: 123, ppid: 7, pgid: 9, state: 'S', start: 4242 });
  });
});

describe.skipIf(!existsSync('/proc/self/stat'))('agentProcesses and the run mark', () => {
  const started: number[] = [];
  afterEach(() => {
    for (const pid of started.splice(0)) process.kill(pid, 'SIGKILL');
  });

  it('lists from a pid on: a process started since, not one started before (this one)', async () => {
    const before = forkCount();
    const child = spawn('sleep', ['30']);
    started.push(child.pid!);
    await new Promise((r) => child.once('spawn', r));
    expect(forkCount()! - before!).toBeGreaterThan(0);
    const pids = listProcs(child.pid).map((p) => p.pid);
    expect(pids).toContain(child.pid);
    expect(pids.every((pid) => pid >= child.pid!)).toBe(true);
    expect(listProcs().map((p) => p.pid)).toContain(process.pid);
  });

  it('finds a process outside the tree by its mark, unless it started before the agent', async () => {
    const mark = `RHO_TREE_TEST=${process.pid}-${Date.now()}`;
    const child = spawn('sleep', ['30'], { env: { ...process.env, RHO_TREE_TEST: mark.split('=')[1] } });
    started.push(child.pid!);
    await new Promise((r) => child.once('spawn', r));
    const procs = listProcs();
    const own = procs.find((p) => p.pid === child.pid)!;
    // A root no process descends from: only the mark can name the child.
    const root = 0x7ffffff0;
    const pids = (since: number) => agentProcesses(root, mark, { procs, since, self: -1 }).map((p) => p.pid);
    expect(pids(own.start)).toContain(child.pid);
    expect(pids(own.start + 1)).not.toContain(child.pid);
  });
});
