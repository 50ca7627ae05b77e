// --resume and --continue: session/load instead of session/new, the replayed history kept apart from the
// answer, and the agents that cannot load or list sessions.
import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, makeAgentDir } from '../helpers/agent-path.js';
import { finish, startCli, tempDir } from '../helpers/cli.js';
import { waitForGone } from '../helpers/processes.js';
import { testTiming } from '../helpers/timing.js';

const SJ = ['--output-format', 'stream-json'];
const agentPath = makeAgentDir(join(FIXTURES, 'scripted.mjs')).then((d) => join(d, 'cursor-agent'));
const OLD = 'sess-old-0001';

const update = (sessionId: string, u: object): object => ({
  jsonrpc: '2.0',
  method: 'session/update',
  params: { sessionId, update: u },
});
const chunk = (sessionId: string, kind: string, text: string): object =>
  update(sessionId, { sessionUpdate: kind, content: { type: 'text', text } });

const CAPS = { loadSession: true, sessionCapabilities: { list: {} } };
const initialize = (agentCapabilities: object) => ({
  result: { protocolVersion: 1, agentCapabilities, authMethods: [] },
});

async function resumeRun(
  args: string[],
  script: object,
  caps: object = CAPS,
  env: Record<string, string> = {},
) {
  const dir = tempDir();
  const recvLog = join(dir, 'recv');
  const r = await finish(
    startCli(args, {
      agent: await agentPath,
      cliConfig: { approvalMode: 'allowlist' },
      env: { RHO_SCRIPT: JSON.stringify({ initialize: initialize(caps), recvLog, ...script }), ...env },
    }),
    args.includes('stream-json'),
  );
  const received = readFileSync(recvLog, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { method?: string; params?: Record<string, unknown> });
  return { r, received, methods: received.map((m) => m.method).filter(Boolean) };
}

// An old conversation as Cursor replays it: the user's words, the agent's reply, a tool.
const HISTORY = [
  chunk(OLD, 'user_message_chunk', 'what is 2+2?'),
  chunk(OLD, 'agent_message_chunk', 'OLD ANSWER'),
  update(OLD, {
    sessionUpdate: 'tool_call',
    toolCallId: 'old_tool',
    title: 'ls',
    kind: 'execute',
    status: 'completed',
  }),
];
const NEW = { before: [chunk(OLD, 'agent_message_chunk', 'new answer')] };

