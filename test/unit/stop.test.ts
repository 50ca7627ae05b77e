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
    [500, '500ms'],
    [10_000, '10s'],
  ])('fmtMs(%i) is %s', (ms, text) => expect(fmtMs(ms)).toBe(text));
});
