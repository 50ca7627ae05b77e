// Runs one process and measures it: wall time, its own peak RSS (VmHWM, not its children's), CPU,
// and a cheap count of its stdout lines; then checks that no agent it spawned outlived it.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const TAIL_BYTES = 64 * 1024;
const USER_HZ = 100; // /proc clock ticks per second on Linux

// Reads a process's peak resident set (VmHWM, KiB) and CPU time (user + sys, ms) from /proc;
// null once it is gone. The last sample misses at most one poll interval of CPU.
function sample(pid) {
  try {
    const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cpuMs = (Number(fields[11]) + Number(fields[12])) * (1000 / USER_HZ);
    return hwm ? { rssKiB: Number(hwm[1]), cpuMs } : null;
  } catch {
    return null;
  }
}

// Keeps the last TAIL_BYTES of a stream and counts its newlines without decoding it.
function tailCounter(stream) {
  const acc = { lines: 0, bytes: 0, tail: Buffer.alloc(0) };
  stream.on('data', (buf) => {
    acc.bytes += buf.length;
    for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, i + 1)) acc.lines++;
    acc.tail = Buffer.concat([acc.tail, buf.subarray(-TAIL_BYTES)]).subarray(-TAIL_BYTES);
  });
  return acc;
}

// Lists live (non-zombie) processes started with this run's BENCH_TAG in their environment: the fake
// agent and its child, once the measured client has exited.
export function agentsTagged(tag) {
  const found = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (!readFileSync(`/proc/${name}/environ`, 'utf8').split('\0').includes(`BENCH_TAG=${tag}`)) continue;
      if (/^State:\s+Z/m.test(readFileSync(`/proc/${name}/status`, 'utf8'))) continue;
      found.push(Number(name));
    } catch {
      // exited while we looked
    }
  }
  return found;
}

// Waits up to graceMs for tagged agents to go, then SIGKILLs any left (by pid) and returns them.
async function reapLeftovers(tag, graceMs = 500) {
  let left = agentsTagged(tag);
  for (let waited = 0; left.length > 0 && waited < graceMs; waited += 20) {
    await sleep(20);
    left = agentsTagged(tag);
  }
  for (const pid of left) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  return left;
}

let runSeq = 0;
const TRACE_DIR = mkdtempSync(join(tmpdir(), 'rho-bench-trace-'));
process.on('exit', () => rmSync(TRACE_DIR, { recursive: true, force: true }));
const epochMs = () => performance.timeOrigin + performance.now();

// Reads the fake agent's trace: when it started and when it sent the stopReason, relative to launch
// and exit. Tells a client's start-up (before it spawns the agent) from its teardown (after the turn).
function breakdown(file, launchedAt, exitedAt) {
  let t;
  try {
    t = Object.fromEntries(
      readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((l) => l.split(' ').map((x, i) => (i ? Number(x) : x))),
    );
  } catch {
    return null;
  }
  return { agentStartMs: t.start - launchedAt, exitAfterResultMs: t.result ? exitedAt - t.result : null };
}

// Spawns cmd once with env, times spawn-to-exit, samples RSS every pollMs, and returns what it saw
// (with the 1-minute load average at launch, since other work on the machine skews every figure).
export async function measure(cmd, args, { env = {}, timeoutMs = 300_000, pollMs = 10 } = {}) {
  const load = loadavg()[0];
  const tag = `${process.pid}-${++runSeq}`;
  const traceFile = join(TRACE_DIR, `${tag}.trace`);
  const launchedAt = epochMs();
  const t0 = process.hrtime.bigint();
  const child = spawn(cmd, args, {
    env: { ...process.env, ...env, BENCH_TAG: tag, BENCH_TRACE: traceFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = tailCounter(child.stdout);
  const err = tailCounter(child.stderr);
  let last = { rssKiB: null, cpuMs: null };
  const poll = setInterval(() => (last = sample(child.pid) ?? last), pollMs);
  const killer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const [code, signal, spawnError] = await new Promise((resolve) => {
    child.on('error', (e) => resolve([null, null, e.message]));
    child.on('exit', (c, s) => resolve([c, s, null]));
  });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const exitedAt = epochMs();
  clearInterval(poll);
  clearTimeout(killer);
  await new Promise((resolve) => (child.stdout.closed ? resolve() : child.stdout.once('close', resolve)));
  const leftovers = await reapLeftovers(tag);
  const lastLine = out.tail.toString('utf8').trimEnd().split('\n').pop() ?? '';
  const stderrTail = err.tail.toString('utf8').slice(-600);
  return {
    ms,
    load,
    code,
    signal,
    spawnError,
    rssKiB: last.rssKiB,
    cpuMs: last.cpuMs,
    ...breakdown(traceFile, launchedAt, exitedAt),
    lines: out.lines,
    bytes: out.bytes,
    lastLine,
    stderrTail,
    leftovers,
  };
}
