import { describe, expect, it } from 'vitest';
import { RunFacts } from '../../../src/events/facts.js';
import { ToolStore } from '../../../src/events/tools.js';
import { RunObserver } from '../../../src/run/observer.js';
import { MAX_HELD_TOOLS, stopError } from '../../../src/stop.js';

function setup(maxToolCalls?: number) {
  const tools = new ToolStore(false);
  const facts = new RunFacts(true);
  return { tools, facts, observer: new RunObserver(tools, facts, { maxToolCalls }) };
}

describe('RunObserver', () => {
  it('asks for a stop (never acts) once the turn starts more tools than --max-tool-calls allows', () => {
    const { tools, observer } = setup(2);
    const stops = ['a', 'b', 'c'].map((id) =>
      observer.observe(tools.apply({ toolCallId: id, kind: 'read', status: 'pending' }), 'prompt'),
    );
    expect(stops).toEqual([undefined, undefined, 'max_tool_calls']);
  });

  it('counts a new call once: an update of the same tool is no new call', () => {
    const { tools, facts, observer } = setup(1);
    expect(observer.observe(tools.apply({ toolCallId: 'a', status: 'pending' }), 'prompt')).toBeUndefined();
    expect(
      observer.observe(tools.apply({ toolCallId: 'a', status: 'in_progress' }), 'prompt'),
    ).toBeUndefined();
    expect(facts.turnToolCalls).toBe(1);
  });

  it('asks for a stop once more tools than MAX_HELD_TOOLS are left unsettled; finished ones do not count', () => {
    // Found by review: 200k tool calls left pending held 324 MB to the end of the turn.
    const { tools, observer } = setup();
    let stop: string | undefined;
    for (let i = 0; i < MAX_HELD_TOOLS; i++) {
      const done = tools.apply({ toolCallId: `done${i}`, status: 'completed', rawOutput: { ok: 1 } });
      expect(observer.observe(done, 'prompt')).toBeUndefined();
    }
    for (let i = 0; i <= MAX_HELD_TOOLS && stop === undefined; i++)
      stop = observer.observe(tools.apply({ toolCallId: `open${i}`, status: 'pending' }), 'prompt');
    expect(stop).toBe('tools_held');
    expect(tools.held).toBe(MAX_HELD_TOOLS + 1);
    expect(stopError('tools_held')).toMatchObject({
      code: 'protocol',
      exitCode: 1,
      message: expect.stringContaining('unfinished') as unknown,
    });
  });

  it('with every tool kept for the output (json), asks for a stop once more than MAX_HELD_TOOLS are held, finished or not', () => {
    const tools = new ToolStore(true);
    const observer = new RunObserver(tools, new RunFacts(true), { maxToolCalls: undefined });
    let stop: string | undefined;
    let n = 0;
    for (; n <= MAX_HELD_TOOLS && stop === undefined; n++)
      stop = observer.observe(
        tools.apply({ toolCallId: `t${n}`, status: 'completed', rawOutput: { ok: 1 } }),
        'prompt',
      );
    expect(stop).toBe('tools_held');
    expect(n).toBe(MAX_HELD_TOOLS + 1);
    // Calls made while the turn is being stopped are shown (an event each) but not held; an update of one
    // makes nothing (found by review: it started a blank state, kind other, and counted one more call).
    const calls = tools.calls;
    const late = tools.take({ sessionUpdate: 'tool_call', toolCallId: 'late', kind: 'execute' });
    expect(late).toMatchObject({ type: 'tool', toolCallId: 'late', kind: 'execute' });
    expect(tools.held).toBe(MAX_HELD_TOOLS + 1);
    expect(tools.take({ sessionUpdate: 'tool_call_update', toolCallId: 'late', status: 'completed' })).toBe(
      undefined,
    );
    expect(tools.take({ toolCallId: 'late', status: 'completed' })).toBe(undefined);
    expect(tools.calls).toBe(calls + 1);
    // A call it holds is still updated.
    expect(tools.take({ sessionUpdate: 'tool_call_update', toolCallId: 't0', title: 'later' })).toMatchObject(
      {
        title: 'later',
      },
    );
    expect(stopError('tools_held', { keepsTools: true }).message).toMatch(
      /more than 50000 tool calls, each kept for the json output/,
    );
  });

  it('asks for no stop outside the prompt (a loaded session replays history)', () => {
    const { tools, observer } = setup(0);
    expect(observer.observe(tools.apply({ toolCallId: 'a' }), 'session/load')).toBeUndefined();
  });

  it('keeps the head of the reply, up to 400 characters, and starts it again each turn', () => {
    const { observer } = setup();
    observer.observe({ type: 'message', text: 'x'.repeat(399) }, 'prompt');
    observer.observe({ type: 'message', text: 'yy' }, 'prompt');
    observer.observe({ type: 'message', text: 'zz' }, 'prompt');
    expect(observer.replyHead).toBe('x'.repeat(399) + 'yy');
    observer.newTurn();
    expect(observer.replyHead).toBe('');
  });

  it('hands every event to the facts (the answer kept when asked)', () => {
    const { facts, observer } = setup();
    observer.observe({ type: 'message', text: 'hel' }, 'prompt');
    observer.observe({ type: 'message', text: 'lo' }, 'prompt');
    expect(facts.answer).toBe('hello');
  });
});
