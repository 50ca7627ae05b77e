import { describe, expect, it } from 'vitest';
import { fmtMs, stopError } from '../../src/stop.js';

describe('stopError', () => {
  it.each([
    ['SIGINT', 130, 'cancelled'],
    ['SIGTERM', 143, 'cancelled'],
    ['timeout', 124, 'run_timeout'],
    ['epipe', 141, 'stdout_closed'],
  ] as const)('%s exits %i', (cause, exitCode, code) => {
    expect(stopError(cause, 1500)).toMatchObject({ exitCode, code });
  });

  it('names the timeout as the user wrote it', () => {
    expect(stopError('timeout', 1500).message).toBe('the run exceeded --timeout 1500ms');
    expect(stopError('timeout', 120_000).message).toBe('the run exceeded --timeout 120s');
  });

  it.each([
    [0, 'the turn started more than 0 tool calls (--max-tool-calls)'],
    [1, 'the turn started more than 1 tool call (--max-tool-calls)'],
    [2, 'the turn started more than 2 tool calls (--max-tool-calls)'],
  ])('--max-tool-calls %i is named in a sentence', (maxToolCalls, message) => {
    expect(stopError('max_tool_calls', { maxToolCalls })).toMatchObject({ code: 'max_tool_calls', message });
  });

  it.each([
    [500, '500ms'],
    [10_000, '10s'],
  ])('fmtMs(%i) is %s', (ms, text) => expect(fmtMs(ms)).toBe(text));
});
