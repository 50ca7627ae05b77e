import { describe, expect, it } from 'vitest';
import { FinishedIds } from '../../../src/events/finished-ids.js';
import { ToolStore } from '../../../src/events/tools.js';

describe('FinishedIds', () => {
  it('knows every id added, and almost never one that was not', () => {
    const f = new FinishedIds();
    expect(f.has('t1')).toBe(false);
    for (let i = 0; i < 200_000; i++) f.add(`tool_${i}`);
    for (let i = 0; i < 200_000; i += 997) expect(f.has(`tool_${i}`)).toBe(true);
    let wrong = 0;
    for (let i = 0; i < 100_000; i++) if (f.has(`never_${i}`)) wrong++;
    // 0.03% expected after 200k: a false one is only rejected (fails closed).
    expect(wrong).toBeLessThan(200);
  });
});

describe('ToolStore: the ids of finished tools, in every output format (found by review)', () => {
  it.each([true, false])('keepFinished %s: a tool that reached a final status is known finished', (keep) => {
    const s = new ToolStore(keep);
    s.apply({
      sessionUpdate: 'tool_call',
      toolCallId: 't',
      kind: 'execute',
      rawInput: { command: 'rm -rf ~' },
    });
    expect(s.finishedIds.has('t')).toBe(false);
    s.apply({
      sessionUpdate: 'tool_call_update',
      toolCallId: 't',
      status: 'failed',
      rawOutput: { exitCode: 1 },
    });
    expect(s.finishedIds.has('t')).toBe(true);
    expect(s.get('t') !== undefined).toBe(keep);
  });

  it('a tool Cursor reports completed with no output is not finished yet: a rejection may still correct it', () => {
    const s = new ToolStore(false);
    s.apply({ sessionUpdate: 'tool_call', toolCallId: 't', kind: 'execute', status: 'completed' });
    expect(s.finishedIds.has('t')).toBe(false);
  });
});
