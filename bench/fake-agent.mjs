// A fake Cursor ACP agent of known latency, so the bench measures the client and not the model.
// Env: BENCH_INIT_MS, BENCH_NEW_MS, BENCH_PROMPT_MS (delays), BENCH_CHUNKS (message chunks),
// BENCH_SHORT=1 (chunk texts like `w123 `, unique and short, instead of `chunk 123 `),
// BENCH_TOOLS (that many tool_call + tool_call_update pairs, read / execute / search in turn),
// BENCH_TOOL_MIB (one execute tool whose stdout is that many MiB, sent before the chunks).
// BENCH_TRACE (a file): where to note when this process started and when it sent the stopReason.
// Like cursor-agent it never exits on stdin EOF once a prompt has arrived: the client must kill it,
// and like it, it has a child of its own (a `sleep`): a client must end the whole process group.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

const env = (name) => Number(process.env[name] ?? 0);
const INIT_MS = env('BENCH_INIT_MS');
const NEW_MS = env('BENCH_NEW_MS');
const PROMPT_MS = env('BENCH_PROMPT_MS');
const CHUNKS = env('BENCH_CHUNKS');
const SHORT = process.env.BENCH_SHORT === '1';
const TOOLS = env('BENCH_TOOLS');
const TOOL_MIB = env('BENCH_TOOL_MIB');
const SESSION_ID = 'bench-session-0001';
const BATCH = 2000;
const TRACE = process.env.BENCH_TRACE;

// Notes an epoch-ms timestamp for the harness's breakdown (synchronously, before we can be killed).
function trace(what, ms) {
  if (TRACE) appendFileSync(TRACE, `${what} ${ms}\n`);
}
trace('start', performance.timeOrigin);

if (process.argv.includes('--version')) {
  process.stdout.write('bench-fake-agent 1.0.0\n');
  process.exit(0);
}
if (!process.argv.includes('acp')) {
  process.stderr.write('fake-agent: expected the `acp` subcommand\n');
  process.exit(1);
}

// A helper process in our group, as cursor-agent has; it dies with the group or lingers if only we are signalled.
const helper = spawn('sleep', ['600'], { stdio: 'ignore' });
helper.unref();
process.on('exit', () => helper.kill()); // our own exit (idle, EPIPE) takes it along; a signal does not

let prompted = false;
let cancelled = false;
// A client that went away must not leave us behind writing into a dead pipe.
process.stdout.on('error', () => process.exit(0));

// Writes one string, waiting for 'drain' when the pipe is full, so we stream at pipe speed.
async function send(text) {
  if (!process.stdout.write(text)) await once(process.stdout, 'drain');
}

// Serialises one JSON-RPC message as an NDJSON line.
function line(msg) {
  return JSON.stringify({ jsonrpc: '2.0', ...msg }) + '\n';
}

// Sends a session/update notification.
function update(u) {
  return send(line({ method: 'session/update', params: { sessionId: SESSION_ID, update: u } }));
}

// Emits an execute tool call and its completion with a TOOL_MIB MiB stdout on one line.
async function emitTool() {
  const toolCallId = 'bench_tool_0';
  const rawInput = { command: 'cat big.log' };
  await update({
    sessionUpdate: 'tool_call',
    toolCallId,
    title: 'cat big.log',
    kind: 'execute',
    status: 'pending',
    rawInput,
  });
  const row = 'log line 0123456789 abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ ......\n';
  const size = TOOL_MIB * 1024 * 1024;
  const stdout = row.repeat(Math.ceil(size / row.length)).slice(0, size);
  const rawOutput = { exitCode: 0, stdout, stderr: '' };
  await update({ sessionUpdate: 'tool_call_update', toolCallId, status: 'completed', rawOutput });
}

