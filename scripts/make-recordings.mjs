#!/usr/bin/env node
// Writes recordings/*.jsonl: scripted ACP transcripts for tools/replay-agent.mjs, modelled on the wire shapes
// the Cursor spike observed (cursor-agent 2026.10.01) but worded for this project. Rows are {dir, ms, msg}
// with dir "c2a" (exactly what rho-cursor sends), "a2c" (the agent) or "summary" (timings, last row).
// Usage: node scripts/make-recordings.mjs (deterministic: a re-run rewrites identical files).
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';

const OUT = new URL('../recordings/', import.meta.url);
const WS = '/workspace';
const MODEL = 'composer-2.5[fast=true]';
const CLIENT_INFO = { name: 'rho-cursor', version: '0.1.0' };
const REJECT = { outcome: { outcome: 'selected', optionId: 'reject-once' } };
const ALLOW = { outcome: { outcome: 'selected', optionId: 'allow-once' } };
const NO_PERSON = 'nobody is at the terminal to answer (non-interactive run)';
const SHELL_OPTIONS = [
  { optionId: 'allow-once', name: 'Allow once', kind: 'allow_once' },
  { optionId: 'allow-always', name: 'Always allow', kind: 'allow_always' },
  { optionId: 'reject-once', name: 'Reject', kind: 'reject_once' },
];
const MODES = [
  { id: 'agent', name: 'Agent', description: 'Works with every tool: reads, edits and runs commands' },
  { id: 'plan', name: 'Plan', description: 'Reads and plans without changing anything' },
  { id: 'ask', name: 'Ask', description: 'Answers questions; no edits, no commands' },
];
const MODELS = [
  { modelId: 'default[]', name: 'Auto' },
  { modelId: MODEL, name: 'composer-2.5' },
  { modelId: 'gpt-5.6-sol[context=272k,reasoning=medium,fast=false]', name: 'gpt-5.6-sol' },
];

// Hex digest of the parts: stable ids and timings, so a re-run writes byte-identical files.
const digest = (...parts) => createHash('sha256').update(parts.join('\0')).digest('hex');

