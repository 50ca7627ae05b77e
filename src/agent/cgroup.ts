// The agent's cgroup, where the machine lets this process make one (root with a writable cgroupfs): a
// whole-tree handle no process of the agent's can leave, so teardown finds and ends every one of them, also
// one that left the session and cleared its environment. Where none can be made the run keeps to the
// process group and the /proc survey (process.ts), silently.
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cgroupChoice, cgroupPlaces, type CgroupKind } from './cgroup-find.js';
import { sleepSync } from '../lifecycle/timing.js';
import { leftovers } from './tree.js';

const PREFIX = 'rho-cursor-';

export class AgentCgroup {
  /** This process could not move back out after the spawn: it must never be killed with the agent's tree. */
  private selfInside = false;

  private constructor(
    readonly kind: CgroupKind,
    readonly dir: string,
    private readonly home: string,
  ) {}

  // Makes a cgroup for one agent, the best kind the machine offers; undefined where none can be made.
  static create(env: Record<string, string | undefined>): AgentCgroup | undefined {
    const choice = cgroupChoice(env.RHO_CURSOR_CGROUP);
    if (choice === 'off') return undefined;
    let places;
    try {
      places = cgroupPlaces(
        readFileSync('/proc/self/cgroup', 'latin1'),
        readFileSync('/proc/self/mountinfo', 'latin1'),
        choice,
      );
    } catch {
      return undefined;
    }
    for (const p of places) {
      sweep(p.dir);
      const dir = join(p.dir, `${PREFIX}${process.pid}-${process.hrtime.bigint().toString(36)}`);
      try {
        mkdirSync(dir);
      } catch {
        continue;
      }
      return new AgentCgroup(p.kind, dir, p.dir);
    }
    return undefined;
  }

  // Runs the spawn with this process inside the cgroup, then moves it back out: the child is born in the
  // cgroup (fork inherits it), so there is no moment at which the agent, or anything it starts, is outside.
  // False when this process could not enter it (the caller then drops the cgroup).
  enclose<T>(spawnIt: () => T): { value: T; inside: boolean } {
    try {
      writeFileSync(join(this.dir, 'cgroup.procs'), String(process.pid));
    } catch {
      return { value: spawnIt(), inside: false };
    }
    try {
      return { value: spawnIt(), inside: true };
    } finally {
      try {
        writeFileSync(join(this.home, 'cgroup.procs'), String(process.pid));
      } catch {
        this.selfInside = true;
      }
    }
  }

  // The live processes in the cgroup (zombies have left it), never this process.
  pids(): number[] {
    try {
      return readFileSync(join(this.dir, 'cgroup.procs'), 'latin1')
        .split('\n')
        .filter((l) => l !== '')
        .map(Number)
        .filter((p) => p !== process.pid);
    } catch {
      return [];
    }
  }

  // Sends the signal to every process in the cgroup.
  signal(signal: NodeJS.Signals): void {
    for (const pid of this.pids()) killQuietly(pid, signal);
  }

  // SIGKILL to everything in the cgroup at once where the kernel can (cgroup.kill, or frozen then killed so
  // nothing forks meanwhile), else pid by pid until none is left.
  killAll(): void {
    // Nothing to end (the usual case once the agent has exited): no freeze, which takes v1 ~15 ms.
    if (this.pids().length === 0) return;
    if (!this.selfInside && existsSync(join(this.dir, 'cgroup.kill'))) {
      if (tryWrite(join(this.dir, 'cgroup.kill'), '1')) return;
    }
    const frozen = !this.selfInside && this.freeze(true);
    for (let round = 0; round < 20; round++) {
      const pids = this.pids();
      if (pids.length === 0) break;
      for (const pid of pids) killQuietly(pid, 'SIGKILL');
      if (frozen) break;
      sleepSync(1);
    }
    if (frozen) this.freeze(false);
  }

  // Freezes (or thaws) the cgroup; true once frozen. v1's freezer.state, or v2's cgroup.freeze.
  private freeze(on: boolean): boolean {
    const v1 = this.kind === 'v1-freezer';
    const file = join(this.dir, v1 ? 'freezer.state' : 'cgroup.freeze');
    if (!tryWrite(file, v1 ? (on ? 'FROZEN' : 'THAWED') : on ? '1' : '0')) return false;
    if (!on) return true;
    for (let i = 0; i < 100; i++) {
      const state = readQuietly(v1 ? file : join(this.dir, 'cgroup.events'));
      if (v1 ? state.trim() === 'FROZEN' : /^frozen 1$/m.test(state)) return true;
      sleepSync(1);
    }
    return false;
  }

  // Removes the cgroup once it is empty; false while a process is still in it (or it cannot be removed).
  remove(): boolean {
    try {
      rmdirSync(this.dir);
      return true;
    } catch (e) {
      return (e as NodeJS.ErrnoException).code === 'ENOENT';
    }
  }

  // Kills what is left and removes the cgroup, waiting (at most waitMax ms) for the kernel to empty it.
  async release(waitMax = 1000): Promise<boolean> {
    this.killAll();
    const deadline = Date.now() + waitMax;
    while (!this.remove()) {
      if (Date.now() > deadline) return false;
      await new Promise((r) => setTimeout(r, 5));
      if (this.pids().length > 0) this.killAll();
    }
    return true;
  }

  // The exit hook's release: the same, synchronously, for a short while.
  releaseSync(): void {
    this.killAll();
    for (let i = 0; i < 50 && !this.remove(); i++) sleepSync(2);
  }
}

// The cgroups of runs whose rho-cursor died without releasing them (SIGKILL): their agents are ended and
// the cgroups removed. Only those whose owner pid is gone: a live run's cgroup is never touched.
function sweep(parent: string): void {
  for (const { path: dir } of leftovers(parent, PREFIX)) {
    const kill = join(dir, 'cgroup.kill');
    if (!(existsSync(kill) && tryWrite(kill, '1')))
      for (const pid of readQuietly(join(dir, 'cgroup.procs')).split('\n').filter(Boolean))
        killQuietly(Number(pid), 'SIGKILL');
    try {
      rmdirSync(dir);
    } catch {
      // still emptying: the next run removes it
    }
  }
}

function killQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

function tryWrite(file: string, text: string): boolean {
  try {
    writeFileSync(file, text);
    return true;
  } catch {
    return false;
  }
}

function readQuietly(file: string): string {
  try {
    return readFileSync(file, 'latin1');
  } catch {
    return '';
  }
}

/** What a run's agent gets on this machine, for doctor. */
export type TreeHandle = { kind: CgroupKind; parent: string } | { kind: 'none' };

// Tries what a run does (make a cgroup, step in and out, remove it) and says which handle that gives.
export function probeTreeHandle(env: Record<string, string | undefined>): TreeHandle {
  const cg = AgentCgroup.create(env);
  if (!cg) return { kind: 'none' };
  const { inside } = cg.enclose(() => undefined);
  cg.remove();
  return inside ? { kind: cg.kind, parent: cg.dir.slice(0, cg.dir.lastIndexOf('/')) } : { kind: 'none' };
}

// Pure: the promise each handle keeps, in words (doctor, and the README says the same).
export function treeHandleText(h: TreeHandle): string {
  if (h.kind === 'none')
    return 'process group + /proc survey (no cgroup: none can be made here, or RHO_CURSOR_CGROUP=off): a process that leaves the session and clears its environment can outlive the run';
  const name = h.kind === 'v2' ? 'cgroup v2' : `cgroup v1 ${h.kind.slice(3)}`;
  return `${name} under ${h.parent}: every process the agent starts ends with the run`;
}
