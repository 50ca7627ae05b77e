// Finding an agent's processes: the parent tree (pure), and the run's mark read from /proc, which is
// read only for processes started no earlier than the agent.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  agentProcesses,
  carriesMark,
  descendantsOf,
  emptyForGood,
  forkCount,
  isGone,
  listProcs,
  newPidsFrom,
  parseStat,
  quietSurvey,
  type Proc,
} from '../../../src/agent/tree.js';

const tick = () => new Promise((r) => setTimeout(r, 5));
const proc = (pid: number, ppid: number, start = 0): Proc => ({
  pid,
  ppid,
  pgid: pid,
  state: 'S',
  start,
  threads: 1,
});

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
    const fields = ['S', '7', '9', '9', '0', '-1', '0', ...Array(10).fill('0'), '3', '0', '4242'];
    const p = parseStat(`123 (a (b) c) ${fields.join(' ')}`);
    expect(p).toEqual({ pid: 123, ppid: 7, pgid: 9, state: 'S', start: 4242, threads: 3 });
  });
});

describe('isGone', () => {
  const as = (state: string, threads: number): Proc => ({ ...proc(5, 1), state, threads });

  it('a zombie whose threads are all done is gone, and so is a dead one', () => {
    expect(isGone(as('Z', 1))).toBe(true);
    expect(isGone(as('Z', 0))).toBe(true);
    expect(isGone(as('X', 0))).toBe(true);
    expect(isGone(as('S', 1))).toBe(false);
  });

  it('a zombie leader whose main thread ended (pthread_exit) while another runs is not (found by review)', () => {
    expect(isGone(as('Z', 2))).toBe(false);
  });

  it("the survey keeps a zombie leader with a live thread among the agent's processes", () => {
    const procs = [proc(10, 1), { ...proc(11, 10), state: 'Z', threads: 2 }, { ...proc(12, 10), state: 'Z' }];
    expect(agentProcesses(10, 'RHO_NO_MARK=x', { procs, since: 1e12 }).map((p) => p.pid)).toEqual([11]);
  });
});

describe('emptyForGood', () => {
  // A stat line with the given flags and env_start, env_end (fields 9, 50 and 51).
  const stat = (flags: number, envStart: number, envEnd: number): string => {
    const f = Array<string>(49).fill('0');
    f[0] = 'S';
    f[6] = String(flags);
    f[47] = String(envStart);
    f[48] = String(envEnd);
    return `77 (sh) ${f.join(' ')}`;
  };

  it('an environment area with nothing in it (env -i), or a kernel thread: no mark, for good', () => {
    expect(emptyForGood(stat(0x400000, 140_730_632_716_269, 140_730_632_716_269))).toBe(true);
    expect(emptyForGood(stat(0x200040, 0, 0))).toBe(true);
  });

  it('no environment area yet (in the middle of an exec), or one with something in it: not told', () => {
    expect(emptyForGood(stat(0x400000, 0, 0))).toBe(false);
    expect(emptyForGood(stat(0x400000, 140_735_722_187_660, 140_735_722_188_778))).toBe(false);
    // A kernel without the fields (before 3.5).
    expect(emptyForGood('77 (sh) S 1 77 77')).toBe(false);
  });
});

describe('quietSurvey', () => {
  // A fork count that grows by `step` at each read.
  const counter = (step: number) => {
    let n = 100;
    return () => (n += step);
  };
  const looks = (results: Array<{ found: number[]; decided: boolean }>) => {
    let i = 0;
    const look = () => results[Math.min(i++, results.length - 1)]!;
    return { look, taken: () => i };
  };

  it('one look when nothing was created during it, whatever it found', () => {
    const empty = looks([{ found: [], decided: true }]);
    expect(quietSurvey(empty.look, counter(0))).toEqual({ found: [], sure: true });
    expect(empty.taken()).toBe(1);
    const some = looks([{ found: [7], decided: true }]);
    expect(quietSurvey(some.look, counter(1))).toEqual({ found: [7], sure: true });
    expect(some.taken()).toBe(1);
  });

  it('nothing found while a process was created is looked at again: the next look finds the successor', () => {
    const l = looks([
      { found: [], decided: true },
      { found: [8], decided: true },
    ]);
    expect(quietSurvey(l.look, counter(1))).toEqual({ found: [8], sure: true });
    expect(l.taken()).toBe(2);
  });

  it('nothing found with a mark it could not tell (a process in an exec) is looked at again', () => {
    const l = looks([
      { found: [], decided: false },
      { found: [], decided: true },
    ]);
    expect(quietSurvey(l.look, counter(0))).toEqual({ found: [], sure: true });
    expect(l.taken()).toBe(2);
  });

  it('bounded: nothing found while processes kept being created is not sure', () => {
    const l = looks([{ found: [], decided: true }]);
    expect(quietSurvey(l.look, counter(1), 4)).toEqual({ found: [], sure: false });
    expect(l.taken()).toBe(4);
  });

  it('where the fork count cannot be read, one look is trusted as before', () => {
    const l = looks([{ found: [], decided: true }]);
    expect(quietSurvey(l.look, () => undefined)).toEqual({ found: [], sure: true });
    expect(l.taken()).toBe(1);
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

  it('a process with an empty environment (env -i) is told apart: no mark, and the survey is not left undecided', async () => {
    const child = spawn('sleep', ['30'], { env: {} });
    started.push(child.pid!);
    await new Promise((r) => child.once('spawn', r));
    // Until its exec is done it may still show node's environment: wait for the new image.
    while (!readFileSync(`/proc/${child.pid}/cmdline`, 'latin1').startsWith('sleep')) await tick();
    const own = listProcs(child.pid).find((p) => p.pid === child.pid)!;
    expect(carriesMark(own, 'RHO_TREE_TEST=x')).toBe(false);
    const undecided: Proc[] = [];
    agentProcesses(0x7ffffff0, 'RHO_TREE_TEST=x', { procs: [own], self: -1, undecided });
    expect(undecided).toEqual([]);
  });
});
