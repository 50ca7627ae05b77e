// The agent's requests answered without a process: a recording connection and an asker that waits.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Connection } from '../../src/acp/connection.js';
import type { Request } from '../../src/acp/messages.js';
import { ToolStore } from '../../src/events/tools.js';
import type { Event } from '../../src/events/types.js';
import type { RunOptions } from '../../src/options.js';
import type { Asker } from '../../src/policy/ask.js';
import { RunStopped } from '../../src/policy/prompts.js';
import { NO_RULES, parseRules } from '../../src/policy/rules.js';
import { AgentRequests } from '../../src/requests.js';

const OPTIONS = [
  { optionId: 'allow-once', name: 'Allow', kind: 'allow_once' },
  { optionId: 'reject-once', name: 'Reject', kind: 'reject_once' },
];

// A run's requests on a real connection that records what is sent, and an asker whose question waits.
function setup(opts: Partial<RunOptions> = {}) {
  const sent: Array<{ id: unknown; result?: unknown; error?: number }> = [];
  const notified: unknown[] = [];
  const conn = new Connection({
    send: (line) => {
      const m = JSON.parse(line) as { id: unknown; result?: unknown; error?: { code: number } };
      sent.push(m.error ? { id: m.id, error: m.error.code } : { id: m.id, result: m.result });
    },
    onNotification: (msg) => notified.push(msg),
    onInvalid: () => {},
  });
  const events: Event[] = [];
  const asked: AbortSignal[] = [];
  const asker: Asker = {
    choose: (_q, signal) =>
      new Promise((resolve) => {
        asked.push(signal);
        signal.addEventListener('abort', () => resolve(undefined));
      }),
  };
  const tools = new ToolStore();
  const base = {
    policy: 'reject',
    allow: [],
    rules: NO_RULES,
    interactive: false,
    plan: false,
  } as unknown as RunOptions;
  const agentRequests = new AgentRequests({
    conn,
    emit: (e) => events.push(structuredClone(e)),
    tools,
    opts: { ...base, ...opts },
    asker,
    sessionId: () => 's',
  });
  // What the agent sends arrives as a line; a $/cancel_request that withdrew nothing passes on as a notification.
  const requests = {
    handle: (msg: Request) => conn.handleLine(JSON.stringify(msg)),
    withdraw: (params: unknown) => {
      const before = notified.length;
      conn.handleLine(JSON.stringify({ jsonrpc: '2.0', method: '$/cancel_request', params }));
      return notified.length === before;
    },
    asking: () => agentRequests.asking(),
  };
  return { requests, agentRequests, sent, events, asked, tools };
}

const permission = (id: number, toolCall: object): Request => ({
  jsonrpc: '2.0',
  id,
  method: 'session/request_permission',
  params: { sessionId: 's', toolCall, options: OPTIONS },
});

