// The agent child: spawned without a shell in its own process group (and in a cgroup of its own where the
// machine offers one), stderr always drained, and ended with everything it started (its cgroup, its group,
// its descendants, and anything carrying the run's mark).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { AgentCgroup } from './cgroup.js';
import {
  agentProcesses,
  forkCount,
  hasProc,
  isGone,
  listProcs,
  newPidsSince,
  quietSurvey,
  readProc,
  type Proc,
} from './tree.js';
import { stderrMessage } from './stderr.js';
import { pipesLimitError } from '../os-limits.js';
import { systemClock, TIMING, type Clock } from '../lifecycle/timing.js';

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

const STDERR_TAIL_BYTES = 8192;
/** What we may have written that the agent has not read (a flood of requests it never reads the answers to
 * would otherwise be held without limit: found by review, 167 MB for 80k requests). */
export const MAX_UNREAD_BYTES = 16 * 1024 * 1024;
/** The environment variable that marks every process of one run. */
export const RUN_MARK_VAR = 'RHO_CURSOR_RUN';
/** How many rounds of survey and signal one step of the kill ladder takes at most (see signalAll). */
const SIGNAL_ROUNDS = 10;

export class AgentProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly exited: Promise<ExitInfo>;
  exitInfo: ExitInfo | undefined;
  private readonly mark: string;
  /** Processes seen belonging to the agent, kept so a parent's exit cannot hide its children from us. */
  private readonly known = new Map<number, Proc>();
  private tail = '';
  private escalate: (() => void) | undefined;
  private escalated = false;
  /** The agent's start time in clock ticks, once seen. */
  private since: number | undefined;
  /** The machine's fork count just before the agent was spawned (see newPidsFrom). */
  private readonly forksBefore: number | undefined;
  /** The agent's cgroup: every process it starts, wherever it goes; undefined where none could be made. */
  readonly cgroup: AgentCgroup | undefined;
  private markGone!: () => void;
  /** Settles once the kill ladder is done: nothing of the agent's runs any more (its cgroup may still be
   * being removed: the ledger's look need not wait for that). */
  readonly gone: Promise<void> = new Promise((resolve) => (this.markGone = resolve));

  constructor(
    command: string,
    args: string[],
    /** Where it is started: a spawn that fails for want of it says ENOENT as a missing command does. */
    readonly cwd: string,
    env: NodeJS.ProcessEnv,
  ) {
    // Unique among this machine's runs (a live pid, and the time within it); no secret, so node:crypto,
    // several ms of start-up, is not loaded for it.
    const id = `${process.pid}-${process.hrtime.bigint().toString(36)}`;
    this.mark = `${RUN_MARK_VAR}=${id}`;
    this.forksBefore = forkCount();
    // detached puts the agent in a new process group whose id is its pid, so the whole tree can be signalled.
    const start = (): ChildProcessWithoutNullStreams =>
      spawn(command, args, {
        cwd,
        env: { ...env, [RUN_MARK_VAR]: id },
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true,
      });
    let cgroup = AgentCgroup.create(env);
    if (cgroup) {
      const { value, inside } = cgroup.enclose(start);
      this.child = value;
      if (!inside) {
        cgroup.remove();
        cgroup = undefined;
      }
    } else this.child = start();
    this.cgroup = cgroup;
    // Out of file descriptors, Node leaves the pipes unset and reports the error only later: stop here.
    if (!this.child.stdin || !this.child.stdout || !this.child.stderr) {
      this.child.once('error', () => {});
      this.cgroup?.remove();
      throw pipesLimitError(`starting ${command}`);
    }
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.exitInfo = { code, signal };
        resolve(this.exitInfo);
      });
      this.child.once('error', () => {
        this.exitInfo ??= { code: null, signal: null };
        resolve(this.exitInfo);
      });
    });
    // A full stderr pipe would stall the agent: read it all the time and keep the tail for error messages.
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (s: string) => {
      this.tail =
        this.tail.length + s.length > STDERR_TAIL_BYTES * 2 ? cutToLine(this.tail + s) : this.tail + s;
    });
    this.child.stdin.on('error', () => {
      // The agent closing its stdin is reported through its exit, not as a crash here.
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  // What the agent last said on stderr that explains a failure: its message lines, not stack frames.
  stderrTail(maxChars = 300): string {
    return stderrMessage(this.tail.length > STDERR_TAIL_BYTES ? cutToLine(this.tail) : this.tail, maxChars);
  }

  // Writes one line to the agent. `bounded` (an answer to one of its requests): false, and the line dropped,
  // when it has stopped reading: more than MAX_UNREAD_BYTES of what we sent still waits in our buffer (the
  // run then fails: link.ts). Our own requests are always written, however large (a prompt's attachments).
  write(line: string, bounded = false): boolean {
    const stdin = this.child.stdin;
    if (!stdin.writable) return true;
    if (bounded && stdin.writableLength > MAX_UNREAD_BYTES) return false;
    stdin.write(line + '\n');
    return true;
  }

  // The processes that may be the agent's: those started since it, when their pids tell (see newPidsFrom).
  private listProcs(): Proc[] {
    const pid = this.child.pid;
    return listProcs(pid === undefined ? 0 : newPidsSince(pid, this.forksBefore));
  }

  // Signals the whole process group; false when nothing is left in it.
  private signalGroup(signal: NodeJS.Signals | 0): boolean {
    const pid = this.child.pid;
    if (pid === undefined) return false;
    try {
      process.kill(-pid, signal);
      return true;
    } catch {
      return false;
    }
  }

  // The agent's processes now, plus any seen before that still live (same pid and start time), so a
  // parent's exit cannot hide its children from us. Those whose mark cannot be told yet go in `undecided`.
  private survey(procs: Proc[] = this.listProcs(), undecided: Proc[] = []): Proc[] {
    const pid = this.child.pid;
    if (pid === undefined) return [];
    // The agent's start time, read once while it lives (until then every process's mark is read).
    this.since ??= procs.find((p) => p.pid === pid)?.start;
    const found = agentProcesses(pid, this.mark, { procs, since: this.since ?? 0, undecided });
    const live = new Map(found.map((p) => [p.pid, p]));
    for (const [kpid, k] of this.known) {
      if (live.has(kpid)) continue;
      const again = readProc(kpid);
      if (again && again.start === k.start && !isGone(again)) live.set(kpid, again);
      else this.known.delete(kpid);
    }
    for (const p of live.values()) this.known.set(p.pid, p);
    return [...live.values()];
  }

  // Signals the group and every process found outside it. The survey comes first: once the agent dies
  // the kernel reparents its children, and one that left the group and shed the mark is then lost. A
  // process created since the survey began, or one it could not tell, may be one it missed (a generation
  // of a process that keeps starting its successor in a new session and exiting; see quietSurvey): survey
  // and signal again, until a round in which neither happened, so such a process is followed generation by
  // generation. Bounded: SIGNAL_ROUNDS; the common case (nothing forks) is one survey.
  private signalAll(signal: NodeJS.Signals): void {
    for (let round = 0; round < SIGNAL_ROUNDS; round++) {
      const forks = forkCount();
      const undecided: Proc[] = [];
      const procs = this.survey(undefined, undecided);
      if (round === 0) {
        this.signalGroup(signal);
        this.cgroup?.signal(signal);
      }
      const groups = new Set<number>();
      for (const p of procs) {
        try {
          process.kill(p.pid, signal);
        } catch {
          // already gone
        }
        if (p.pgid !== this.child.pid && p.pgid > 1 && p.pgid !== process.pid) groups.add(p.pgid);
      }
      // An escapee's own group holds what it started since.
      for (const g of groups) {
        try {
          process.kill(-g, signal);
        } catch {
          // already gone
        }
      }
      // The cgroup holds every process the agent starts: one round reaches them all, however the machine
      // forks meanwhile (found by review: rounds repeated while other jobs forked).
      if (this.cgroup || (undecided.length === 0 && (forks === undefined || forkCount() === forks))) return;
    }
  }

  // Is anything of the agent's left alive? Zombies count as gone (where PID 1 reaps no orphans they stay),
  // unless a thread of theirs still runs (see isGone).
  alive(): boolean {
    if (this.exitInfo === undefined) return true;
    if (this.cgroup && this.cgroup.pids().length > 0) return true;
    return this.anyLeft();
  }

  // Does a survey find a process of the agent's, or one left in its group? Finding nothing counts only
  // when the survey can be trusted (see quietSurvey); one that cannot, after a few looks, counts as found.
  private anyLeft(): boolean {
    const look = (): { found: boolean[]; decided: boolean } => {
      const procs = this.listProcs();
      const undecided: Proc[] = [];
      const left = this.survey(procs, undecided).length > 0 || this.groupAlive(procs);
      return { found: left ? [true] : [], decided: undecided.length === 0 };
    };
    // With a cgroup, what left the group or the session is still in it (alive() asked it first): the forks of
    // the rest of the machine do not make an empty survey doubtful (found by review: a machine forking ~300
    // times a second made each run's end wait out the whole grace).
    const { found, sure } = this.cgroup ? quietSurvey(look, () => undefined, 1) : quietSurvey(look);
    return found.length > 0 || !sure;
  }

  // Is a live process left in the agent's group? One whose parent exited and that shed the run's mark is
  // no descendant and carries no mark: only the group still names it, and only the group signal reaches it.
  private groupAlive(procs: Proc[]): boolean {
    const pgid = this.child.pid;
    if (pgid === undefined) return false;
    // Without /proc, ask the kernel (a zombie left in the group then counts until it is reaped).
    if (procs.length === 0 && !hasProc()) return this.signalGroup(0);
    return procs.some((p) => p.pgid === pgid && !isGone(p));
  }

  // The kill ladder: SIGTERM to the group and every descendant, then SIGKILL once the grace runs out
  // while anything is left; escalate() (a signal during teardown) skips the rest of the grace.
  async terminate(graceMs = TIMING.killGraceMs, now: Clock = systemClock): Promise<void> {
    try {
      await this.ladder(graceMs, now);
    } finally {
      this.markGone();
      // Whatever is left in the cgroup ends now, and the cgroup goes with the run: after what waited for the
      // agent to be gone (the ledger's look) has started.
      await new Promise((resolve) => setImmediate(resolve));
      await this.cgroup?.release();
    }
  }

  private async ladder(graceMs: number, now: Clock): Promise<void> {
    if (this.child.pid === undefined) return;
    this.child.stdin.end();
    this.signalAll('SIGTERM');
    const deadline = now() + graceMs;
    const abort = new Promise<void>((resolve) => {
      this.escalate = resolve;
      if (this.escalated) resolve();
    });
    // Most agents exit on SIGTERM: wait for that first, then for anything else it left.
    await Promise.race([this.exited, sleep(graceMs), abort]);
    while (!this.escalated && now() < deadline) {
      if (!this.alive()) return;
      // A timer that holds the event loop: with the agent gone, it may be all that is left to wait on, and
      // an empty loop would end rho-cursor with exit code 0 in the middle of its teardown.
      await Promise.race([tick(20), abort]);
    }
    this.killNow();
    await this.exited;
    // A second look: what the agent started while it died.
    if (this.anyLeft()) this.killNow();
  }

  // Last resort (a second signal, a signal during teardown, the exit hook): SIGKILL to everything now,
  // synchronously; a ladder still in its grace stops waiting.
  killNow(): void {
    this.escalated = true;
    this.escalate?.();
    if (this.child.pid !== undefined) this.signalAll('SIGKILL');
    this.cgroup?.killAll();
  }

  // The exit hook's path: everything killed now, and the cgroup removed once the kernel has emptied it.
  killNowAndRelease(): void {
    this.killNow();
    this.markGone();
    this.cgroup?.releaseSync();
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms).unref());
const tick = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

// The last STDERR_TAIL_BYTES of stderr from the start of a line: the line the cut fell in (which may hold
// part of the key, unrecognisable once cut) is dropped whole.
function cutToLine(text: string): string {
  const end = text.slice(-STDERR_TAIL_BYTES);
  const nl = end.indexOf('\n');
  return nl === -1 ? '' : end.slice(nl + 1);
}