describe('--resume', () => {
  it('loads the session; the replayed history is history events, never the answer', async () => {
    const { r, received, methods } = await resumeRun(['run', ...SJ, '--resume', OLD, 'and 3+3?'], {
      ...NEW,
      history: HISTORY.slice(0, 2),
      historyAfter: HISTORY.slice(2),
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(methods).toEqual(['initialize', 'session/load', 'session/prompt']);
    const load = received.find((m) => m.method === 'session/load')!;
    expect(load.params).toMatchObject({ sessionId: OLD, mcpServers: [] });
    expect(received.find((m) => m.method === 'session/prompt')!.params).toMatchObject({ sessionId: OLD });
    const types = r.events.map((e) => e.type);
    // Cursor replays some history after the load's answer: it is still history, and comes before `session`.
    expect(types.filter((t) => t === 'history')).toHaveLength(3);
    expect(types.lastIndexOf('history')).toBeLessThan(types.indexOf('session'));
    expect(r.events.find((e) => e.type === 'session')).toMatchObject({
      sessionId: OLD,
      resumed: true,
      replayed: 3,
    });
    expect(r.events.filter((e) => e.type === 'message')).toEqual([{ type: 'message', text: 'new answer' }]);
    expect(r.events.some((e) => e.type === 'tool')).toBe(false);
    expect(r.events.at(-1)).toMatchObject({ type: 'result', sessionId: OLD, exitCode: 0 });
  });

  // Found by review: a thought in the exact shape of Cursor's lines (read by the fast path) was replayed as a
  // history event saying agent_message_chunk, the old reasoning read as the agent's reply.
  it('a replayed thought is a history thought, whatever the order of its keys', async () => {
    const fast = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"${OLD}","update":{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"first thought"}}}}`;
    const { r } = await resumeRun(['run', ...SJ, '--resume', OLD, 'go'], {
      ...NEW,
      history: [fast, chunk(OLD, 'agent_thought_chunk', 'second thought')],
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.events.filter((e) => e.type === 'history').map((e) => e.update)).toEqual([
      { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'first thought' } },
      { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'second thought' } },
    ]);
  });

  // Found by review: the replayed update's params-level fields (a messageId, _meta) were dropped.
  it('a replayed update keeps its params-level fields in extra, as a live one does', async () => {
    const withMeta = {
      jsonrpc: '2.0',
      method: 'session/update',
      params: {
        sessionId: OLD,
        update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'old' } },
        messageId: 'm-1',
        _meta: { x: 1 },
      },
    };
    const { r } = await resumeRun(['run', ...SJ, '--resume', OLD, 'go'], { ...NEW, history: [withMeta] });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.events.filter((e) => e.type === 'history')).toEqual([
      {
        type: 'history',
        update: withMeta.params.update,
        extra: { 'params.messageId': 'm-1', 'params._meta': { x: 1 } },
      },
    ]);
  });

  // Found by review: a request the agent sent while the session loaded was this run's: a permission allowed by
  // the policy before any prompt was sent (and counted for --strict), todos and a plan in the result.
  it("a request sent while the session loads is history, answered cancelled, never this run's", async () => {
    const perm = {
      jsonrpc: '2.0',
      id: 70,
      method: 'session/request_permission',
      params: {
        sessionId: OLD,
        toolCall: {
          toolCallId: 'old_t',
          title: 'rm -rf /',
          kind: 'execute',
          rawInput: { command: 'echo hi' },
        },
        options: [
          { optionId: 'allow-once', name: 'Allow', kind: 'allow_once' },
          { optionId: 'reject-once', name: 'Reject', kind: 'reject_once' },
        ],
      },
    };
    const todos = {
      jsonrpc: '2.0',
      id: 71,
      method: 'cursor/update_todos',
      params: { toolCallId: 'old_todo', todos: [{ id: 'a', content: 'old todo', status: 'pending' }] },
    };
    const plan = { jsonrpc: '2.0', id: 72, method: 'cursor/create_plan', params: { plan: '# old plan' } };
    const question = {
      jsonrpc: '2.0',
      id: 73,
      method: 'cursor/ask_question',
      params: {
        title: 'old?',
        questions: [{ id: 'q', prompt: 'which?', options: [{ id: 'x', label: 'x' }] }],
      },
    };
    for (const policy of ['allow', 'reject']) {
      const { r, received } = await resumeRun(
        ['run', ...SJ, '--strict', '--permissions', policy, '--resume', OLD, 'go'],
        { ...NEW, history: [perm, todos], historyAfter: [plan, question] },
      );
      expect(r.exitCode, r.stderr).toBe(0);
      const answers = new Map(received.map((m) => [(m as { id?: number }).id, m as Record<string, unknown>]));
      for (const id of [70, 72, 73])
        expect(answers.get(id)).toMatchObject({ result: { outcome: { outcome: 'cancelled' } } });
      expect(answers.get(71)).toMatchObject({ error: { code: -32800 } });
      const types = r.events.map((e) => e.type);
      for (const t of ['permission', 'tool', 'todos', 'plan', 'question']) expect(types).not.toContain(t);
      const history = r.events.filter((e) => e.type === 'history');
      expect(history).toEqual([
        { type: 'history', update: null, request: { method: perm.method, params: perm.params } },
        { type: 'history', update: null, request: { method: todos.method, params: todos.params } },
        { type: 'history', update: null, request: { method: plan.method, params: plan.params } },
        { type: 'history', update: null, request: { method: question.method, params: question.params } },
      ]);
      expect(types.lastIndexOf('history')).toBeLessThan(types.indexOf('session'));
      expect(r.events.find((e) => e.type === 'session')).toMatchObject({ replayed: 4 });
      const warnings = r.events.filter((e) => e.type === 'warning' && e.code !== 'reads-edits-never-ask');
      expect(warnings).toEqual([
        expect.objectContaining({
          code: 'replayed-request',
          message: expect.stringContaining(`session/request_permission while session ${OLD} was replayed`),
        }),
      ]);
      expect(r.events.at(-1)).toMatchObject({ type: 'result', exitCode: 0 });
    }
  });

  // Found by review: a replay that outlasted the cap went on into this run's answer with no word of it.
  it('a replay still going at the cap: a replay-unfinished warning says later updates are read as the turn', async () => {
    const { r } = await resumeRun(
      ['run', ...SJ, '--resume', OLD, 'go'],
      { ...NEW, history: HISTORY.slice(0, 1), historyDrip: { count: 60, everyMs: 20 } },
      CAPS,
      testTiming({ replayQuietMs: 100, replayMaxMs: 400 }),
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const warning = r.events.find((e) => e.type === 'warning' && e.code === 'replay-unfinished');
    expect(warning?.message).toMatch(
      /still replaying session sess-old-0001 after 400 ms: .* read as this turn's/,
    );
    const types = r.events.map((e) => e.type);
    expect(types.indexOf('warning', types.indexOf('history'))).toBeLessThan(types.indexOf('session'));
  });

  it('a replay that ends within the cap gives no replay-unfinished warning', async () => {
    const { r } = await resumeRun(
      ['run', ...SJ, '--resume', OLD, 'go'],
      { ...NEW, history: HISTORY.slice(0, 1), historyDrip: { count: 5, everyMs: 20 } },
      CAPS,
      testTiming({ replayQuietMs: 100, replayMaxMs: 2000 }),
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.events.filter((e) => e.type === 'history')).toHaveLength(6);
    expect(r.events.some((e) => e.type === 'warning' && e.code === 'replay-unfinished')).toBe(false);
  });

  it('text mode: stdout is the new answer alone, stderr says what was replayed', async () => {
    const { r } = await resumeRun(['run', '--resume', OLD, 'and 3+3?'], { ...NEW, history: HISTORY });
    expect(r.exitCode, r.stderr).toBe(0);
    // (execa strips the final newline rho-cursor writes)
    expect(r.stdout).toBe('new answer');
    expect(r.stderr).toMatch(/resumed: 3 earlier updates replayed/);
    expect(r.stderr).not.toContain('OLD ANSWER');
  });

  it('json: text and tools are this turn only', async () => {
    const { r } = await resumeRun(['run', '--output-format', 'json', '--resume', OLD, 'go'], {
      ...NEW,
      history: HISTORY,
    });
    const out = JSON.parse(r.stdout) as { text: string; tools: unknown[] };
    expect(out.text).toBe('new answer');
    expect(out.tools).toEqual([]);
  });

  it('an agent without loadSession is exit 2 and no session is made', async () => {
    const { r, methods } = await resumeRun(['run', ...SJ, '--resume', OLD, 'go'], NEW, {
      loadSession: false,
    });
    expect(r.exitCode).toBe(2);
    expect(r.events.at(-1)).toMatchObject({ error: { code: 'capability_missing' } });
    expect(r.stderr).toMatch(/cannot load a session/);
    expect(methods).toEqual(['initialize']);
  });

  it('a session the agent cannot load is exit 1 with what it said', async () => {
    const { r } = await resumeRun(['run', ...SJ, '--resume', 'nope', 'go'], {
      loadError: { code: -32602, message: 'Invalid params', data: 'session nope not found' },
    });
    expect(r.exitCode).toBe(1);
    expect(r.events.at(-1)).toMatchObject({ error: { code: 'rpc_error' } });
    expect(r.stderr).toMatch(/session\/load nope failed: Invalid params: session nope not found/);
  });

  it('--resume with --continue, or an empty id, is a usage error', async () => {
    for (const args of [
      ['--resume', OLD, '--continue'],
      ['--resume', ''],
    ]) {
      const r = await finish(startCli(['run', ...SJ, ...args, 'go'], { agent: await agentPath }), true);
      expect(r.exitCode).toBe(2);
      expect(r.events).toEqual([
        expect.objectContaining({ type: 'result', error: expect.objectContaining({ code: 'usage' }) }),
      ]);
    }
  });
});

describe('--continue', () => {
  const sessions = [
    { sessionId: 's-mid', cwd: null, title: 'mid', updatedAt: '2026-11-02T10:00:00Z' },
    { sessionId: 's-old', cwd: null, title: 'old', updatedAt: '2026-10-01T10:00:00Z' },
    { sessionId: 's-new', cwd: null, title: 'new', updatedAt: '2026-12-01T09:00:00Z' },
    { sessionId: 's-undated', cwd: null, title: 'undated' },
  ];

  it('loads the newest session of the workspace, reading every page of session/list', async () => {
    const { r, received, methods } = await resumeRun(['run', ...SJ, '--continue', 'go'], {
      ...NEW,
      sessions,
      pageSize: 1,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(methods.filter((m) => m === 'session/list')).toHaveLength(4);
    expect(received.find((m) => m.method === 'session/list')!.params).toMatchObject({
      cwd: expect.any(String),
    });
    expect(received.find((m) => m.method === 'session/load')!.params).toMatchObject({ sessionId: 's-new' });
    expect(r.events.at(-1)).toMatchObject({ sessionId: 's-new' });
  });

  it('past 50 pages of session/list: the newest of those read, and a sessions-truncated warning (found by review)', async () => {
    const many = Array.from({ length: 60 }, (_, i) => ({
      sessionId: `s${i}`,
      cwd: null,
      updatedAt: new Date(Date.UTC(2026, 0, 1 + i)).toISOString(),
    }));
    const { r, received, methods } = await resumeRun(['run', ...SJ, '--continue', 'go'], {
      ...NEW,
      sessions: many,
      pageSize: 1,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(methods.filter((m) => m === 'session/list')).toHaveLength(50);
    expect(received.find((m) => m.method === 'session/load')!.params).toMatchObject({ sessionId: 's49' });
    const warning = r.events.find((e) => e.type === 'warning' && e.code === 'sessions-truncated');
    expect(warning?.message).toMatch(/more than 50 pages of sessions/);
  });

  it('with no session to continue: a new session and a no-session-to-continue warning', async () => {
    const { r, methods } = await resumeRun(['run', ...SJ, '--continue', 'go'], { sessions: [] });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(methods).toEqual(['initialize', 'session/list', 'session/new', 'session/prompt']);
    expect(r.events.filter((e) => e.type === 'warning').map((e) => e.code)).toContain(
      'no-session-to-continue',
    );
    expect(r.events.find((e) => e.type === 'session')).toMatchObject({ resumed: false, replayed: 0 });
  });

  it('an agent that cannot list sessions is exit 2', async () => {
    const { r, methods } = await resumeRun(['run', ...SJ, '--continue', 'go'], {}, { loadSession: true });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/cannot list sessions/);
    expect(methods).toEqual(['initialize']);
  });
});

describe('rho-cursor sessions', () => {
  const sessions = [
    { sessionId: 's-a', title: 'older', updatedAt: '2026-11-01T00:00:00Z' },
    { sessionId: 's-b', title: 'newer', updatedAt: '2026-12-01T00:00:00Z' },
    { sessionId: 's-c', title: 'elsewhere', updatedAt: '2026-12-02T00:00:00Z', cwd: '/somewhere/else' },
  ];

  async function sessionsRun(
    args: string[],
    script: object,
    caps: object = CAPS,
    env: Record<string, string> = {},
  ) {
    const dir = tempDir();
    const pidFile = join(dir, 'pid');
    const r = await finish(
      startCli(['sessions', ...args], {
        agent: await agentPath,
        env: { RHO_SCRIPT: JSON.stringify({ initialize: initialize(caps), pidFile, ...script }), ...env },
      }),
      false,
    );
    return { r, pid: Number(readFileSync(pidFile, 'utf8')) };
  }

  it('lists the workspace sessions newest first, every page, and ends the agent', async () => {
    const { r, pid } = await sessionsRun([], { sessions, pageSize: 2 });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.split('\n')).toEqual([
      's-b  2026-12-01T00:00:00Z  newer',
      's-a  2026-11-01T00:00:00Z  older',
    ]);
    expect(await waitForGone(pid)).toBe(true);
  });

  // Found by review: an agent whose session/list always gave the same nextCursor had the same session
  // listed once a page, 50 times.
  it('a session listed again on a later page is listed once; the truncation still said', async () => {
    const { r } = await sessionsRun([], { sessions, pageSize: 2, stuckCursor: true });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.split('\n')).toEqual([
      's-b  2026-12-01T00:00:00Z  newer',
      's-a  2026-11-01T00:00:00Z  older',
    ]);
    expect(r.stderr).toMatch(/more than 50 pages of sessions/);
  });

  it('--output-format json', async () => {
    const { r } = await sessionsRun(['--output-format', 'json'], { sessions });
    const out = JSON.parse(r.stdout) as { sessions: Array<{ sessionId: string }> };
    expect(out.sessions.map((s) => s.sessionId)).toEqual(['s-b', 's-a']);
  });

  it('an auth error from session/list is exit 3 naming it, as for run --continue (found by review)', async () => {
    const { r } = await sessionsRun(['--output-format', 'json'], {
      sessions,
      listError: { code: -32000, message: 'Authentication required' },
    });
    expect(r.exitCode, r.stderr).toBe(3);
    expect(JSON.parse(r.stdout)).toMatchObject({
      exitCode: 3,
      error: {
        code: 'auth_required',
        message: expect.stringMatching(/needs authentication: Authentication required/),
      },
    });
  });

  it('an agent that cannot list sessions is exit 2 with one line', async () => {
    const { r } = await sessionsRun([], { sessions }, { loadSession: true });
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim()).toBe(
      'rho-cursor: the agent cannot list sessions (no agentCapabilities.sessionCapabilities.list)',
    );
  });

  it('--output-format json: a failure is still one json object on stdout, as run gives', async () => {
    const { r } = await sessionsRun(['--output-format', 'json'], { sessions }, { loadSession: true });
    expect(r.exitCode).toBe(2);
    expect(JSON.parse(r.stdout)).toEqual({
      cwd: expect.any(String) as unknown,
      sessions: [],
      exitCode: 2,
      error: {
        code: 'capability_missing',
        message: expect.stringContaining('cannot list sessions') as unknown,
      },
    });
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  // Found by review: a command line commander could not parse wrote nothing on stdout.
  it.each([
    [['--bogus'], /unknown option '--bogus'/],
    [['--cwd'], /--cwd/],
    [['extra'], /too many arguments/],
  ])(
    '--output-format json: a command line it cannot parse is still one json object: %j',
    async (args, pattern) => {
      const dir = tempDir();
      const r = await finish(
        startCli(['sessions', '--output-format', 'json', ...args], { agent: null, cwd: dir }),
        false,
      );
      expect(r.exitCode).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(JSON.parse(r.stdout)).toEqual({
        cwd: dir,
        sessions: [],
        exitCode: 2,
        error: { code: 'usage', message: expect.stringMatching(pattern) as unknown },
      });
    },
  );

  it('--output-format json: the object names the --cwd given with the error', async () => {
    const dir = tempDir();
    const r = await finish(
      startCli(['sessions', '-C', dir, '--output-format=json', '--bogus'], { agent: null }),
      false,
    );
    expect(r.exitCode).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({ cwd: dir, sessions: [], exitCode: 2 });
  });

  it('a command line it cannot parse writes nothing on stdout in text', async () => {
    const r = await finish(startCli(['sessions', '--bogus'], { agent: null }), false);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
  });

  describe('under GitHub Actions, what the agent named starts no workflow command', () => {
    // Found by review: ids that are workflow commands, the legacy ##[...] form, a lone surrogate, U+2028.
    const hostile = [
      { sessionId: '::add-mask::hello', title: 't1', updatedAt: '2026-12-03T00:00:00Z' },
      { sessionId: ' ::error file=app.js,line=1::forged', title: 't2', updatedAt: '2026-12-02T00:00:00Z' },
      { sessionId: 'abc', title: 'x ##[stop-commands]pwnd \ud800 \u2028', updatedAt: '2026-12-01T00:00:00Z' },
    ];
    const GH = { GITHUB_ACTIONS: 'true' };
    // Every line between a stop-commands line and the line with its token, which are the first and last.
    const guarded = (out: string): string[] => {
      const rows = out.trimEnd().split('\n');
      const token = /^::stop-commands::(rho-[0-9a-f]{32})$/.exec(rows[0] ?? '')?.[1];
      expect(token, out).toBeDefined();
      expect(rows.at(-1)).toBe(`::${token!}::`);
      return rows.slice(1, -1);
    };

    it('the listing is written behind the guard', async () => {
      const { r } = await sessionsRun([], { sessions: hostile }, CAPS, GH);
      expect(r.exitCode, r.stderr).toBe(0);
      const rows = guarded(r.stdout);
      expect(rows).toHaveLength(3);
      expect(rows[0]).toMatch(/^::add-mask::hello/);
    });

    it('json: one line jq takes, with ##[ escaped and no lone surrogate', async () => {
      const { r } = await sessionsRun(['--output-format', 'json'], { sessions: hostile }, CAPS, GH);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).not.toContain('##[');
      expect(r.stdout).not.toMatch(/\\ud800|\u2028/);
      const jq = await execa('jq', ['-c', '.sessions[].title'], { input: r.stdout, reject: false });
      expect(jq.exitCode, jq.stderr).toBe(0);
      expect(jq.stdout.split('\n')).toContain('"x ##[stop-commands]pwnd \ufffd \u2028"');
    });

    it('an error quoting the agent is written behind the guard on stderr', async () => {
      const { r } = await sessionsRun(
        [],
        { initialize: { error: { code: -32603, message: 'failed ##[stop-commands]attacker', data: 'x' } } },
        CAPS,
        GH,
      );
      expect(r.exitCode).toBe(1);
      expect(guarded(r.stderr)).toEqual([
        'rho-cursor: initialize failed: failed ##[stop-commands]attacker: x (code -32603)',
      ]);
    });
  });
});
