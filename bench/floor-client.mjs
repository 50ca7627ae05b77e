// The floor: the least an ACP client can do for one prompt (handshake, prompt, parse every line,
// render nothing, kill the agent). rho-cursor is timed against it. Exits 0 on end_turn with the
// expected number of chunks (BENCH_CHUNKS), else 1.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const AGENT = process.env.BENCH_AGENT ?? fileURLToPath(new URL('./fake-agent', import.meta.url));
const EXPECTED = Number(process.env.BENCH_CHUNKS ?? 0);

const agent = spawn(AGENT, ['--trust', 'acp'], { stdio: ['pipe', 'pipe', 'inherit'], detached: true });
let chunks = 0;
let done = false;

// Sends one JSON-RPC request as an NDJSON line.
function request(id, method, params) {
  agent.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
}

// Fails the run loudly: a floor that is wrong would make every ratio wrong.
function fail(why) {
  process.stderr.write(`floor-client: ${why}\n`);
  try {
    process.kill(agent.pid, 'SIGKILL');
  } catch {
    // already gone
  }
  process.exit(1);
}

// Ends the turn like a real client: SIGTERM the agent, wait for it to exit, then exit ourselves.
function finish(result) {
  done = true;
  if (result?.stopReason !== 'end_turn') fail(`stopReason ${JSON.stringify(result)}`);
  if (chunks !== EXPECTED) fail(`got ${chunks} chunks, expected ${EXPECTED}`);
  agent.once('exit', () => process.exit(0));
  agent.kill('SIGTERM');
}

// Reacts to one parsed agent message: responses drive the handshake, updates are counted.
function onMessage(msg) {
  if (msg.method === 'session/update') {
    if (msg.params.update.sessionUpdate === 'agent_message_chunk') chunks++;
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
    if (text.length > 0) onMessage(JSON.parse(text));
  }
  if (start < data.length) parts.push(data.slice(start));
});
agent.on('exit', (code, signal) => {
  if (!done) fail(`agent exited early (${signal ?? code})`);
});
agent.on('error', (err) => fail(err.message));

request(1, 'initialize', {
  protocolVersion: 1,
  clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
});
