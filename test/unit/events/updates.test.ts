import { describe, expect, it } from 'vitest';
import { ToolStore } from '../../../src/events/tools.js';
import { eventsFromUpdate, extension, readUsage, type UpdateContext } from '../../../src/events/updates.js';

const newContext = (): UpdateContext => ({ tools: new ToolStore(), lastTodos: '', title: null, mode: null });
const params = (update: Record<string, unknown>) => ({ sessionId: 's1', update });

describe('eventsFromUpdate', () => {
  it.each([
    { sessionUpdate: 'agent_message_chunk', type: 'message' },
    { sessionUpdate: 'agent_thought_chunk', type: 'thought' },
  ])('turns $sessionUpdate text into a $type event', ({ sessionUpdate, type }) => {
    const update = { sessionUpdate, content: { type: 'text', text: 'Sure, I will' } };
    expect(eventsFromUpdate(params(update), newContext())).toEqual([{ type, text: 'Sure, I will' }]);
  });

  it.each([
    {
      block: { type: 'image', data: 'AAAA', mimeType: 'image/png' },
      event: { text: '', content: { type: 'image', name: null, uri: null, mimeType: 'image/png' } },
    },
    {
      block: { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
      event: { text: '', content: { type: 'audio', name: null, uri: null, mimeType: 'audio/wav' } },
    },
    {
      block: {
        type: 'resource_link',
        name: 'notes.md',
        uri: 'file:///w/notes.md',
        mimeType: 'text/markdown',
      },
      event: {
        text: '',
        content: {
          type: 'resource_link',
          name: 'notes.md',
          uri: 'file:///w/notes.md',
          mimeType: 'text/markdown',
        },
      },
    },
    {
      block: {
        type: 'resource',
        resource: { uri: 'file:///w/a.txt', mimeType: 'text/plain', text: 'hello' },
      },
      event: {
        text: 'hello',
        content: {
          type: 'resource',
          name: 'file:///w/a.txt',
          uri: 'file:///w/a.txt',
          mimeType: 'text/plain',
        },
      },
    },
    {
      block: { type: 'resource', resource: { uri: 'file:///w/b.bin', blob: 'AAAA' } },
      event: {
        text: '',
        content: { type: 'resource', name: 'file:///w/b.bin', uri: 'file:///w/b.bin', mimeType: null },
      },
    },
  ])('names a $block.type message chunk, with an embedded resource’s text', ({ block, event }) => {
    const p = params({ sessionUpdate: 'agent_message_chunk', content: block });
    expect(eventsFromUpdate(p, newContext())).toEqual([{ type: 'message', ...event }]);
  });

  it('keeps an update without params, or without an update, as an extension with params null', () => {
    expect(eventsFromUpdate(undefined, newContext())).toEqual([
      { type: 'extension', method: 'session/update', params: null },
    ]);
    expect(extension('x/y', undefined)).toEqual({ type: 'extension', method: 'x/y', params: null });
  });

  it('turns an ACP plan into todos, numbered by position, once per change', () => {
    const ctx = newContext();
    const plan = params({
      sessionUpdate: 'plan',
      entries: [
        { content: 'Read', priority: 'high', status: 'completed' },
        { content: 'Write', priority: 'low', status: 'in_progress' },
      ],
    });
    expect(eventsFromUpdate(plan, ctx)).toEqual([
      {
        type: 'todos',
        source: 'plan',
        todos: [
          { id: '1', content: 'Read', status: 'completed', priority: 'high' },
          { id: '2', content: 'Write', status: 'in_progress', priority: 'low' },
        ],
      },
    ]);
    expect(eventsFromUpdate(plan, ctx)).toEqual([]);
  });

  it('keeps the last usage_update for the result, and the update itself', () => {
    const ctx = newContext();
    eventsFromUpdate(params({ sessionUpdate: 'usage_update', used: 10, size: 100 }), ctx);
    const u = params({
      sessionUpdate: 'usage_update',
      used: 20,
      size: 100,
      cost: { amount: 0.5, currency: 'USD' },
    });
    expect(eventsFromUpdate(u, ctx)).toEqual([{ type: 'extension', method: 'session/update', params: u }]);
    expect(ctx.usage).toEqual({ used: 20, size: 100, cost: { amount: 0.5, currency: 'USD' } });
    eventsFromUpdate(params({ sessionUpdate: 'usage_update', used: 'many' }), ctx);
    expect(ctx.usage).toEqual({ used: 20, size: 100, cost: { amount: 0.5, currency: 'USD' } });
  });

  it.each([
    { severity: 'warning', code: 'agent-warning' },
    { severity: 'error', code: 'agent-error' },
  ])('turns a $severity notice into a warning the person sees', ({ severity, code }) => {
    const n = params({
      sessionUpdate: 'notice',
      severity,
      title: 'Rate limited',
      description: 'retrying in 5s',
    });
    expect(eventsFromUpdate(n, newContext())).toEqual([
      { type: 'warning', code, message: expect.stringMatching(/Rate limited \(retrying in 5s\)$/) },
    ]);
  });

  it('keeps an info notice as an extension', () => {
    const n = params({ sessionUpdate: 'notice', severity: 'info', title: 'Indexed' });
    expect(eventsFromUpdate(n, newContext())).toEqual([
      { type: 'extension', method: 'session/update', params: n },
    ]);
  });

  it('never renders an update for another session as the answer: a warning once, then extensions', () => {
    const ctx = { ...newContext(), sessionId: 's1' };
    const other = {
      sessionId: 's2',
      update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hi' } },
    };
    const first = eventsFromUpdate(other, ctx);
    expect(first.map((e) => e.type)).toEqual(['warning', 'extension']);
    expect(first[0]).toMatchObject({ code: 'foreign-session-update' });
    expect(eventsFromUpdate(other, ctx)).toEqual([
      { type: 'extension', method: 'session/update', params: other },
    ]);
    expect(eventsFromUpdate({ ...other, sessionId: 's1' }, ctx)).toEqual([{ type: 'message', text: 'hi' }]);
  });

  it('turns tool_call and tool_call_update into the merged tool state', () => {
    const ctx = newContext();
    eventsFromUpdate(
      params({
        sessionUpdate: 'tool_call',
        toolCallId: 't',
        title: 'Read hello.txt',
        kind: 'read',
        status: 'pending',
      }),
      ctx,
    );
    const events = eventsFromUpdate(
      params({
        sessionUpdate: 'tool_call_update',
        toolCallId: 't',
        status: 'completed',
        rawOutput: { content: 'hi' },
      }),
      ctx,
    );
    expect(events).toEqual([
      expect.objectContaining({
        type: 'tool',
        toolCallId: 't',
        title: 'Read hello.txt',
        status: 'completed',
        output: { content: 'hi' },
      }),
    ]);
  });

  it('emits todos from an updateTodos tool only when the list changes', () => {
    const ctx = newContext();
    const todo = (id: string, status: string) => ({
      id,
      content: id,
      status,
      createdAt: '1',
      dependencies: [],
    });
    const update = (extra: Record<string, unknown>) =>
      eventsFromUpdate(params({ sessionUpdate: 'tool_call_update', toolCallId: 'todo', ...extra }), ctx).map(
        (e) => e.type,
      );
    const start = eventsFromUpdate(
      params({
        sessionUpdate: 'tool_call',
        toolCallId: 'todo',
        kind: 'other',
        rawInput: { _toolName: 'updateTodos' },
      }),
      ctx,
    );
    expect(start.map((e) => e.type)).toEqual(['tool']);
    expect(
      update({ rawInput: { _toolName: 'updateTodos', todos: [todo('a', 'TODO_STATUS_IN_PROGRESS')] } }),
    ).toEqual(['tool', 'todos']);
    expect(update({ status: 'in_progress' })).toEqual(['tool']);
    expect(
      update({ rawInput: { _toolName: 'updateTodos', todos: [todo('a', 'TODO_STATUS_IN_PROGRESS')] } }),
    ).toEqual(['tool']);
    const changed = eventsFromUpdate(
      params({
        sessionUpdate: 'tool_call_update',
        toolCallId: 'todo',
        rawInput: {
          _toolName: 'updateTodos',
          todos: [todo('a', 'TODO_STATUS_COMPLETED'), todo('b', 'TODO_STATUS_PENDING')],
        },
      }),
      ctx,
    );
    expect(changed[1]).toEqual({
      type: 'todos',
      source: 'tool',
      todos: [
        { id: 'a', content: 'a', status: 'completed' },
        { id: 'b', content: 'b', status: 'pending' },
      ],
    });
  });

  it('turns current_mode_update into a mode event and records the mode', () => {
    const ctx = newContext();
    expect(
      eventsFromUpdate(params({ sessionUpdate: 'current_mode_update', currentModeId: 'plan' }), ctx),
    ).toEqual([{ type: 'mode', mode: 'plan' }]);
    expect(ctx.mode).toBe('plan');
  });

  it('passes a current_mode_update without a mode on as an extension, keeping the mode', () => {
    const ctx = newContext();
    ctx.mode = 'agent';
    const p = params({ sessionUpdate: 'current_mode_update' });
    expect(eventsFromUpdate(p, ctx)).toEqual([{ type: 'extension', method: 'session/update', params: p }]);
    expect(ctx.mode).toBe('agent');
  });

  it('records the session title and passes session_info_update on as an extension', () => {
    const ctx = newContext();
    const p = params({ sessionUpdate: 'session_info_update', title: 'Tidy Up The Greeting' });
    expect(eventsFromUpdate(p, ctx)).toEqual([{ type: 'extension', method: 'session/update', params: p }]);
    expect(ctx.title).toBe('Tidy Up The Greeting');
  });

  it.each([
    { sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'review' }] },
    { sessionUpdate: 'subagent_spawned', subagentId: 'sa1' },
    { sessionUpdate: 'config_option_update', configOptions: [] },
    { sessionUpdate: 'compaction_update', compactionId: 'c1', status: 'in_progress' },
    { sessionUpdate: undefined },
  ])('passes $sessionUpdate through as an extension with its params', (update) => {
    const p = params(update);
    expect(eventsFromUpdate(p, newContext())).toEqual([
      { type: 'extension', method: 'session/update', params: p },
    ]);
  });

  it.each([[null], ['text'], [{ sessionId: 's1' }], [{ update: [] }]])(
    'passes params %j without an update object through as an extension',
    (p) => {
      expect(eventsFromUpdate(p, newContext())).toEqual([
        { type: 'extension', method: 'session/update', params: p },
      ]);
    },
  );
});