// Streams CHUNKS agent_message_chunk notifications, pre-built BATCH lines at a time.
async function emitChunks() {
  const head = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"${SESSION_ID}","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"${SHORT ? 'w' : 'chunk '}`;
  const tail = ' "}}}}\n';
  for (let i = 0; i < CHUNKS && !cancelled;) {
    let batch = '';
    for (const end = Math.min(CHUNKS, i + BATCH); i < end; i++) batch += head + i + tail;
    await send(batch);
  }
}

// One tool_call and its completed tool_call_update, in the shapes Cursor sends (see recordings/), built
// as text so that the agent's own cost stays far below any client's.
function toolPair(i) {
  const head = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"${SESSION_ID}","update":{"sessionUpdate":`;
  const id = `"toolCallId":"tool_${(0x5890240d + i).toString(16)}-424a-430f-9e6b-d05fdf0baa7"`;
  const path = `/workspace/src/module${i}/index.ts`;
  let start;
  let output;
  if (i % 3 === 0) {
    start = `"title":"Read ${path}","kind":"read","status":"pending","rawInput":{"path":"${path}"},"locations":[{"path":"${path}"}]`;
    output = `{"content":"export const value${i} = ${i};\\nexport default value${i};\\n"}`;
  } else if (i % 3 === 1) {
    const command = `ls -la src/module${i}`;
    start = `"title":"\`${command}\`","kind":"execute","status":"pending","rawInput":{"command":"${command}"}`;
    output = `{"exitCode":0,"stdout":"775  ./\\n664  index.ts  ${i}B\\n","stderr":""}`;
  } else {
    start = `"title":"grep","kind":"search","status":"pending","rawInput":{"pattern":"value${i}","path":"/workspace"}`;
    output = `{"totalMatches":${i % 7},"truncated":false}`;
  }
  return (
    `${head}"tool_call",${id},${start}}}}\n` +
    `${head}"tool_call_update",${id},"status":"completed","rawOutput":${output}}}}\n`
  );
}

// Streams TOOLS tool pairs, BATCH lines at a time.
async function emitTools() {
  for (let i = 0; i < TOOLS && !cancelled;) {
    let batch = '';
    for (const end = Math.min(TOOLS, i + BATCH / 2); i < end; i++) batch += toolPair(i);
    await send(batch);
  }
}

// Runs one prompt turn: delay, optional big tool output, the tool pairs, the chunks, then the stopReason.
async function prompt(id) {
  prompted = true;
  setInterval(() => {}, 1 << 30); // keep running after stdin EOF, as cursor-agent does
  await sleep(PROMPT_MS);
  if (TOOL_MIB > 0) await emitTool();
  await emitTools();
  await emitChunks();
  trace('result', performance.timeOrigin + performance.now());
  await send(line({ id, result: { stopReason: cancelled ? 'cancelled' : 'end_turn' } }));
}

const SESSION = {
  sessionId: SESSION_ID,
  modes: {
    currentModeId: 'agent',
    availableModes: [
      { id: 'agent', name: 'Agent' },
      { id: 'plan', name: 'Plan' },
    ],
  },
  models: { currentModelId: 'bench-model', availableModels: [] },
};

// Answers one client message; requests we do not implement get -32601.
async function handle(msg) {
  const { id, method } = msg;
  if (method === undefined) return; // a response to a request we never send
  trace(`recv:${method}`, performance.timeOrigin + performance.now());
  if (method === 'initialize') {
    await sleep(INIT_MS);
    return send(line({ id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } }));
  }
  if (method === 'session/new') return sleep(NEW_MS).then(() => send(line({ id, result: SESSION })));
  if (method === 'session/set_mode') {
    await update({ sessionUpdate: 'current_mode_update', currentModeId: msg.params?.modeId });
    return send(line({ id, result: {} }));
  }
  if (method === 'session/prompt') return prompt(id);
  if (method === 'session/cancel') return void (cancelled = true);
  if (id !== undefined)
    return send(line({ id, error: { code: -32601, message: `Method not found: ${method}` } }));
}

let pending = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (data) => {
  const lines = (pending + data).split('\n');
  pending = lines.pop();
  for (const l of lines) if (l.trim()) handle(JSON.parse(l));
});
// Before any prompt an idle agent may go; after one it stays until killed.
process.stdin.on('end', () => {
  if (!prompted) process.exit(0);
});
