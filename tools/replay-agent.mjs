#!/usr/bin/env node
// Stand-in for `cursor-agent --trust [--model M] acp`: plays a recorded ACP session against a real client on
// stdio. Env: RHO_REPLAY (recording, required), RHO_REPLAY_SPEED (scale of recorded gaps, default 0),
// RHO_REPLAY_LOG (JSON-lines event log), RHO_REPLAY_IGNORE_SIGTERM=1, RHO_REPLAY_GRANDCHILD=1.
// Exit 86: the client left the script (an unexpected request or a wrong answer); 2: no usable recording.
import { spawn } from 'node:child_process';
import { appendFileSync, readFileSync, writeSync } from 'node:fs';

const env = process.env;
const argv = process.argv.slice(2);
const speed = Math.max(0, Number(env.RHO_REPLAY_SPEED ?? 0) || 0);

// Appends one event to RHO_REPLAY_LOG synchronously, so the log survives a SIGKILL.
function log(event) {
  if (env.RHO_REPLAY_LOG) appendFileSync(env.RHO_REPLAY_LOG, JSON.stringify(event) + '\n');
}

// Ends the process after one line on stderr, written synchronously so it is never lost.
function die(code, line) {
  writeSync(2, `replay: ${line}\n`);
  process.exit(code);
}

// Reads the recording: one {dir, ms, msg} row a line; summary rows play no part in the replay.
function load(file) {
  if (!file) die(2, 'RHO_REPLAY is not set (it must name a .jsonl recording)');
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    die(2, `cannot read recording ${file}: ${err.message}`);
  }
  const parse = (line, i) => {
    try {
      return JSON.parse(line);
    } catch {
      die(2, `${file}:${i + 1}: not a JSON row`);
    }
  };
  return text
    .split('\n')
    .map((line, i) => line.trim() && parse(line, i))
    .filter((row) => row && (row.dir === 'a2c' || row.dir === 'c2a'));
}

// Names a JSON-RPC message's shape; only one without `method` is a response (the two sides' ids overlap).
function kind(msg) {
  if (!msg || typeof msg !== 'object' || Array.isArray(msg)) return 'other';
  if (typeof msg.method === 'string') return msg.id === undefined ? 'notification' : 'request';
  return msg.id === undefined ? 'other' : 'response';
}

// Deep-equal for JSON values, skipping keys named `reason` (free text the client may word as it likes).
function same(a, b) {
  if (a === b) return true;
  if (!a || !b || typeof a !== 'object' || typeof b !== 'object' || Array.isArray(a) !== Array.isArray(b)) {
    return false;
  }
  const keys = (o) => Object.keys(o).filter((k) => k !== 'reason');
  return keys(a).length === keys(b).length && keys(a).every((k) => Object.hasOwn(b, k) && same(a[k], b[k]));
}

// Says what a recorded client message is, for mismatch lines.
function describe(msg) {
  if (kind(msg) !== 'response') return `${kind(msg)} ${msg.method}`;
  const answer = JSON.stringify(msg.error ? { error: msg.error } : msg.result);
  return `answer ${answer} to ${agentRequests.get(msg.id)} id ${msg.id}`;
}

// Reports that the client left the script, then exits 86.
function mismatch(message, expected, got) {
  log({ event: 'mismatch', fatal: true, message, expected, got });
  die(86, message);
}

const { pid } = process;
log({
  event: 'start',
  argv,
  cwd: process.cwd(),
  pid,
  hasApiKey: Boolean(env.CURSOR_API_KEY),
  configDir: env.CURSOR_CONFIG_DIR ?? null,
});
if (argv.includes('--version') && !argv.includes('acp')) {
  writeSync(1, '2026.10.01-replay\n');
  process.exit(0);
}
const rows = load(env.RHO_REPLAY);
let pos = 0; // index of the row being played or awaited
let prompted = false; // after a session/prompt the agent, like Cursor, ignores stdin EOF
let stdoutBroken = false;
let wake = () => {}; // resolves expect() when a message is queued
let hurry = () => {}; // cuts pause() short when a notification is queued
const queue = []; // client messages that a later c2a row will consume
const clientIds = new Map(); // recorded client request id -> the id the client really used
const agentRequests = new Map(); // the agent's own request ids -> method

// Writes one line to the client; resolves once it is flushed (back-pressure for huge lines).
function send(text) {
  return new Promise((resolve) =>
    stdoutBroken ? resolve() : process.stdout.write(text + '\n', () => resolve()),
  );
}

// Sleeps for a recorded gap, cut short once the client is ahead of the script (an early session/cancel, say).
function pause(ms) {
  if (!(ms > 0) || queue.some((m) => kind(m) === 'notification')) return;
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    hurry = () => resolve(clearTimeout(timer));
  });
}

// Tells whether a client message is the one a recorded c2a message stands for.
function matches(want, got) {
  if (kind(want) !== kind(got)) return false;
  return kind(want) === 'response' ? want.id === got.id : want.method === got.method;
}