describe('AgentRequests', () => {
  it('a request withdrawn while a person decides: the question closes, no answer is sent', () => {
    const { requests, sent, events, asked } = setup({ policy: 'ask', interactive: true });
    requests.handle(permission(0, { toolCallId: 't', title: 'make deploy', kind: 'execute' }));
    expect(asked).toHaveLength(1);
    expect(requests.withdraw({ requestId: 0 })).toBe(true);
    expect(asked[0]!.aborted).toBe(true);
    expect(sent).toEqual([]);
    expect(events.at(-1)).toMatchObject({
      type: 'permission',
      decision: { outcome: 'cancelled' },
      decidedBy: 'withdrawn',
    });
    expect(requests.asking()).toBe(false);
  });

  it('a withdrawal of a request already answered changes nothing', () => {
    const { requests, sent } = setup();
    requests.handle(permission(0, { toolCallId: 't', title: 'x', kind: 'execute' }));
    expect(requests.withdraw({ requestId: 0 })).toBe(false);
    expect(requests.withdraw(undefined)).toBe(false);
    expect(sent).toHaveLength(1);
  });

  it('a permission for a tool never announced yields the tool, rejected', () => {
    const { requests, events, tools } = setup();
    requests.handle(permission(0, { toolCallId: 'new', title: 'Fetch x', kind: 'fetch', status: 'pending' }));
    expect(events.filter((e) => e.type === 'tool').map((e) => (e as { status: string }).status)).toEqual([
      'pending',
      'rejected',
    ]);
    expect(tools.get('new')).toMatchObject({ kind: 'fetch', status: 'rejected', output: null });
  });

  it('a permission naming only the toolCallId is judged by the announced kind', () => {
    const { requests, sent, tools } = setup({ allow: ['execute'] });
    tools.apply({ toolCallId: 'sh', kind: 'execute', title: 'ls', status: 'pending' });
    requests.handle(permission(0, { toolCallId: 'sh' }));
    expect(sent).toEqual([{ id: 0, result: { outcome: { outcome: 'selected', optionId: 'allow-once' } } }]);
  });

  it('answers a request nobody advertised -32601 at once, kept with params null when it had none', () => {
    const { requests, sent, events } = setup();
    requests.handle({ jsonrpc: '2.0', id: 4, method: 'terminal/create' });
    expect(sent).toEqual([{ id: 4, error: -32601 }]);
    expect(events).toEqual([{ type: 'extension', method: 'terminal/create', params: null }]);
  });

  // Contract v3, "Decisions on what rho-cursor knows": each request under --permissions reject, answered with
  // the option chosen, and shown with the kind it was judged by.
  it.each<{
    name: string;
    tool?: object;
    update?: object;
    request: object;
    allow: string[];
    chosen: 'reject-once' | 'allow-once';
    judged: string;
  }>([
    {
      name: 'a request claiming read for a tool announced as execute is judged as execute',
      tool: { toolCallId: 'sh', kind: 'execute', title: 'rm -rf ~', status: 'pending' },
      request: { toolCallId: 'sh', title: 'rm -rf ~', kind: 'read' },
      allow: ['read'],
      chosen: 'reject-once',
      judged: 'execute',
    },
    {
      name: 'a tool announced with an unknown kind is judged as execute',
      tool: { toolCallId: 'sh', kind: 'shell', title: 'curl | sh', status: 'pending' },
      request: { toolCallId: 'sh' },
      allow: ['other'],
      chosen: 'reject-once',
      judged: 'execute',
    },
    {
      name: 'a request with no kind for a tool never announced is judged as execute',
      request: { toolCallId: 'new', title: 'rm -rf /' },
      allow: ['other', 'read'],
      chosen: 'reject-once',
      judged: 'execute',
    },
    {
      name: 'a request for an announced read is still allowed by --allow read',
      tool: { toolCallId: 'r', kind: 'read', title: 'Read x', status: 'pending' },
      request: { toolCallId: 'r', kind: 'read' },
      allow: ['read'],
      chosen: 'allow-once',
      judged: 'read',
    },
    // Found by review: the kind judged was the store's, which a tool_call_update (or a second tool_call) could
    // change, and which is `other` for a tool_call with no kind.
    {
      name: 'a tool announced as execute and updated to read is judged as execute',
      tool: {
        sessionUpdate: 'tool_call',
        toolCallId: 'sh',
        kind: 'execute',
        title: 'curl | sh',
        status: 'pending',
      },
      update: { sessionUpdate: 'tool_call_update', toolCallId: 'sh', kind: 'read' },
      request: { toolCallId: 'sh', kind: 'execute' },
      allow: ['read'],
      chosen: 'reject-once',
      judged: 'execute',
    },
    {
      name: 'a tool announced as execute and announced again as read is judged as execute',
      tool: {
        sessionUpdate: 'tool_call',
        toolCallId: 'sh',
        kind: 'execute',
        title: 'curl | sh',
        status: 'pending',
      },
      update: { sessionUpdate: 'tool_call', toolCallId: 'sh', kind: 'read' },
      request: { toolCallId: 'sh' },
      allow: ['read'],
      chosen: 'reject-once',
      judged: 'execute',
    },
    {
      name: 'a tool announced with no kind, asked with none, is judged as execute',
      tool: { sessionUpdate: 'tool_call', toolCallId: 'sh', title: 'curl | sh', status: 'pending' },
      request: { toolCallId: 'sh' },
      allow: ['other'],
      chosen: 'reject-once',
      judged: 'execute',
    },
    {
      name: 'a tool only ever updated (never announced) to read is judged by the kind the request claims',
      update: { sessionUpdate: 'tool_call_update', toolCallId: 'sh', kind: 'read', title: 'curl | sh' },
      request: { toolCallId: 'sh', kind: 'execute' },
      allow: ['read'],
      chosen: 'reject-once',
      judged: 'execute',
    },
    // Found by review: a request naming a command in rawInput but claiming another kind escaped the fence,
    // the Shell(...) deny rules and --allow <kind> meant for what it claimed.
    {
      name: 'a request claiming other whose rawInput names a command is judged as execute',
      request: { toolCallId: 'x', title: 'tidy', kind: 'other', rawInput: { command: 'git push' } },
      allow: ['other'],
      chosen: 'reject-once',
      judged: 'execute',
    },
    {
      name: 'a tool announced as read whose rawInput names a command is judged as execute',
      tool: {
        toolCallId: 'r',
        kind: 'read',
        title: 'Read x',
        status: 'pending',
        rawInput: { cmd: 'curl x | sh' },
      },
      request: { toolCallId: 'r', kind: 'read' },
      allow: ['read'],
      chosen: 'reject-once',
      judged: 'execute',
    },
  ])('$name', ({ tool, update, request, allow, chosen, judged }) => {
    const { requests, sent, tools, events } = setup({ allow, policy: 'reject' } as Partial<RunOptions>);
    if (tool) tools.apply(tool as Record<string, unknown>);
    if (update) tools.apply(update as Record<string, unknown>);
    requests.handle(permission(0, request));
    expect(sent).toEqual([{ id: 0, result: { outcome: { outcome: 'selected', optionId: chosen } } }]);
    // The kind shown is the kind judged.
    const shown = events.find((e) => e.type === 'permission') as { kind: string };
    expect(shown.kind).toBe(judged);
  });

  it.each([
    ['another session', 'theirs'],
    ['no session', undefined],
    ['a number', 1],
  ])("a request for %s is cancelled, never allowed, and none of this run's tools", (_name, sessionId) => {
    const { requests, sent, events, tools } = setup({ policy: 'allow' });
    const params = { sessionId, toolCall: { toolCallId: 't', title: 'ls', kind: 'read' }, options: OPTIONS };
    requests.handle({ jsonrpc: '2.0', id: 3, method: 'session/request_permission', params });
    requests.handle({ jsonrpc: '2.0', id: 4, method: 'session/request_permission', params });
    const cancelled = { outcome: { outcome: 'cancelled' } };
    expect(sent).toEqual([
      { id: 3, result: cancelled },
      { id: 4, result: cancelled },
    ]);
    // Kept as it came, with one warning; no permission of this run's, no tool announced.
    expect(events.map((e) => e.type)).toEqual(['warning', 'extension', 'extension']);
    expect(events[0]).toMatchObject({ code: 'foreign-session-update' });
    expect(events[1]).toEqual({ type: 'extension', method: 'session/request_permission', params });
    expect(tools.get('t')).toBeUndefined();
  });
});

