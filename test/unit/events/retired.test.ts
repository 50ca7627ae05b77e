import { describe, expect, it } from 'vitest';
import { RetiredTools } from '../../../src/events/retired.js';
import type { ToolEvent } from '../../../src/events/types.js';
import { ToolStore } from '../../../src/events/tools.js';

const tool = (id: string, input: Record<string, unknown> = {}, title = 'T'): ToolEvent => ({
  type: 'tool',
  toolCallId: id,
  kind: 'execute',
  title,
  status: 'completed',
  input,
  output: { diffs: [{ path: 'src/d.ts', oldText: 'a', newText: 'b' }] },
  locations: [{ path: 'src/l.ts', line: 3 }],
});

describe('RetiredTools', () => {
  it('keeps the announced kind and only what names a command, a path or a URL', () => {
    const r = new RetiredTools();
    r.keep(tool('t1', { command: 'rm -rf ~', file_path: 'a', url: 'https://x', big: 'y'.repeat(1000) }), {
      kind: 'execute',
    });
    const { announced, tool: kept } = r.get('t1')!;
    expect({ announced, tool: kept }).toEqual({
      announced: { kind: 'execute' },
      tool: {
        ...tool('t1', { command: 'rm -rf ~', file_path: 'a', url: 'https://x' }),
        output: { diffs: [{ path: 'src/d.ts' }] },
        locations: [{ path: 'src/l.ts' }],
      },
    });
    expect(r.forgot('t1')).toBe(false);
    expect(r.forgot('never')).toBe(false);
  });

  it('lets the oldest go past the bound, and knows an id it let go as forgotten', () => {
    const r = new RetiredTools(100, 1 << 20);
    for (let i = 0; i < 1000; i++) r.keep(tool(`t${i}`), { kind: 'read' });
    expect(r.size).toBe(100);
    expect(r.get('t899')).toBeUndefined();
    expect(r.get('t900')?.announced).toEqual({ kind: 'read' });
    for (let i = 0; i < 900; i++) expect(r.forgot(`t${i}`)).toBe(true);
    // An id never seen is almost never taken for one let go (a false positive only fails closed).
    let wrong = 0;
    for (let i = 0; i < 10_000; i++) if (r.forgot(`never-${i}`)) wrong++;
    expect(wrong).toBe(0);
  });

  it('stays within its characters, and keeps no tool of more than a sixteenth of them', () => {
    const r = new RetiredTools(1000, 16_000);
    r.keep(tool('huge', { command: 'x'.repeat(2000) }), { kind: 'execute' });
    expect(r.get('huge')).toBeUndefined();
    expect(r.forgot('huge')).toBe(true);
    for (let i = 0; i < 100; i++) r.keep(tool(`t${i}`, { command: 'y'.repeat(500) }), { kind: 'execute' });
    expect(r.size).toBeLessThan(32);
    expect(r.get('t99')).toBeDefined();
    expect(r.forgot('t0')).toBe(true);
  });

  it('keeps one id kept again once, by its newest state, and its queue bounded', () => {
    const r = new RetiredTools(3, 1 << 20);
    for (let i = 0; i < 100_000; i++) r.keep(tool('same', { command: `c${i}` }), { kind: 'read' });
    expect(r.size).toBe(1);
    expect(r.get('same')?.tool.input).toEqual({ command: 'c99999' });
    r.keep(tool('a'), undefined);
    r.keep(tool('b'), undefined);
    r.keep(tool('c'), undefined);
    expect(r.get('same')).toBeUndefined();
    expect(['a', 'b', 'c'].map((id) => r.get(id) !== undefined)).toEqual([true, true, true]);
    expect((r as unknown as { order: string[] }).order.length).toBeLessThan(2000);
  });
});

describe('ToolStore: a finished tool let go is kept for the judge', () => {
  it('without keepFinished, the announced kind and input of a finished tool stay known', () => {
    const s = new ToolStore(false);
    s.apply({
      sessionUpdate: 'tool_call',
      toolCallId: 't',
      kind: 'execute',
      rawInput: { command: 'rm -rf ~' },
    });
    s.apply({
      sessionUpdate: 'tool_call_update',
      toolCallId: 't',
      status: 'failed',
      rawOutput: { exitCode: 1 },
    });
    expect(s.get('t')).toBeUndefined();
    expect(s.retired.get('t')).toMatchObject({
      announced: { kind: 'execute' },
      tool: { input: { command: 'rm -rf ~' } },
    });
  });
});
