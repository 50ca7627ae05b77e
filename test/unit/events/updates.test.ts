import { describe, expect, it } from 'vitest';
import { ToolStore } from '../../../src/events/tools.js';
import { eventsFromUpdate, type UpdateContext } from '../../../src/events/updates.js';

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

  it('passes a non-text message chunk through as an extension', () => {
    const p = params({ sessionUpdate: 'agent_message_chunk', content: { type: 'image', data: 'AAAA' } });
    expect(eventsFromUpdate(p, newContext())).toEqual([
      { type: 'extension', method: 'session/update', params: p },
    ]);
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
    { sessionUpdate: 'plan', entries: [] },
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