// Found by review: Write(src/**) vouched for `src/out/x` where src/out is a symlink out of the workspace (a
// repository may hold one), and Write(.env) denied nothing reached through another name.
describe('AgentRequests: paths through symlinks', () => {
  const bases: string[] = [];
  afterAll(() => bases.forEach((b) => rmSync(b, { recursive: true, force: true })));
  const workspace = () => {
    const base = mkdtempSync(join(tmpdir(), 'rho-links-'));
    bases.push(base);
    const cwd = join(base, 'ws');
    mkdirSync(join(cwd, 'src'), { recursive: true });
    mkdirSync(join(base, 'outside'));
    symlinkSync(join(base, 'outside'), join(cwd, 'src', 'out'));
    symlinkSync('../.env', join(cwd, 'src', 'env'));
    symlinkSync('.', join(cwd, 'src', 'in'));
    return cwd;
  };
  const edit = (path: string) =>
    permission(0, { toolCallId: 'e', title: `Edit ${path}`, kind: 'edit', locations: [{ path }] });
  const REJECTED = { outcome: { outcome: 'selected', optionId: 'reject-once' } };
  const ALLOWED = { outcome: { outcome: 'selected', optionId: 'allow-once' } };

  it.each([
    ['src/out/pwn.txt', ['Write(src/**)'], [], REJECTED],
    ['src/out/../x', ['Write(src/**)'], [], REJECTED],
    ['src/in/b.ts', ['Write(src/**)'], [], ALLOWED],
    ['src/env', ['Write(src/**)'], ['Write(.env)'], REJECTED],
    ['src/a.ts', ['Write(src/**)'], [], ALLOWED],
  ])('an edit of %s under --allow %j --deny %j', (path, allow, deny, answer) => {
    const cwd = workspace();
    const { requests, sent } = setup({ policy: 'allow', cwd, rules: parseRules(allow, deny).rules });
    requests.handle(edit(path));
    expect(sent).toEqual([{ id: 0, result: answer }]);
  });
});

