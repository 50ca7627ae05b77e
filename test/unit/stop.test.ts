import { describe, expect, it } from 'vitest';
import { fmtMs, isImmediate, isSignal, stopError, type StopCause } from '../../src/stop.js';

describe('stopError', () => {
  it.each([
    ['SIGINT', 130, 'cancelled'],
    ['SIGTERM', 143, 'cancelled'],
    ['timeout', 124, 'run_timeout'],
    ['epipe', 141, 'stdout_closed'],
  ] as const)('%s exits %i', (cause, exitCode, code) => {
    expect(stopError(cause, 1500)).toMatchObject({ exitCode, code });
  });

  it.each([
    ['SIGINT', 130, 'cancelled by SIGINT'],
    ['SIGTERM', 143, 'cancelled by SIGTERM'],
    ['SIGHUP', 129, 'cancelled by SIGHUP'],
    ['SIGQUIT', 131, 'ended by SIGQUIT'],
    ['SIGUSR2', 140, 'ended by SIGUSR2'],
    ['SIGALRM', 142, 'ended by SIGALRM'],
    ['SIGXCPU', 152, 'ended by SIGXCPU'],
  ] as const)('%s: exit %i, %s', (cause, exitCode, message) => {
    expect(stopError(cause)).toMatchObject({ code: 'cancelled', exitCode, message });
  });

  it.each([
    ['idle', { idleTimeoutMs: 2000 }, 'idle_timeout', 'the agent sent nothing for 2s (--idle-timeout)'],
    ['epipe', {}, 'stdout_closed', 'stdout was closed'],
    ['write_failed', { writeFailure: 'ENOSPC: no space left' }, 'write_failed', 'ENOSPC: no space left'],
    ['write_failed', {}, 'write_failed', 'cannot write the output'],
  ] as const)('%s %j is %s: %s', (cause, facts, code, message) => {
    expect(stopError(cause, facts)).toMatchObject({ code, message });
  });

  it('tells which signals end at once and which causes are signals', () => {
    const causes: StopCause[] = [
      'SIGINT',
      'SIGTERM',
      'SIGHUP',
      'SIGQUIT',
      'SIGUSR2',
      'SIGALRM',
      'SIGXCPU',
      'timeout',
    ];
    expect(causes.filter(isImmediate)).toEqual(['SIGQUIT', 'SIGUSR2', 'SIGALRM', 'SIGXCPU']);
    expect(causes.filter(isSignal)).toEqual(causes.slice(0, 7));
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
