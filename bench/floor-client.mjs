// The floors rho-cursor is timed against: one ACP client in two modes, both doing the same handshake and
// prompt and ending the agent's whole process group (as rho-cursor does; the fake agent has a child too).
//   minimal (default): the least a useful NDJSON client does: parse every line, re-serialise every
//     session/update onto stdout, one batched write per chunk read (pausing while stdout is full).
//   --bare: the limit: split lines and count them; only the three responses are parsed; nothing is written.
// Exits 0 on end_turn with the expected number of updates (BENCH_CHUNKS + 2 x BENCH_TOOLS, + 2 with
// BENCH_TOOL_MIB), else 1.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const AGENT = process.env.BENCH_AGENT ?? fileURLToPath(new URL('./fake-agent', import.meta.url));
const BARE = process.argv.includes('--bare');
const num = (name) => Number(process.env[name] ?? 0);
const EXPECTED = num('BENCH_CHUNKS') + 2 * num('BENCH_TOOLS') + (num('BENCH_TOOL_MIB') > 0 ? 2 : 0);
const UPDATE = '{"jsonrpc":"2.0","method":"session/update"';
const RESPONSE = '{"jsonrpc":"2.0","id":';

// detached: the agent leads a new process group, so it and its children can be signalled together.
const agent = spawn(AGENT, ['--trust', 'acp'], { stdio: ['pipe', 'pipe', 'inherit'], detached: true });
let updates = 0;
let done = false;
let batch = [];

// Sends one JSON-RPC request as an NDJSON line.
function request(id, method, params) {
  agent.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
}

// Signals the agent's whole group; the pid alone would leave its children behind.
function signalGroup(signal) {
  try {
    process.kill(-agent.pid, signal);
  } catch {
    // the group is gone already
  }
}

// Fails the run loudly: a floor that is wrong would make every ratio wrong.
function fail(why) {
  process.stderr.write(`floor-client: ${why}\n`);
  signalGroup('SIGKILL');
  process.exit(1);
}

// Ends the turn like a real client: SIGTERM the agent's group, wait for the agent to exit, then exit.
function finish(result) {
  done = true;
  if (result?.stopReason !== 'end_turn') fail(`stopReason ${JSON.stringify(result)}`);
  if (updates !== EXPECTED) fail(`got ${updates} updates, expected ${EXPECTED}`);
  agent.once('exit', () => process.exit(0));
  signalGroup('SIGTERM');
}

// Reacts to one parsed agent message: responses drive the handshake, updates are re-serialised.
function onMessage(msg) {
  if (msg.method === 'session/update') {
    updates++;
    batch.push(JSON.stringify(msg.params.update));
  } else if (msg.method !== undefined && msg.id !== undefined) {
    agent.stdin.write(
      JSON.stringify({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'no' } }) + '\n',
    );
  } else if (msg.error) {
    fail(`error ${JSON.stringify(msg.error)}`);
  } else if (msg.id === 1) {
    request(2, 'session/new', { cwd: process.cwd(), mcpServers: [] });
  } else if (msg.id === 2) {
    request(3, 'session/prompt', {
      sessionId: msg.result.sessionId,
      prompt: [{ type: 'text', text: 'bench' }],
    });
  } else if (msg.id === 3) {
    finish(msg.result);
  }
}

// The bare reader's whole work per line: count updates, parse only responses.
function onBareLine(text) {
  if (text.startsWith(UPDATE)) updates++;
  else if (text.startsWith(RESPONSE)) onMessage(JSON.parse(text));
}

const onLine = BARE ? onBareLine : (text) => onMessage(JSON.parse(text));

// Newline framing that stays linear on huge lines: only new data is searched for '\n'.
let parts = [];
agent.stdout.setEncoding('utf8');
agent.stdout.on('data', (data) => {
  let start = 0;
  for (let nl = data.indexOf('\n'); nl !== -1; nl = data.indexOf('\n', start)) {
    parts.push(data.slice(start, nl));
    const text = parts.length === 1 ? parts[0] : parts.join('');
    parts = [];
    start = nl + 1;
    if (text.length > 0) onLine(text);
  }
  if (start < data.length) parts.push(data.slice(start));
  if (batch.length === 0) return;
  const out = batch.join('\n') + '\n';
  batch = [];
  if (!process.stdout.write(out)) {
    agent.stdout.pause();
    process.stdout.once('drain', () => agent.stdout.resume());
  }
});
agent.on('exit', (code, signal) => {
  if (!done) fail(`agent exited early (${signal ?? code})`);
});
agent.on('error', (err) => fail(err.message));

request(1, 'initialize', {
  protocolVersion: 1,
  clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
});