describe('fields a known update kind does not name', () => {
  it.each([
    [
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hi' }, messageId: 'm1' },
      'message',
    ],
    [
      { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'hm' }, _meta: { a: 1 } },
      'thought',
    ],
    [{ sessionUpdate: 'current_mode_update', currentModeId: 'plan', reason: 'asked' }, 'mode'],
    [{ sessionUpdate: 'plan', entries: [{ content: 'x', status: 'pending' }], version: 3 }, 'todos'],
    [{ sessionUpdate: 'notice', severity: 'warning', title: 't', code: 'E42' }, 'warning'],
    [{ sessionUpdate: 'tool_call', toolCallId: 't1', title: 'ls', kind: 'execute', durationMs: 5 }, 'tool'],
  ])('%j keeps them as extra on its %s event', (update, type) => {
    const { sessionUpdate, ...rest } = update as Record<string, unknown>;
    void sessionUpdate;
    const named = ['content', 'currentModeId', 'entries', 'severity', 'title', 'toolCallId', 'kind'];
    const expected = Object.fromEntries(Object.entries(rest).filter(([k]) => !named.includes(k)));
    const [first] = eventsFromUpdate({ ...params(update), _meta: { trace: 'x' } }, newContext());
    expect(first!.type).toBe(type);
    expect((first as { extra?: unknown }).extra).toEqual({ ...expected, 'params._meta': { trace: 'x' } });
  });

  it('none when there are none, and a tool keeps its extras to the one event they came with', () => {
    const ctx = newContext();
    const [first] = eventsFromUpdate(
      params({ sessionUpdate: 'tool_call', toolCallId: 't1', title: 'ls', x: 1 }),
      ctx,
    );
    expect((first as { extra?: unknown }).extra).toEqual({ x: 1 });
    const [next] = eventsFromUpdate(
      params({ sessionUpdate: 'tool_call_update', toolCallId: 't1', status: 'completed' }),
      ctx,
    );
    expect(next).not.toHaveProperty('extra');
    expect(
      eventsFromUpdate(
        params({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'a' } }),
        ctx,
      ),
    ).toEqual([{ type: 'message', text: 'a' }]);
  });
});

describe('readUsage', () => {
  const cost = { amount: 0.07, currency: 'USD' };
  it.each([
    { said: 'every field', update: { used: 5, size: 100, cost }, usage: { used: 5, size: 100, cost } },
    { said: 'used null (Claude)', update: { used: null, size: 100, cost }, usage: { size: 100, cost } },
    { said: 'no cost', update: { used: 5, size: 100 }, usage: { used: 5, size: 100 } },
    { said: 'cost null', update: { used: 5, size: 100, cost: null }, usage: { used: 5, size: 100 } },
    { said: 'only a cost', update: { used: null, size: null, cost }, usage: { cost } },
    { said: 'all null', update: { used: null, size: null, cost: null }, usage: undefined },
    { said: 'used a string', update: { used: 'many', size: 100 }, usage: undefined },
    { said: 'a malformed cost', update: { used: 5, size: 100, cost: { amount: '1' } }, usage: undefined },
  ])('$said', ({ update, usage }) => {
    expect(readUsage({ sessionUpdate: 'usage_update', ...update })).toEqual(usage);
  });
});