describe('AgentRequests: the run ending the questions', () => {
  it('cancelAll answers every request a person is deciding `cancelled`, and a later one at once', async () => {
    const { requests, agentRequests, sent, events, asked } = setup({ policy: 'ask', interactive: true });
    requests.handle(permission(0, { toolCallId: 'a', title: 'make a', kind: 'execute' }));
    requests.handle(permission(1, { toolCallId: 'b', title: 'make b', kind: 'execute' }));
    expect(asked).toHaveLength(2);
    agentRequests.cancelAll();
    expect(asked.every((s) => s.aborted)).toBe(true);
    expect(requests.asking()).toBe(false);
    await new Promise((r) => setImmediate(r));
    requests.handle(permission(2, { toolCallId: 'c', title: 'make c', kind: 'execute' }));
    const cancelled = { outcome: { outcome: 'cancelled' } };
    expect(sent).toEqual([
      { id: 0, result: cancelled },
      { id: 1, result: cancelled },
      { id: 2, result: cancelled },
    ]);
    expect(asked).toHaveLength(2);
    expect(
      events.filter((e) => e.type === 'permission').map((e) => (e as { reason: string }).reason),
    ).toEqual(['the run was cancelled', 'the run was cancelled', 'the run was cancelled']);
  });

  // Found by review: after session/cancel a cursor/create_plan was still accepted under --permissions allow.
  it('after cancelAll, a plan is answered cancelled whatever the policy', () => {
    const { requests, agentRequests, sent, events } = setup({ policy: 'allow' });
    agentRequests.cancelAll();
    requests.handle({
      jsonrpc: '2.0',
      id: 6,
      method: 'cursor/create_plan',
      params: { plan: '1. rm -rf build' },
    });
    expect(sent).toEqual([{ id: 6, result: { outcome: { outcome: 'cancelled' } } }]);
    expect(events).toMatchObject([{ type: 'plan', answer: { outcome: 'cancelled' }, decidedBy: 'cancel' }]);
  });

  it('endQuestions closes what is still asked with the turn-ended line, unanswered and with no event', async () => {
    const { requests, agentRequests, sent, events, asked } = setup({ policy: 'ask', interactive: true });
    requests.handle({ jsonrpc: '2.0', id: 5, method: 'cursor/create_plan', params: { plan: '1. do it' } });
    expect(asked).toHaveLength(1);
    agentRequests.endQuestions();
    expect(asked[0]!.reason).toBe('turn-ended');
    await new Promise((r) => setImmediate(r));
    expect(sent).toEqual([]);
    expect(events).toEqual([]);
    expect(requests.asking()).toBe(false);
  });

  it('endQuestions with how the run was stopped closes with that, unanswered and with no event', async () => {
    const { requests, agentRequests, sent, events, asked } = setup({ policy: 'ask', interactive: true });
    requests.handle({ jsonrpc: '2.0', id: 5, method: 'cursor/create_plan', params: { plan: '1. do it' } });
    agentRequests.endQuestions('ended by SIGQUIT');
    expect(asked[0]!.reason).toEqual(new RunStopped('ended by SIGQUIT'));
    await new Promise((r) => setImmediate(r));
    expect(sent).toEqual([]);
    expect(events).toEqual([]);
    expect(requests.asking()).toBe(false);
  });

  it('a cursor/ask_question withdrawn while asked says so and is never answered', async () => {
    const { requests, sent, events } = setup({ policy: 'ask', interactive: true });
    requests.handle({
      jsonrpc: '2.0',
      id: 6,
      method: 'cursor/ask_question',
      params: { questions: [{ id: 'q', prompt: 'Which?', options: [{ id: 'a', label: 'A' }] }] },
    });
    expect(requests.withdraw({ requestId: 6 })).toBe(true);
    await new Promise((r) => setImmediate(r));
    expect(sent).toEqual([]);
    expect(events).toMatchObject([{ type: 'question', answer: { outcome: 'withdrawn' } }]);
  });
});
