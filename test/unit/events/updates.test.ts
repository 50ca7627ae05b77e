import { describe, expect, it } from 'vitest';
import { ToolStore } from '../../../src/events/tools.js';
import {
  eventsFromUpdate,
  noteMode,
  extension,
  extraFields,
  readUsage,
  type UpdateContext,
} from '../../../src/events/updates.js';

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
      lost: true,
      event: { text: '', content: { type: 'image', name: null, uri: null, mimeType: 'image/png' } },
    },
    {
      block: { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
      lost: true,
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
      lost: true,
      event: {
        text: '',
        content: { type: 'resource', name: 'file:///w/b.bin', uri: 'file:///w/b.bin', mimeType: null },
      },
    },
  ])('names a $block.type message chunk, with an embedded resource’s text', ({ block, event, lost }) => {
    const p = params({ sessionUpdate: 'agent_message_chunk', content: block });
    // What the event does not carry (data, a blob) is in extra.content, the block as sent (found by review).
    const extra = lost ? { extra: { content: block } } : {};
    expect(eventsFromUpdate(p, newContext())).toEqual([{ type: 'message', ...event, ...extra }]);
  });

  it('a text chunk with more than its text (annotations, _meta) keeps the block in extra.content', () => {
    const content = { type: 'text', text: 'A', annotations: { audience: ['user'] }, _meta: { m: 1 } };
    const p = params({ sessionUpdate: 'agent_thought_chunk', content });
    expect(eventsFromUpdate(p, newContext())).toEqual([{ type: 'thought', text: 'A', extra: { content } }]);
  });

  it.each([
    [{ currentModeId: 'plan', modeId: 'other' }, 'plan', { modeId: 'other' }],
    [{ currentModeId: 42, modeId: 'agent' }, 'agent', { currentModeId: 42 }],
    [{ currentModeId: 'plan' }, 'plan', undefined],
  ])('a mode update %o is the mode %s, what it does not carry in extra', (update, mode, extra) => {
    const events = eventsFromUpdate(
      params({ sessionUpdate: 'current_mode_update', ...update }),
      newContext(),
    );
    expect(events).toEqual([{ type: 'mode', mode, ...(extra ? { extra } : {}) }]);
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

  it('noteMode is the one writer of the mode and says whether it changed', () => {
    const ctx = newContext();
    expect(noteMode(ctx, 'agent')).toBe(true);
    expect(ctx.mode).toBe('agent');
    expect(noteMode(ctx, 'agent')).toBe(false);
    expect(noteMode(ctx, null)).toBe(true);
    expect(ctx.mode).toBeNull();
  });

  it('passes a current_mode_update without a mode on as an extension, keeping the mode', () => {
    const ctx = newContext();
    noteMode(ctx, 'agent');
    const p = params({ sessionUpdate: 'current_mode_update' });
    expect(eventsFromUpdate(p, ctx)).toEqual([{ type: 'extension', method: 'session/update', params: p }]);
    expect(ctx.mode).toBe('agent');
  });

  it('reads mode and model from config_option_update: a mode event when the mode changed, the options in extra', () => {
    const ctx = newContext();
    noteMode(ctx, 'auto');
    const option = (id: string, currentValue: string) => ({
      type: 'select',
      id,
      name: id,
      category: id,
      currentValue,
      options: [{ value: currentValue, name: currentValue }],
    });
    const configOptions = [option('mode', 'full-access'), option('model', 'm2'), option('effort', 'high')];
    const p = { ...params({ sessionUpdate: 'config_option_update', configOptions }), _meta: { n: 1 } };
    expect(eventsFromUpdate(p, ctx)).toEqual([
      { type: 'mode', mode: 'full-access', extra: { configOptions, 'params._meta': { n: 1 } } },
    ]);
    expect(ctx).toMatchObject({ mode: 'full-access', model: 'm2' });
    // The mode as it was: the update stays an extension, and the model it reports is still taken.
    const model = params({
      sessionUpdate: 'config_option_update',
      configOptions: [configOptions[0], option('model', 'm3')],
    });
    expect(eventsFromUpdate(model, ctx)).toEqual([extension('session/update', model)]);
    expect(ctx).toMatchObject({ mode: 'full-access', model: 'm3' });
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

describe('a tool_call_update that changes nothing', () => {
  it('makes no event: a stream of them would write the whole tool again each time', () => {
    const ctx = newContext();
    const big = { blob: 'x'.repeat(100_000) };
    expect(
      eventsFromUpdate(params({ sessionUpdate: 'tool_call', toolCallId: 't', rawInput: big }), ctx),
    ).toHaveLength(1);
    const bare = params({ sessionUpdate: 'tool_call_update', toolCallId: 't', status: 'pending' });
    for (let i = 0; i < 100; i++) expect(eventsFromUpdate(bare, ctx)).toEqual([]);
    // The same tool announced again, or its title again: nothing new either.
    const again = params({ sessionUpdate: 'tool_call', toolCallId: 't', rawInput: big });
    expect(eventsFromUpdate(again, ctx)).toEqual([]);
    // Fields beside the update in its params are the agent's too: kept, so that update makes its event.
    const meta = { ...bare, _meta: { trace: 1 } };
    expect(eventsFromUpdate(meta, ctx)).toMatchObject([
      { type: 'tool', extra: { 'params._meta': { trace: 1 } } },
    ]);
    const done = params({ sessionUpdate: 'tool_call_update', toolCallId: 't', status: 'completed' });
    expect(eventsFromUpdate(done, ctx)).toMatchObject([{ type: 'tool', status: 'completed', input: big }]);
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
    // JSON.parse reads 1e400 as Infinity, which JSON.stringify writes as null.
    { said: 'used past the double range', update: { used: Infinity, size: 100 }, usage: undefined },
    {
      said: 'a cost past it',
      update: { used: 5, cost: { amount: -Infinity, currency: 'USD' } },
      usage: undefined,
    },
    { said: 'size NaN', update: { size: NaN }, usage: undefined },
  ])('$said', ({ update, usage }) => {
    expect(readUsage({ sessionUpdate: 'usage_update', ...update })).toEqual(usage);
  });
});

describe('eventsFromUpdate: the less common shapes', () => {
  const raw = (p: unknown) => [{ type: 'extension', method: 'session/update', params: p }];

  it.each([
    { name: 'no content', content: undefined },
    { name: 'a text block without text', content: { type: 'text' } },
    { name: 'a block without a type', content: { data: 'x' } },
    { name: 'content that is no object', content: 'hi' },
  ])('keeps a message chunk with $name as an extension', ({ content }) => {
    const p = params({ sessionUpdate: 'agent_message_chunk', content });
    expect(eventsFromUpdate(p, newContext())).toEqual(raw(p));
  });

  it('names a block by its name, else its title, else its uri', () => {
    const chunk = (block: Record<string, unknown>) =>
      eventsFromUpdate(params({ sessionUpdate: 'agent_thought_chunk', content: block }), newContext());
    const both = { type: 'resource_link', name: 'n', title: 't', uri: 'u' };
    expect(chunk(both)).toEqual([
      {
        type: 'thought',
        text: '',
        content: { type: 'resource_link', name: 'n', uri: 'u', mimeType: null },
        extra: { content: both },
      },
    ]);
    expect(chunk({ type: 'resource_link', title: 't', uri: 'u' })).toEqual([
      { type: 'thought', text: '', content: { type: 'resource_link', name: 't', uri: 'u', mimeType: null } },
    ]);
    const notEmbedded = { type: 'resource', resource: 'x', uri: 'u', text: 'not embedded' };
    expect(chunk(notEmbedded)).toEqual([
      {
        type: 'thought',
        text: 'not embedded',
        content: { type: 'resource', name: 'u', uri: 'u', mimeType: null },
        extra: { content: notEmbedded },
      },
    ]);
  });

  it('gives an embedded resource whose text is no string no text', () => {
    const p = params({
      sessionUpdate: 'agent_message_chunk',
      content: { type: 'resource', resource: { text: 5 } },
    });
    expect(eventsFromUpdate(p, newContext())).toEqual([
      {
        type: 'message',
        text: '',
        content: { type: 'resource', name: null, uri: null, mimeType: null },
        extra: { content: { type: 'resource', resource: { text: 5 } } },
      },
    ]);
  });

  it('reads a plan leniently: entries that are no objects kept as extra, missing fields filled', () => {
    const p = params({
      sessionUpdate: 'plan',
      entries: [
        'junk',
        { content: 3, priority: 1 },
        { content: 'Write', status: 'completed', priority: 'low' },
      ],
    });
    expect(eventsFromUpdate(p, newContext())).toEqual([
      {
        type: 'todos',
        source: 'plan',
        todos: [
          { id: '1', content: '', status: 'pending', extra: { content: 3, priority: 1 } },
          { id: '2', content: 'Write', status: 'completed', priority: 'low' },
        ],
        extra: { entries: ['junk'] },
      },
    ]);
  });

  it('keeps a plan without entries as an extension', () => {
    const p = params({ sessionUpdate: 'plan', entries: 'none' });
    expect(eventsFromUpdate(p, newContext())).toEqual(raw(p));
  });

  it('emits a plan again once it changed, and the same plan after a tool list between', () => {
    const ctx = newContext();
    const plan = (status: string) => params({ sessionUpdate: 'plan', entries: [{ content: 'A', status }] });
    expect(eventsFromUpdate(plan('pending'), ctx)).toHaveLength(1);
    expect(eventsFromUpdate(plan('pending'), ctx)).toEqual([]);
    expect(eventsFromUpdate(plan('completed'), ctx)).toHaveLength(1);
    expect(ctx.lastTodos).toBe(JSON.stringify([{ id: '1', content: 'A', status: 'completed' }]));
  });

  it('reads the mode from modeId too', () => {
    const ctx = newContext();
    expect(eventsFromUpdate(params({ sessionUpdate: 'current_mode_update', modeId: 'ask' }), ctx)).toEqual([
      { type: 'mode', mode: 'ask' },
    ]);
    expect(ctx.mode).toBe('ask');
  });

  it('keeps the title when a session_info_update carries none', () => {
    const ctx = newContext();
    ctx.title = 'Old';
    eventsFromUpdate(params({ sessionUpdate: 'session_info_update', title: null }), ctx);
    expect(ctx.title).toBe('Old');
  });

  it('records no usage (null) from a malformed first usage_update', () => {
    const ctx = newContext();
    eventsFromUpdate(params({ sessionUpdate: 'usage_update', used: 'many' }), ctx);
    expect(ctx.usage).toBeNull();
  });

  it.each([
    {
      update: { severity: 'warning', title: 'Slow' },
      warning: { code: 'agent-warning', message: 'the agent reports a warning: Slow' },
    },
    {
      update: { level: 'error', description: 'quota' },
      warning: { code: 'agent-error', message: 'the agent reports an error:  (quota)' },
    },
    {
      update: { severity: 'error', title: 'Down', description: 7 },
      warning: {
        code: 'agent-error',
        message: 'the agent reports an error: Down',
        extra: { description: 7 },
      },
    },
    {
      update: { severity: 5, level: 'warning', title: 'Lvl' },
      warning: { code: 'agent-warning', message: 'the agent reports a warning: Lvl', extra: { severity: 5 } },
    },
    {
      update: { severity: 'warning', level: 'error', title: { o: 1 } },
      warning: {
        code: 'agent-warning',
        message: 'the agent reports a warning: ',
        extra: { level: 'error', title: { o: 1 } },
      },
    },
  ])('says a notice $update as the warning $warning.message', ({ update, warning }) => {
    expect(eventsFromUpdate(params({ sessionUpdate: 'notice', ...update }), newContext())).toEqual([
      { type: 'warning', ...warning },
    ]);
  });

  it('keeps a notice without a severity as an extension', () => {
    const p = params({ sessionUpdate: 'notice', title: 'x' });
    expect(eventsFromUpdate(p, newContext())).toEqual(raw(p));
  });

  it('says which session the foreign update was for, and which is this run’s', () => {
    const ctx = { ...newContext(), sessionId: 's1' };
    const [warning] = eventsFromUpdate(
      { sessionId: 's2', update: { sessionUpdate: 'plan', entries: [] } },
      ctx,
    );
    expect(warning).toEqual({
      type: 'warning',
      code: 'foreign-session-update',
      message:
        "the agent sent updates for another session (s2, not s1): kept as extension events, not shown as this run's answer",
    });
    expect(ctx.foreign).toEqual(new Set(['s2']));
  });

  it('warns once per foreign session', () => {
    const ctx = { ...newContext(), sessionId: 's1' };
    const from = (sessionId: string) =>
      eventsFromUpdate({ sessionId, update: { sessionUpdate: 'x' } }, ctx).map((e) => e.type);
    expect([from('s2'), from('s3'), from('s2')]).toEqual([
      ['warning', 'extension'],
      ['warning', 'extension'],
      ['extension'],
    ]);
  });

  // Found by review: an update naming no session, 42, null or an array, and any before session/new
  // answered, was rendered as the answer with no warning. Only this run's own id is its own.
  it('takes only an update naming this run’s session as its own', () => {
    const text = { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hi' } };
    const types = (params: object, sessionId: string | null) =>
      eventsFromUpdate(params, { ...newContext(), sessionId }).map((e) => e.type);
    expect(types({ sessionId: 's1', update: text }, 's1')).toEqual(['message']);
    for (const sessionId of [undefined, 7, null, ['s1'], 's2', ''])
      expect(types({ sessionId, update: text }, 's1')).toEqual(['warning', 'extension']);
    expect(types({ sessionId: 's1', update: text }, null)).toEqual(['warning', 'extension']);
    // A context that tracks no session takes every update as its own.
    expect(eventsFromUpdate({ sessionId: 's2', update: text }, newContext())).toEqual([
      { type: 'message', text: 'hi' },
    ]);
  });

  it('says an update came before the session was known, and names a sessionId that is no string', () => {
    const text = { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hi' } };
    expect(
      eventsFromUpdate({ sessionId: 'evil-1', update: text }, { ...newContext(), sessionId: null })[0],
    ).toMatchObject({
      message:
        "the agent sent updates for another session (evil-1, before this run's session was known): kept as extension events, not shown as this run's answer",
    });
    const ctx = { ...newContext(), sessionId: 's1' };
    expect(eventsFromUpdate({ update: text }, ctx)[0]).toMatchObject({
      message: expect.stringContaining('(none, not s1)') as unknown,
    });
    expect(eventsFromUpdate({ sessionId: 42, update: text }, ctx)[0]).toMatchObject({
      message: expect.stringContaining('(42, not s1)') as unknown,
    });
  });

  it('emits no todos for an updateTodos tool with an empty list', () => {
    const p = params({
      sessionUpdate: 'tool_call',
      toolCallId: 't',
      rawInput: { _toolName: 'updateTodos', todos: [] },
    });
    expect(eventsFromUpdate(p, newContext()).map((e) => e.type)).toEqual(['tool']);
  });

  it('puts no extra on a foreign update, on an unknown kind, nor on the warning before it', () => {
    const ctx = { ...newContext(), sessionId: 's1' };
    const foreign = { sessionId: 's2', update: { sessionUpdate: 'agent_message_chunk', content: 1, x: 1 } };
    for (const e of eventsFromUpdate(foreign, ctx)) expect(e).not.toHaveProperty('extra');
    const unknown = params({ sessionUpdate: 'toString', x: 1 });
    expect(eventsFromUpdate(unknown, newContext())).toEqual(raw(unknown));
  });

  it('gives the extras to the tool event, not the todos after it', () => {
    const p = params({
      sessionUpdate: 'tool_call',
      toolCallId: 't',
      rawInput: { _toolName: 'updateTodos', todos: [{ id: 'a', content: 'A' }] },
      x: 1,
    });
    const [tool, todos] = eventsFromUpdate(p, newContext());
    expect(tool).toHaveProperty('extra', { x: 1 });
    expect(todos).not.toHaveProperty('extra');
  });
});

describe('extraFields', () => {
  it('is undefined when an update carries only what its event names', () => {
    expect(
      extraFields({ sessionId: 's', update: {} }, { sessionUpdate: 'plan', entries: [] }),
    ).toBeUndefined();
  });

  it.each(['tool_call', 'tool_call_update'])(
    'is undefined for a %s carrying every field its event names',
    (kind) => {
      const update = {
        sessionUpdate: kind,
        toolCallId: 't',
        title: 'Read a.ts',
        kind: 'read',
        status: 'completed',
        content: [{ type: 'content', content: { type: 'text', text: 'x' } }],
        locations: [{ path: '/w/a.ts' }],
        rawInput: { path: '/w/a.ts' },
        rawOutput: { content: 'x' },
      };
      expect(extraFields({ sessionId: 's', update }, update)).toBeUndefined();
    },
  );

  it('keeps every field of an unknown kind but its sessionUpdate', () => {
    expect(extraFields({}, { sessionUpdate: 'toString', content: 1, entries: 2 })).toEqual({
      content: 1,
      entries: 2,
    });
    expect(extraFields({}, { content: 1 })).toEqual({ content: 1 });
  });

  it('names the params beside sessionId and update', () => {
    expect(extraFields({ sessionId: 's', update: {}, _meta: 1, turn: 2 }, { sessionUpdate: 'plan' })).toEqual(
      {
        'params._meta': 1,
        'params.turn': 2,
      },
    );
  });

  it('keeps a __proto__ field as a field', () => {
    const extra = extraFields(
      {},
      JSON.parse('{"sessionUpdate":"plan","__proto__":{"x":1}}') as Record<string, unknown>,
    );
    expect(Object.keys(extra ?? {})).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(extra)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(extra, '__proto__')).toEqual({
      value: { x: 1 },
      enumerable: true,
      writable: true,
      configurable: true,
    });
  });
});

describe('what an update carries reaches its event, also where the event could not hold it before', () => {
  it("gives a tool event both the update's unnamed fields and what of its named ones it cannot carry", () => {
    const ctx = newContext();
    eventsFromUpdate(params({ sessionUpdate: 'tool_call', toolCallId: 't', kind: 'execute' }), ctx);
    const u = {
      sessionUpdate: 'tool_call_update',
      toolCallId: 't',
      status: 'completed',
      rawOutput: { stdout: 'ok', exitCode: 0, extraKey: 'LOST-1' },
      durationMs: 5,
    };
    expect(eventsFromUpdate({ ...params(u), _meta: { a: 1 } }, ctx)).toMatchObject([
      {
        type: 'tool',
        output: { exitCode: 0, stdout: 'ok', stderr: '' },
        extra: { durationMs: 5, 'params._meta': { a: 1 }, rawOutput: { extraKey: 'LOST-1' } },
      },
    ]);
    // What the store keeps has no extra: the next event carries its own update's alone.
    const [next] = eventsFromUpdate(
      params({ sessionUpdate: 'tool_call_update', toolCallId: 't', x: 1 }),
      ctx,
    );
    expect(next).toHaveProperty('extra', { x: 1 });
  });

  it('makes an event of a tool_call_update whose title is an object, to carry it (marker 5)', () => {
    const ctx = newContext();
    eventsFromUpdate(params({ sessionUpdate: 'tool_call', toolCallId: 'e3', title: 'x', kind: 'read' }), ctx);
    const u = params({ sessionUpdate: 'tool_call_update', toolCallId: 'e3', title: { note: 'LOST-5' } });
    expect(eventsFromUpdate(u, ctx)).toEqual([
      expect.objectContaining({ type: 'tool', title: 'x', extra: { title: { note: 'LOST-5' } } }),
    ]);
    // A null title is nothing sent: still no event.
    const none = params({ sessionUpdate: 'tool_call_update', toolCallId: 'e3', title: null });
    expect(eventsFromUpdate(none, ctx)).toEqual([]);
  });

  it("keeps a plan entry's own fields as its todo's extra (marker 6)", () => {
    const p = params({
      sessionUpdate: 'plan',
      entries: [{ content: 'step', status: 'pending', note: 'LOST-6', id: 'a' }],
    });
    expect(eventsFromUpdate(p, newContext())).toEqual([
      {
        type: 'todos',
        source: 'plan',
        todos: [{ id: '1', content: 'step', status: 'pending', extra: { note: 'LOST-6', id: 'a' } }],
      },
    ]);
  });

  it('writes the same plan again when its update carries an extra, to carry it (marker 7)', () => {
    const ctx = newContext();
    const entries = [{ content: 'step', status: 'pending' }];
    const todos = [{ id: '1', content: 'step', status: 'pending' }];
    expect(eventsFromUpdate(params({ sessionUpdate: 'plan', entries }), ctx)).toHaveLength(1);
    expect(eventsFromUpdate(params({ sessionUpdate: 'plan', entries, note: 'LOST-7' }), ctx)).toEqual([
      { type: 'todos', todos, source: 'plan', extra: { note: 'LOST-7' } },
    ]);
    expect(eventsFromUpdate({ ...params({ sessionUpdate: 'plan', entries }), turn: 2 }, ctx)).toEqual([
      { type: 'todos', todos, source: 'plan', extra: { 'params.turn': 2 } },
    ]);
    // The same plan with nothing more is still no event.
    expect(eventsFromUpdate(params({ sessionUpdate: 'plan', entries }), ctx)).toEqual([]);
  });

  it("keeps an own __proto__ key of a plan entry a key of its todo's extra", () => {
    const entry = JSON.parse('{"content":"a","__proto__":{"x":1}}') as object;
    const [e] = eventsFromUpdate(params({ sessionUpdate: 'plan', entries: [entry] }), newContext());
    const extra = (e as unknown as { todos: Array<{ extra: object }> }).todos[0]!.extra;
    expect(Object.getPrototypeOf(extra)).toBe(Object.prototype);
    expect(Object.hasOwn(extra, '__proto__')).toBe(true);
  });
});
