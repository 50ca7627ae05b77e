// Runs one process and measures it: wall time, its own peak RSS (VmHWM, not its children's),
// and a cheap count of its stdout lines; then checks that no agent it spawned outlived it.
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

const RSS_POLL_MS = 10;
const TAIL_BYTES = 64 * 1024;

// Reads a process's peak resident set (KiB) from /proc; null once it is gone.
function vmHwmKiB(pid) {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : null;
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

// Lists live (non-zombie) fake agents started with this run's BENCH_TAG in their environment.
export function agentsTagged(tag) {
  const found = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (!readFileSync(`/proc/${name}/cmdline`, 'utf8').includes('fake-agent')) continue;
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

// Spawns cmd once with env, times spawn-to-exit, samples RSS, and returns what it saw.
export async function measure(cmd, args, { env = {}, timeoutMs = 300_000 } = {}) {
  const tag = `${process.pid}-${++runSeq}`;
  const t0 = process.hrtime.bigint();
  const child = spawn(cmd, args, {
    env: { ...process.env, ...env, BENCH_TAG: tag },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = tailCounter(child.stdout);
  const err = tailCounter(child.stderr);
  let rssKiB = null;
  const poll = setInterval(() => (rssKiB = vmHwmKiB(child.pid) ?? rssKiB), RSS_POLL_MS);
  const killer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const [code, signal, spawnError] = await new Promise((resolve) => {
    child.on('error', (e) => resolve([null, null, e.message]));
    child.on('exit', (c, s) => resolve([c, s, null]));
  });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  clearInterval(poll);
  clearTimeout(killer);
  await new Promise((resolve) => (child.stdout.closed ? resolve() : child.stdout.once('close', resolve)));
  const leftovers = await reapLeftovers(tag);
  const lastLine = out.tail.toString('utf8').trimEnd().split('\n').pop() ?? '';
  const stderrTail = err.tail.toString('utf8').slice(-600);
  return {
    ms,
    code,
    signal,
    spawnError,
    rssKiB,
    lines: out.lines,
    bytes: out.bytes,
    lastLine,
    stderrTail,
    leftovers,
  };
}