// A uuid-shaped id derived from the parts (version-4 layout).
function uuid(...parts) {
  const h = digest(...parts);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

// A stable pseudo-random integer in [lo, hi] for realistic but repeatable latencies.
const between = (lo, hi, ...parts) => lo + (parseInt(digest(...parts).slice(0, 8), 16) % (hi - lo + 1));

// Splits text the way Cursor streams it: a few words a chunk; the chunks join back to the text.
function chunk(text, words = 3) {
  const tokens = text.match(/\s*\S+|\s+$/g) ?? [text];
  const out = [];
  for (let i = 0; i < tokens.length; i += words) out.push(tokens.slice(i, i + words).join(''));
  return out;
}

// One scripted session: a clock, id counters, and row builders that read like the conversation.
class Transcript {
  constructor(name) {
    Object.assign(this, { name, rows: [], t: 0, clientId: 0, agentId: 0, tools: 0 });
    this.sessionId = uuid(name, 'session');
    this.timing = {};
  }
  // Adds one row dt ms after the previous one.
  row(dir, msg, dt = 0) {
    this.t += dt;
    this.rows.push({ dir, ms: this.t, msg });
    return this;
  }
  // Client request with the next client id (1, 2, 3...); returns the id.
  request(method, params) {
    this.row('c2a', { jsonrpc: '2.0', id: ++this.clientId, method, params });
    return this.clientId;
  }
  // Agent answer to a client request.
  result(id, result, dt) {
    return this.row('a2c', { jsonrpc: '2.0', id, result }, dt);
  }
  // Agent error answer to a client request.
  error(id, code, message, dt) {
    return this.row('a2c', { jsonrpc: '2.0', id, error: { code, message } }, dt);
  }
  // initialize then session/new (or its error), with latencies in the observed range.
  handshake({ sessionError } = {}) {
    const init = this.request('initialize', {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      clientInfo: CLIENT_INFO,
    });
    this.timing.initialize_ms = between(421, 498, this.name, 'init');
    this.result(init, INITIALIZE_RESULT, this.timing.initialize_ms);
    const created = this.request('session/new', { cwd: WS, mcpServers: [] });
    if (sessionError) {
      this.timing.session_new_ms = between(610, 880, this.name, 'new');
      return this.error(created, sessionError.code, sessionError.message, this.timing.session_new_ms);
    }
    this.timing.session_new_ms = between(2430, 3050, this.name, 'new');
    return this.result(created, sessionResult(this.sessionId), this.timing.session_new_ms);
  }
  // session/set_mode plan: Cursor announces the mode before answering {}; or answers an error.
  planMode({ error } = {}) {
    const id = this.request('session/set_mode', { sessionId: this.sessionId, modeId: 'plan' });
    if (error) return this.error(id, error.code, error.message, 2);
    this.update({ sessionUpdate: 'current_mode_update', currentModeId: 'plan' }, 2);
    return this.result(id, {}, 0);
  }
  // session/prompt, followed by the commands list and the session title Cursor sends first.
  prompt(text, title) {
    this.promptId = this.request('session/prompt', {
      sessionId: this.sessionId,
      prompt: [{ type: 'text', text }],
    });
    this.promptAt = this.t;
    this.update({ sessionUpdate: 'available_commands_update', availableCommands: COMMANDS }, 540);
    return this.update({ sessionUpdate: 'session_info_update', title }, 190);
  }
  // A session/update notification from the agent.
  update(update, dt = 1) {
    return this.row(
      'a2c',
      { jsonrpc: '2.0', method: 'session/update', params: { sessionId: this.sessionId, update } },
      dt,
    );
  }
  // Streams text as agent_message_chunk (or agent_thought_chunk) updates, the first after `dt`.
  say(text, dt = 1, sessionUpdate = 'agent_message_chunk') {
    chunk(text).forEach((part, i) =>
      this.update({ sessionUpdate, content: { type: 'text', text: part } }, i ? 0 : dt),
    );
    return this;
  }
  // Streams a thought.
  think(text, dt = 400) {
    return this.say(text, dt, 'agent_thought_chunk');
  }
  // A fresh Cursor-style tool call id.
  toolId() {
    return `tool_${uuid(this.name, 'tool', ++this.tools)}`;
  }
  // Starts a tool call (pending, then in_progress); `later` holds the update(s) that fill it in meanwhile.
  tool({ title, kind, rawInput = {}, locations, later = [] }, dt = 1) {
    const toolCallId = this.toolId();
    const start = { sessionUpdate: 'tool_call', toolCallId, title, kind, status: 'pending', rawInput };
    this.update(locations ? { ...start, locations } : start, dt);
    for (const fill of [later].flat())
      this.update({ sessionUpdate: 'tool_call_update', toolCallId, ...fill }, 0);
    this.update({ sessionUpdate: 'tool_call_update', toolCallId, status: 'in_progress' }, 0);
    return toolCallId;
  }
  // Finishes a tool call: Cursor says `completed` even when it was denied (then with no output).
  done(toolCallId, output = {}, dt = 30) {
    return this.update({ sessionUpdate: 'tool_call_update', toolCallId, status: 'completed', ...output }, dt);
  }
  // Read tool on a workspace file.
  read(file) {
    const path = `${WS}/${file}`;
    return this.tool({ title: `Read ${file}`, kind: 'read', rawInput: { path }, locations: [{ path }] });
  }
  // Grep tool: starts with an empty rawInput and the bare title "grep".
  grep(pattern, path = WS) {
    const rawInput = path ? { pattern, path } : { pattern };
    return this.tool({ title: 'grep', kind: 'search', later: { title: `grep "${pattern}"`, rawInput } });
  }
  // Shell tool.
  shell(command) {
    return this.tool({ title: `\`${command}\``, kind: 'execute', rawInput: { command } });
  }
  // Edit tool: "Edit File" with an empty rawInput until an update names the file.
  edit(file) {
    const path = `${WS}/${file}`;
    return this.tool({
      title: 'Edit File',
      kind: 'edit',
      later: { title: `Edit \`${path}\``, rawInput: { path }, locations: [{ path }] },
    });
  }
  // An agent request with the next agent id (0, 1, 2...); returns the id.
  call(method, params, dt = 1) {
    this.row('a2c', { jsonrpc: '2.0', id: this.agentId, method, params }, dt);
    return this.agentId++;
  }
  // An agent request answered at once by the client with `answer` ({result} or {error}).
  ask(method, params, answer, dt = 1) {
    return this.answer(this.call(method, params, dt), answer);
  }
  // The client's answer to agent request `id`.
  answer(id, { result, error }) {
    return this.row('c2a', { jsonrpc: '2.0', id, ...(error ? { error } : { result }) });
  }
  // session/request_permission for a tool call, answered with `result`.
  permission(toolCall, result, options = SHELL_OPTIONS, dt = 1) {
    return this.ask(
      'session/request_permission',
      { sessionId: this.sessionId, toolCall, options },
      { result },
      dt,
    );
  }
  // Cursor's shell permission request under `approvalMode: allowlist` with nothing allowed.
  askShell(toolCallId, command, result, dt) {
    const content = [{ type: 'content', content: { type: 'text', text: 'Shell allowlist is empty' } }];
    return this.permission(
      { toolCallId, title: `\`${command}\``, kind: 'execute', status: 'pending', content },
      result,
      SHELL_OPTIONS,
      dt,
    );
  }
  // The client's session/cancel notification.
  cancel(dt) {
    return this.row(
      'c2a',
      { jsonrpc: '2.0', method: 'session/cancel', params: { sessionId: this.sessionId } },
      dt,
    );
  }
  // Ends the turn: session/prompt answers with the stopReason.
  end(stopReason, dt = 45) {
    this.result(this.promptId, { stopReason }, dt);
    this.timing.prompt0_ms = this.t - this.promptAt;
    this.timing.prompt0_end_ms = this.t;
    return this;
  }
  // Appends the timing summary and writes recordings/<name>.jsonl.
  save() {
    const idle = this.promptId === undefined;
    const exit = idle ? between(540, 590, this.name, 'exit') : 'did not exit within 10s';
    this.row('summary', { ...this.timing, exit_after_stdin_eof_ms: exit }, idle ? exit : 10_000);
    writeFileSync(
      new URL(`${this.name}.jsonl`, OUT),
      this.rows.map((r) => JSON.stringify(r)).join('\n') + '\n',
    );
    return this.rows.length;
  }
}

const INITIALIZE_RESULT = {
  protocolVersion: 1,
  agentCapabilities: {
    loadSession: true,
    mcpCapabilities: { http: true, sse: true },
    promptCapabilities: { audio: false, embeddedContext: false, image: true },
    sessionCapabilities: { list: {} },
  },
  authMethods: [
    {
      id: 'cursor_login',
      name: 'Cursor Login',
      description: 'Use the credentials saved by `cursor-agent login`.',
    },
  ],
};
const COMMANDS = [
  { name: 'copy-request-id', description: 'Copy the ID of the latest request' },
  { name: 'review', description: 'Ask a second model to review the pending changes' },
];

// session/new's answer: agent mode, the resolved model, and the same two as config options.
function sessionResult(sessionId) {
  const select = (id, name, category, currentValue, options) => ({
    id,
    name,
    category,
    type: 'select',
    currentValue,
    options,
  });
  return {
    sessionId,
    modes: { currentModeId: 'agent', availableModes: MODES },
    models: { currentModelId: MODEL, availableModels: MODELS },
    configOptions: [
      select(
        'mode',
        'Mode',
        'mode',
        'agent',
        MODES.map((m) => ({ value: m.id, name: m.name, description: m.description })),
      ),
      select(
        'model',
        'Model',
        'model',
        MODEL,
        MODELS.map((m) => ({ value: m.modelId, name: m.name })),
      ),
    ],
  };
}

const HELLO = 'hello, world\n';
const LS = [
  'total 20',
  'drwxr-xr-x 3 dev dev 4096 Oct  5 09:12 .',
  'drwxr-xr-x 6 dev dev 4096 Oct  5 09:02 ..',
  'drwxr-xr-x 7 dev dev 4096 Oct  5 09:12 .git',
  '-rw-r--r-- 1 dev dev   58 Oct  5 09:04 README.md',
  '-rw-r--r-- 1 dev dev   13 Oct  5 09:04 hello.txt',
  '',
].join('\n');
const newFile = (file, text) => ({
  type: 'diff',
  path: `${WS}/${file}`,
  oldText: '-- /dev/null',
  newText: `++ b/${WS}/${file}\n${text}`,
});
const diff = (file, oldText, newText) => ({ type: 'diff', path: `${WS}/${file}`, oldText, newText });
const THREE_STEPS =
  'Using your tools, no questions: 1) read hello.txt 2) run `wc -l hello.txt` 3) create out.txt containing exactly "hi". Then tell me which steps worked and which were blocked.';

const scenarios = {
  // Agent mode under approvalMode unrestricted: five tools, nothing asks. Also the `npm run demo` transcript.
  tools(s) {
    s.handshake().prompt(
      'Tidy up the greeting: read hello.txt, find every "hello" in the workspace, list the files with `ls -la`, create out.txt containing just "hi", then capitalise the greeting in hello.txt. Finish with a short summary.',
      'Tidy Up The Greeting',
    );
    s.think('Five small steps, in order. I will start by reading hello.txt to see what it says.', 520);
    s.say("Sure, I'll work through the five steps in order.\n\n", 800);
    s.done(s.read('hello.txt'), { rawOutput: { content: HELLO } }, 240);
    s.think('The file holds one line, "hello, world". Next, a search for "hello".', 850);
    s.done(s.grep('hello'), { rawOutput: { totalMatches: 2, truncated: false } }, 32);
    s.think('Two matches. Now the directory listing.', 700);
    s.done(s.shell('ls -la'), { rawOutput: { exitCode: 0, stdout: LS, stderr: '' } }, 760);
    s.think('Listing done. I will create out.txt and capitalise the greeting in one go.', 1180);
    const created = s.edit('out.txt');
    const changed = s.edit('hello.txt');
    s.done(created, { content: [newFile('out.txt', 'hi')] }, 55);
    s.done(changed, { content: [diff('hello.txt', HELLO, 'Hello, world\n')] }, 10);
    s.think('All five steps succeeded; time for the summary.', 880);
    s.say(
      "All done. Here's what I did:\n\n" +
        '1. **Read** `hello.txt`: it said `hello, world`.\n' +
        '2. **Searched** the workspace for `hello`: 2 matches.\n' +
        '3. **Listed** the files with `ls -la`: `README.md`, `hello.txt` and the `.git` folder.\n' +
        '4. **Created** `out.txt` containing `hi`.\n' +
        '5. **Capitalised** the greeting: `hello.txt` now reads `Hello, world`.\n',
      2,
    );
    s.end('end_turn');
  },

  // approvalMode allowlist, empty allow list, run with --permissions reject: only the shell asks.
  'permission-reject': (s) => permissionTurn(s, REJECT),

  // The same turn with --permissions allow (or --allow execute): the shell runs.
  'permission-allow': (s) => permissionTurn(s, ALLOW),

  // --plan: plan mode blocks the edit, but the shell still asks (and is rejected).
  'plan-mode'(s) {
    s.handshake().planMode().prompt(THREE_STEPS, 'Three Steps Report');
    s.think(
      'Plan mode is on, so edits are off the table. Reading is fine; the shell command may be blocked.',
      650,
    );
    s.say("I'll try all three steps and report what plan mode lets through.\n", 1900);
    const read = s.read('hello.txt');
    const shell = s.shell('wc -l hello.txt');
    const edit = s.edit('out.txt');
    s.done(edit, {}, 35);
    s.done(read, { rawOutput: { content: HELLO } }, 220);
    s.askShell(shell, 'wc -l hello.txt', REJECT, 205);
    s.done(shell, {}, 22);
    s.think('Only the read went through: the shell was rejected and plan mode refused the edit.', 1390);
    s.say(
      '| Step | Result |\n|------|--------|\n' +
        '| Read `hello.txt` | **Worked**: `hello, world` |\n' +
        '| Run `wc -l hello.txt` | **Blocked**: the shell command was rejected |\n' +
        '| Create `out.txt` | **Blocked**: plan mode does not allow edits |\n\n' +
        'Switch to agent mode if you want the last two steps to run.',
      2,
    );
    s.end('end_turn');
  },

  // A long answer cancelled mid-stream (SIGINT, SIGTERM or --timeout): session/cancel, one late chunk, cancelled.
  cancel(s) {
    s.handshake().prompt(
      'Write a 3000-word history of lighthouses, from the Pharos of Alexandria to automated LED beacons. Do not use tools.',
      'History Of Lighthouses',
    );
    s.think(
      'A long essay, no tools. I will go era by era: antiquity, the age of sail, Fresnel, automation.',
      640,
    );
    s.say(
      '# Keepers of the Light: A History of Lighthouses\n\n' +
        'Long before charts were reliable, sailors steered by fire. The earliest beacons were simple ' +
        'bonfires lit on headlands, tended by monks, soldiers or fishermen who knew how treacherous ' +
        'their stretch of coast could be.\n\n## The Pharos of Alexandria\n\nAround 280 BC, ',
      860,
    );
    s.cancel(2700);
    s.say('the Ptolemies raised a tower of pale stone', 3);
    s.end('cancelled', 1);
  },

  // approvalMode allowlist + deny Read(**) and WebFetch(*), run with --allow fetch: fetch asks anyway, read is
  // denied (completed, no output), grep and glob are not covered by the Read rule.
  'deny-read-fetch'(s) {
    s.handshake().prompt(
      'Using your tools, no questions: 1) read hello.txt 2) grep the workspace for "hello" 3) list every file with your glob tool 4) fetch https://example.com. Then report exactly what each tool returned or whether it was blocked.',
      'Four Tool Check',
    );
    s.think('Four independent lookups; I can start them together.', 700);
    s.say('Running all four tools now.\n', 380);
    const fetchCall = {
      toolCallId: 'web_fetch_0',
      title: 'Fetch https://example.com',
      kind: 'fetch',
      status: 'pending',
    };
    s.permission(fetchCall, ALLOW, SHELL_OPTIONS, 40);
    const read = s.read('hello.txt');
    const grep = s.grep('hello', null);
    const find = s.tool({
      title: 'Find',
      kind: 'search',
      later: { title: 'Find `**/*`', rawInput: { pattern: '**/*' } },
    });
    const fetch = s.tool({
      title: 'Web Fetch',
      kind: 'fetch',
      later: { title: 'Web Fetch: https://example.com', rawInput: { url: 'https://example.com' } },
    });
    s.done(grep, { rawOutput: { totalMatches: 2, truncated: false } }, 34);
    s.done(read, {}, 224);
    s.done(find, { rawOutput: { totalFiles: 3, truncated: false } }, 5);
    s.done(fetch, { rawOutput: { success: true } }, 675);
    s.think('The read came back empty: permission denied. The other three worked.', 820);
    s.say(
      '1. **Read `hello.txt`**: blocked, permission denied, no content returned.\n' +
        '2. **Grep for `hello`**: 2 matches.\n' +
        '3. **Glob `**/*`**: 3 files.\n' +
        '4. **Fetch https://example.com**: succeeded; it is the "Example Domain" placeholder page.\n',
      2,
    );
    s.end('end_turn');
  },

  // --plan: the todo tool shows as a kind "other" tool call, then cursor/update_todos (id 0, no sessionId).
  'update-todos'(s) {
    s.handshake()
      .planMode()
      .prompt(
        'Plan how to make the greeting in hello.txt friendlier, and keep a todo list with your todo tool as you go.',
        'Friendlier Greeting Plan',
      );
    s.think('I will look at the current greeting first, then lay out the work as todos.', 900);
    s.say('Checking `hello.txt` first.\n', 1600);
    s.done(s.read('hello.txt'), { rawOutput: { content: HELLO } }, 265);
    s.think('It is a bare "hello, world". Three todos cover the work.', 1500);
    s.say('Setting up a todo list for this.\n', 700);
    const todos = [
      ['read-greeting', 'Read the current greeting', 'completed'],
      ['pick-wording', 'Pick a friendlier wording', 'in_progress'],
      ['update-file', 'Write the new greeting to hello.txt', 'pending'],
    ].map(([id, content, status]) => ({ id, content, status }));
    const stamp = '1791240000000';
    const wire = (list) =>
      list.map((t) => ({
        ...t,
        status: `TODO_STATUS_${t.status.toUpperCase()}`,
        createdAt: stamp,
        updatedAt: stamp,
        dependencies: [],
      }));
    // The todo tool's updates grow the list one todo at a time, in Cursor's TODO_STATUS_* spelling.
    const later = todos.map((_, n) => ({
      title: `Update TODOs: ${todos
        .slice(0, n + 1)
        .map((t) => t.content)
        .join(', ')}`,
      rawInput: { _toolName: 'updateTodos', todos: wire(todos.slice(0, n + 1)) },
    }));
    const call = s.tool(
      { title: 'Update TODOs', kind: 'other', rawInput: { _toolName: 'updateTodos' }, later },
      300,
    );
    s.done(call, {}, 1);
    s.ask(
      'cursor/update_todos',
      { toolCallId: call, todos, merge: false },
      { result: { outcome: { outcome: 'accepted', todos } } },
      0,
    );
    s.say(
      '## Plan: a friendlier greeting\n\n' +
        '1. Replace `hello, world` with `Hi there, welcome aboard!`.\n' +
        '2. Keep it on one line so scripts that read the file keep working.\n' +
        '3. Check `README.md` for any copy of the old wording.\n\n' +
        'Say the word and I will switch to agent mode and make the change.',
      1400,
    );
    s.end('end_turn');
  },

  // Not logged in and no CURSOR_API_KEY: session/new answers authRequired. No prompt.
  'auth-required'(s) {
    s.handshake({ sessionError: { code: -32000, message: 'Authentication required' } });
  },

  // --plan against an agent that refuses the mode: set_mode answers -32602. No prompt.
  'plan-refused'(s) {
    s.handshake().planMode({ error: { code: -32602, message: 'Invalid mode: plan' } });
  },

  // A turn that ends with stopReason refusal.
  refusal(s) {
    s.handshake().prompt(
      'Write an email that tricks my coworkers into sharing their passwords.',
      'Declined Request',
    );
    s.say(
      "I can't help with that: it would be used to take other people's credentials. " +
        'If you are running a sanctioned phishing drill, I can help you plan one with your security team instead.',
      900,
    );
    s.end('refusal', 30);
  },

  // A turn that ends with stopReason max_tokens.
  'max-tokens'(s) {
    s.handshake().prompt(
      'List every prime number below ten million, one per line.',
      'Primes Below Ten Million',
    );
    s.say('2\n3\n5\n7\n11\n13\n17\n19\n23\n29\n31\n37\n41\n43\n47\n53\n59\n61\n67\n71\n', 760);
    s.end('max_tokens', 20);
  },

  // --permissions reject, no terminal: every Cursor extension request once, an unknown update kind and a
  // stray non-JSON line.
  extensions(s) {
    s.handshake().prompt(
      'Ask me whether the greeting should be formal or casual, then propose a plan, delegate a search, draw an icon and sketch a canvas.',
      'Greeting Style Workflow',
    );
    s.think('First I need the preferred tone; I will ask.', 600);
    s.say('Let me ask about the tone first.\n', 500);
    const question = {
      id: 'tone',
      prompt: 'Should the greeting be formal or casual?',
      options: [
        { id: 'formal', label: 'Formal' },
        { id: 'casual', label: 'Casual' },
      ],
      allowMultiple: false,
    };
    s.ask(
      'cursor/ask_question',
      { toolCallId: s.toolId(), title: 'Greeting tone', questions: [question] },
      { result: { outcome: { outcome: 'skipped', reason: NO_PERSON } } },
      40,
    );
    s.say('No answer came back; asking once more in the approval prompt.\n', 300);
    const options = [
      { optionId: 'tone:formal', name: 'Formal', kind: 'allow_once' },
      { optionId: 'tone:casual', name: 'Casual', kind: 'allow_once' },
      { optionId: '__ask_question_skip__', name: 'Skip', kind: 'reject_once' },
    ];
    const prompt = [{ type: 'content', content: { type: 'text', text: question.prompt } }];
    s.permission(
      { toolCallId: s.toolId(), title: 'Greeting tone', kind: 'other', status: 'pending', content: prompt },
      { outcome: { outcome: 'selected', optionId: '__ask_question_skip__' } },
      options,
      40,
    );
    s.think(
      'Still no preference. A friendly, neutral tone is a safe default; I will propose that as a plan.',
      500,
    );
    const planTodos = [
      { id: 'rewrite', content: 'Rewrite the greeting in a friendly, neutral tone', status: 'pending' },
      { id: 'check-readme', content: 'Update README.md if it quotes the greeting', status: 'pending' },
    ];
    s.ask(
      'cursor/create_plan',
      {
        toolCallId: s.toolId(),
        name: 'Friendly greeting',
        overview: 'Reword hello.txt in a friendly, neutral tone and keep README.md in step.',
        plan: '# Friendly greeting\n\n1. Change `hello, world` to `Hello there!`.\n2. Quote the new line in README.md if the old one appears there.\n',
        todos: planTodos,
      },
      {
        result: {
          outcome: {
            outcome: 'rejected',
            reason: 'non-interactive run: nothing is changed without approval',
          },
        },
      },
      700,
    );
    s.say('Understood, no changes then. I will still gather what a later run would need.\n', 400);
    // task and generate_image do not block Cursor: both go out before either answer comes back.
    const taskCall = s.toolId();
    const task = s.call(
      'cursor/task',
      {
        toolCallId: taskCall,
        description: 'Find other copies of the greeting',
        prompt: 'Search the workspace for "hello, world" and list the files that contain it.',
        subagentType: 'explore',
      },
      200,
    );
    const image = s.call(
      'cursor/generate_image',
      {
        toolCallId: s.toolId(),
        prompt: 'A small flat icon of a waving hand, for the README header',
        outputPath: `${WS}/assets/wave.png`,
      },
      1,
    );
    s.answer(task, { result: {} }).answer(image, { result: {} });
    s.update(
      {
        sessionUpdate: 'subagent_spawned',
        subagentId: uuid(s.name, 'subagent'),
        parentToolCallId: taskCall,
        name: 'explore',
        description: 'Find other copies of the greeting',
      },
      15,
    );
    s.row('a2c', '[cursor] warn: telemetry disabled', 4);
    s.ask(
      'cursor/canvas',
      {
        toolCallId: s.toolId(),
        title: 'Greeting options',
        content: '# Tone\n\n- Formal: "Good day."\n- Casual: "Hey there!"\n',
      },
      { error: { code: -32601, message: 'Method not found: cursor/canvas' } },
      300,
    );
    s.say(
      'Summary: you did not pick a tone, so I proposed a friendly, neutral greeting (`Hello there!`); ' +
        'the plan was not approved, so nothing was changed. A helper is searching for other copies of the old greeting.',
      600,
    );
    s.end('end_turn');
  },

  // An API failure that Cursor reports as the agent's message text, then end_turn.
  'retriable-error'(s) {
    s.handshake().prompt('Summarise README.md in two sentences.', 'Summarise The README');
    s.say(
      'Error: RetriableError: [unavailable] The model provider did not respond in time. Please try again.',
      4100,
    );
    s.end('end_turn', 12);
  },
};

// The allowlist turn shared by permission-reject and permission-allow: read, shell (asks), new file.
function permissionTurn(s, answer) {
  const allowed = answer === ALLOW;
  s.handshake().prompt(THREE_STEPS, 'Three Steps Report');
  s.think('Three steps: a read, a shell command and a new file. I can start all three at once.', 1100);
  s.say("I'll run all three steps now.\n", 5);
  const read = s.read('hello.txt');
  const shell = s.shell('wc -l hello.txt');
  const edit = s.edit('out.txt');
  s.askShell(shell, 'wc -l hello.txt', answer, 1900);
  s.done(
    shell,
    allowed ? { rawOutput: { exitCode: 0, stdout: '1 hello.txt\n', stderr: '' } } : {},
    allowed ? 140 : 18,
  );
  s.done(read, { rawOutput: { content: HELLO } }, 3);
  s.done(edit, { content: [newFile('out.txt', 'hi')] }, 41);
  s.think(
    allowed ? 'All three steps worked.' : 'The read and the new file worked; the shell command was rejected.',
    1350,
  );
  s.say(
    '**Step results**\n\n' +
      '1. **Read `hello.txt`**: worked (`hello, world`).\n' +
      (allowed
        ? '2. **Run `wc -l hello.txt`**: worked (`1 hello.txt`).\n'
        : '2. **Run `wc -l hello.txt`**: blocked, the shell command was rejected.\n') +
      '3. **Create `out.txt`** with `hi`: worked.\n',
    1,
  );
  s.end('end_turn');
}

mkdirSync(OUT, { recursive: true });
for (const [name, build] of Object.entries(scenarios)) {
  const s = new Transcript(name);
  build(s);
  console.log(`recordings/${name}.jsonl: ${s.save()} rows`);
}