// Answers a request no row is left for, as an agent without that method would (logged, not fatal).
function refuse(msg) {
  const message = `replay: script is over; no answer for ${msg.method}`;
  log({ event: 'mismatch', fatal: false, message, got: msg });
  void send(JSON.stringify({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message } }));
}

// Takes one line from the client: logs it, then queues it for a later c2a row or settles it now.
function receive(line) {
  let msg = line;
  try {
    msg = JSON.parse(line);
  } catch {
    log({ event: 'recv', msg: line });
    return log({
      event: 'mismatch',
      fatal: false,
      message: 'client sent a line that is not JSON',
      got: line,
    });
  }
  log({ event: 'recv', msg });
  const k = kind(msg);
  if (k === 'request' && msg.method === 'session/prompt') prompted = true;
  const ahead = rows.slice(pos).filter((row) => row.dir === 'c2a');
  if (k === 'request' && !ahead.length) return refuse(msg);
  if (ahead.some((row) => matches(row.msg, msg))) {
    queue.push(msg);
    if (k === 'notification') hurry();
    return wake();
  }
  if (k === 'request')
    mismatch(`unexpected request ${msg.method} (script at row ${pos})`, rows[pos]?.msg, msg);
  const what = k === 'response' ? `answer to id ${msg.id}` : `${k} ${msg.method ?? ''}`;
  log({ event: 'mismatch', fatal: false, message: `unexpected ${what}`, got: msg });
}

// Waits for the client message a c2a row records; any other request before it is fatal.
async function expect(want) {
  for (;;) {
    const i = queue.findIndex((m) => matches(want, m));
    const j = queue.findIndex((m) => kind(m) === 'request');
    if (j !== -1 && (i === -1 || j < i)) {
      mismatch(`expected ${describe(want)}, got request ${queue[j].method}`, want, queue[j]);
    }
    if (i !== -1) return queue.splice(i, 1)[0];
    await new Promise((resolve) => (wake = resolve));
  }
}

// Checks a consumed client message against its row: a request maps its id, an answer must match.
function check(want, got) {
  if (kind(want) === 'request') clientIds.set(want.id, got.id);
  if (kind(want) !== 'response') return;
  const ok = want.error || got.error ? want.error?.code === got.error?.code : same(want.result, got.result);
  if (!ok)
    mismatch(
      `expected ${describe(want)}, got ${JSON.stringify(got.error ? { error: got.error } : got.result)}`,
      want,
      got,
    );
}

// Writes one recorded agent message (a string is a raw line); a response gets the id the client really used.
function play(msg) {
  if (typeof msg === 'string') return send(msg);
  if (kind(msg) === 'request') agentRequests.set(msg.id, msg.method);
  if (kind(msg) === 'response' && clientIds.has(msg.id)) msg = { ...msg, id: clientIds.get(msg.id) };
  return send(JSON.stringify(msg));
}

// Plays the rows in order: agent rows after their scaled gap, client rows once the client has sent them.
async function run() {
  for (; pos < rows.length; pos++) {
    const row = rows[pos];
    if (row.dir === 'c2a') check(row.msg, await expect(row.msg));
    else await pause((row.ms - (rows[pos - 1]?.ms ?? 0)) * speed);
    // `done` goes out before the last write: the client may kill the agent as soon as it reads it.
    if (pos === rows.length - 1) log({ event: 'done' });
    if (row.dir === 'a2c') await play(row.msg);
  }
}

// Splits stdin into lines without rescanning the buffer, so a line of tens of MiB stays linear.
function readLines(onLine, onEnd) {
  let parts = [];
  const flush = () => {
    const line = Buffer.concat(parts).toString('utf8').trim();
    parts = [];
    if (line) onLine(line);
  };
  process.stdin.on('data', (chunk) => {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; start = nl + 1, nl = chunk.indexOf(10, start)) {
      parts.push(chunk.subarray(start, nl));
      flush();
    }
    if (start < chunk.length) parts.push(chunk.subarray(start));
  });
  process.stdin.on('end', () => {
    flush();
    onEnd();
  });
}

process.stdout.on('error', (err) => {
  stdoutBroken = true;
  log({ event: 'stdout-error', code: err.code ?? null });
});
process.on('SIGTERM', () => {
  const ignored = env.RHO_REPLAY_IGNORE_SIGTERM === '1';
  log({ event: 'signal', signal: 'SIGTERM', ignored });
  if (!ignored) process.exit(143);
});
process.on('SIGINT', () => {
  log({ event: 'signal', signal: 'SIGINT' });
  process.exit(130);
});
if (env.RHO_REPLAY_GRANDCHILD === '1') {
  const child = spawn('sleep', ['100000'], { stdio: 'ignore' }); // not Node: ~85 ms of CPU for each start
  child.unref();
  log({ event: 'grandchild', pid: child.pid });
}
setInterval(() => {}, 1 << 30); // like Cursor: only a signal, or stdin EOF before any prompt, ends the agent
readLines(receive, () => {
  log({ event: 'eof', prompted });
  if (!prompted) setTimeout(() => process.exit(0), 500);
});
run().catch((err) => die(70, `internal error: ${err.stack ?? err}`));
