import { describe, expect, it } from 'vitest';
import type { Event, ResultEvent, ToolEvent } from '../../../src/events/types.js';
import { StreamJsonRenderer } from '../../../src/render/stream-json.js';
import { capture, finished } from './capture.js';

const events: Event[] = [
  { type: 'mode', mode: 'plan' },
  { type: 'message', text: 'line one\nline two' },
  { type: 'warning', code: 'policy-fences-nothing', message: 'nothing fenced' },
];

const RESULT: ResultEvent = {
  type: 'result',
  stopReason: 'end_turn',
  exitCode: 0,
  sessionId: 's1',
  model: null,
  mode: 'agent',
  title: null,
  durationMs: 5,
  timings: { initializeMs: 1, sessionNewMs: 2, promptMs: 2 },
  usage: null,
  structured: null,
};

describe('StreamJsonRenderer', () => {
  it('writes nothing until flush, then one JSON line per event in one write', () => {
    const out = capture();
    const renderer = new StreamJsonRenderer(out);
    for (const e of events) renderer.emit(e);
    expect(out.writes).toEqual([]);
    expect(renderer.flush()).toBe(true);
    expect(out.writes).toHaveLength(1);
    expect(out.text.endsWith('\n')).toBe(true);
    expect(
      out.text
        .slice(0, -1)
        .split('\n')
        .map((line) => JSON.parse(line) as unknown),
    ).toEqual(events);
  });

  it('writes nothing for an empty batch', () => {
    const out = capture();
    expect(new StreamJsonRenderer(out).flush()).toBe(true);
    expect(out.writes).toEqual([]);
  });

  it('starts a new batch after each flush', () => {
    const out = capture();
    const renderer = new StreamJsonRenderer(out);
    renderer.emit({ type: 'message', text: 'a' });
    renderer.flush();
    renderer.emit({ type: 'message', text: 'b' });
    renderer.flush();
    expect(out.writes).toEqual(['{"type":"message","text":"a"}\n', '{"type":"message","text":"b"}\n']);
  });

  it('passes on a full destination as false', () => {
    const renderer = new StreamJsonRenderer(capture(false, false));
    renderer.emit({ type: 'message', text: 'a' });
    expect(renderer.flush()).toBe(false);
  });

  it('keeps the state a tool had when it was emitted, though the store updates it in place', () => {
    const out = capture();
    const renderer = new StreamJsonRenderer(out);
    const tool: ToolEvent = {
      type: 'tool',
      toolCallId: 't',
      kind: 'read',
      title: 'Read hello.txt',
      status: 'pending',
      input: {},
      output: null,
      locations: [],
    };
    renderer.emit(tool);
    tool.status = 'completed';
    renderer.emit(tool);
    renderer.flush();
    const statuses = out.text
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as ToolEvent).status);
    expect(statuses).toEqual(['pending', 'completed']);
  });

  it('writes what is batched at finish, the result event last', () => {
    const out = capture();
    const renderer = new StreamJsonRenderer(out);
    const result: ResultEvent = { ...RESULT, stopReason: 'cancelled', exitCode: 130 };
    renderer.emit({ type: 'message', text: 'done' });
    renderer.emit(result);
    renderer.finish(finished({ ...result, text: 'done' }));
    const lines = out.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Event);
    expect(lines.map((e) => e.type)).toEqual(['message', 'result']);
    expect(lines[1]).toEqual(result);
  });
});

describe('StreamJsonRenderer: what tool events may write', () => {
  const tool = (id: string, status: ToolEvent['status'], input: Record<string, unknown> = {}): ToolEvent => ({
    type: 'tool',
    toolCallId: id,
    kind: 'read',
    title: 't',
    status,
    input,
    output: null,
    locations: [],
  });
  const lines = (text: string) =>
    text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; toolCallId?: string; status?: string });

  it('writes every tool event while they stay within factor x bytes read + slack', () => {
    const out = capture();
    const r = new StreamJsonRenderer(out, () => 1000, { factor: 8, slack: 0 });
    for (let i = 0; i < 20; i++) r.emit(tool(`t${i}`, 'completed'));
    r.flush();
    expect(lines(out.text)).toHaveLength(20);
  });

  it('serialises a waiting state only when it is looked at for writing, not each update that replaces it', () => {
    // Found by review: 1 MiB of input and 4,000 bare updates cost 39 s of CPU serialising states never written.
    const out = capture();
    let serialisations = 0;
    const big = { text: { toJSON: () => (serialisations++, 'x'.repeat(400)) } };
    const r = new StreamJsonRenderer(out, () => 0, { factor: 8, slack: 1000 });
    r.emit(tool('big', 'pending', big));
    r.emit(tool('big', 'in_progress', big));
    expect(serialisations).toBe(2);
    for (let i = 0; i < 1000; i++) r.emit(tool('big', i % 2 ? 'in_progress' : 'pending', big));
    expect(serialisations).toBe(2);
    // Each flush looks at the head once; its line is kept until a newer state replaces it.
    r.flush();
    r.flush();
    expect(serialisations).toBe(3);
    r.emit(RESULT);
    r.finish(finished(RESULT));
    expect(serialisations).toBe(3);
    expect(
      lines(out.text)
        .filter((e) => e.type === 'tool')
        .map((e) => e.status),
    ).toEqual(['pending', 'in_progress']);
  });

  it('past the budget, keeps only each tool latest state waiting, and writes it before the result', () => {
    const out = capture();
    let read = 0;
    const r = new StreamJsonRenderer(out, () => read, { factor: 8, slack: 1000 });
    const big = { text: 'x'.repeat(400) };
    // A large input, then many updates that flip its status: each event would copy it.
    for (let i = 0; i < 50; i++) r.emit(tool('big', i % 2 ? 'in_progress' : 'pending', big));
    r.emit({ type: 'message', text: 'hi' });
    r.flush();
    const early = lines(out.text);
    // Two events of ~520 characters fit in 1000 + 8 x 0: the rest waits, the newest replacing the older.
    expect(early.filter((e) => e.type === 'tool')).toHaveLength(1);
    expect(early.some((e) => e.type === 'message')).toBe(true);
    // More read from the agent: the waiting state is written as soon as it fits.
    read = 60;
    r.flush();
    expect(lines(out.text).filter((e) => e.type === 'tool')).toHaveLength(2);
    expect(lines(out.text).at(-1)).toMatchObject({ toolCallId: 'big', status: 'in_progress' });
    // Over again: another tool waits behind; all are written, oldest first, before the result.
    r.emit(tool('big', 'completed', big));
    r.emit(tool('small', 'completed'));
    r.flush();
    expect(lines(out.text).filter((e) => e.type === 'tool')).toHaveLength(2);
    r.emit(RESULT);
    r.finish(finished(RESULT));
    const all = lines(out.text);
    expect(all.slice(-3).map((e) => [e.type, e.toolCallId, e.status])).toEqual([
      ['tool', 'big', 'completed'],
      ['tool', 'small', 'completed'],
      ['result', undefined, undefined],
    ]);
  });
});
