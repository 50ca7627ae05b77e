// The agent child: spawned without a shell in its own process group, stderr always drained, killed as a group.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

const STDERR_TAIL_BYTES = 4096;

export class AgentProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly exited: Promise<ExitInfo>;
  exitInfo: ExitInfo | undefined;
  private tail = '';

  constructor(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv) {
    // detached puts the agent in a new process group whose id is its pid, so the whole tree can be signalled.
    this.child = spawn(command, args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
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
      this.tail = (this.tail + s).slice(-STDERR_TAIL_BYTES);
    });
    this.child.stdin.on('error', () => {
      // The agent closing its stdin is reported through its exit, not as a crash here.
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  // The last lines the agent wrote to stderr, trimmed for a one-line error message.
  stderrTail(maxChars = 300): string {
    const lines = this.tail.trim().split('\n').filter(Boolean);
    const last = lines.slice(-3).join(' | ');
    return last.length > maxChars ? '…' + last.slice(-maxChars) : last;
  }

  write(line: string): void {
    if (this.child.stdin.writable) this.child.stdin.write(line + '\n');
  }

  // Signals the whole process group; false when nothing is left in it.
  signalGroup(signal: NodeJS.Signals | 0): boolean {
    const pid = this.child.pid;
    if (pid === undefined) return false;
    try {
      process.kill(-pid, signal);
      return true;
    } catch {
      return false;
    }
  }

  // Is anything but a zombie left in the group? Where PID 1 reaps no orphans, killed grandchildren stay zombies.
  groupAlive(): boolean {
    const pid = this.child.pid;
    if (pid === undefined || !this.signalGroup(0)) return false;
    let entries: string[];
    try {
      entries = readdirSync('/proc');
    } catch {
      return true;
    }
    for (const e of entries) {
      if (e.charCodeAt(0) < 48 || e.charCodeAt(0) > 57) continue;
      try {
        const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
        // "pid (comm) S ppid pgrp ...": comm may hold spaces, so read after the last ')'.
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        if (Number(fields[2]) === pid && fields[0] !== 'Z' && fields[0] !== 'X') return true;
      } catch {
        // the process ended while we looked
      }
    }
    return false;
  }

  // The kill ladder: SIGTERM to the group, then SIGKILL once the grace runs out while anything is still in it.
  async terminate(graceMs = 2000): Promise<void> {
    if (this.child.pid === undefined) return;
    this.child.stdin.end();
    this.signalGroup('SIGTERM');
    const deadline = Date.now() + graceMs;
    // Most agents exit on SIGTERM: wait for that first, then for anything else left in the group.
    await Promise.race([this.exited, new Promise((r) => setTimeout(r, graceMs).unref())]);
    while (Date.now() < deadline) {
      if (this.exitInfo && !this.groupAlive()) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    this.signalGroup('SIGKILL');
    await this.exited;
  }

  // Last resort when rho-cursor itself is going down: synchronous, no waiting.
  killNow(): void {
    this.signalGroup('SIGKILL');
  }
}
