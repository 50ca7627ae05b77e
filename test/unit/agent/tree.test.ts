// Finding an agent's processes: the parent tree (pure), and the run's mark read from /proc, which is
// read only for processes started no earlier than the agent.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { agentProcesses, descendantsOf, listProcs, parseStat, type Proc } from '../../../src/agent/tree.js';

const proc = (pid: number, ppid: number, start = 0): Proc => ({ pid, ppid, pgid: pid, state: 'S', start });

describe('descendantsOf', () => {
  it('walks the whole tree below the root, not the root or its siblings', () => {
    const procs = [proc(10, 1), proc(11, 10), proc(12, 11), proc(13, 1), proc(14, 12)];
    expect(descendantsOf(10, procs).map((p) => p.pid)).toEqual([11, 12, 14]);
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
