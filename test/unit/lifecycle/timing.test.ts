import { describe, expect, it } from 'vitest';
import {
  DEFAULT_TIMING,
  monotonicMs,
  parseTiming,
  retryWaitMs,
  TIMING_ENV,
} from '../../../src/lifecycle/timing.js';

describe('the product timing', () => {
  it("is 2 s of kill grace and of cancel grace, 1 s of first backoff (30 s at most), a 150 ms replay quiet, 5 s for doctor's --version, 15 s for an --output-schema compile and for each check", () => {
    expect(DEFAULT_TIMING).toEqual({
      killGraceMs: 2000,
      cancelGraceMs: 2000,
      retryBaseMs: 1000,
      retryMaxMs: 30_000,
      replayQuietMs: 150,
      replayMaxMs: 5000,
      versionTimeoutMs: 5000,
      schemaCompileMs: 15_000,
      schemaCheckMs: 15_000,
    });
  });

  it('takes its overrides from RHO_CURSOR_TEST_TIMING, the name the README and the e2e helpers use', () => {
    expect(TIMING_ENV).toBe('RHO_CURSOR_TEST_TIMING');
  });

  it.each([
    [1, 1000],
    [2, 2000],
    [3, 4000],
    [5, 16_000],
    [6, 30_000],
    [20, 30_000],
  ])('--retries waits after try %i: %i ms', (attempt, ms) => {
    expect(retryWaitMs(attempt, DEFAULT_TIMING)).toBe(ms);
  });

  it('the backoff doubles from the overridden base and stops at the overridden cap', () => {
    const t = { ...DEFAULT_TIMING, retryBaseMs: 10, retryMaxMs: 35 };
    expect([1, 2, 3, 4].map((a) => retryWaitMs(a, t))).toEqual([10, 20, 35, 35]);
  });
});

describe('RHO_CURSOR_TEST_TIMING', () => {
  it.each([
    ['unset', undefined],
    ['empty', ''],
    ['not JSON', '{killGraceMs:1}'],
    ['an array', '[1]'],
    ['null', 'null'],
    ['a number', '5'],
    ['an unknown key', '{"killGraceMs":1,"graceMs":1}'],
    ['a string value', '{"killGraceMs":"1"}'],
    ['a negative value', '{"killGraceMs":-1}'],
    ['an inherited key', '{"toString":1}'],
  ])('%s: every default stays', (_what, text) => {
    expect(parseTiming(text)).toEqual(DEFAULT_TIMING);
  });

  it('overrides only the fields it names', () => {
    expect(parseTiming('{"killGraceMs":200,"cancelGraceMs":0}')).toEqual({
      ...DEFAULT_TIMING,
      killGraceMs: 200,
      cancelGraceMs: 0,
    });
  });
});

describe('monotonicMs', () => {
  it('counts milliseconds as the wall clock does over a wait', () => {
    const start = monotonicMs();
    const wallStart = Date.now();
    while (Date.now() - wallStart < 30) {
      // a busy wait of 30 ms of wall time
    }
    const elapsed = monotonicMs() - start;
    expect(elapsed).toBeGreaterThanOrEqual(29);
    expect(elapsed).toBeLessThan(1000);
  });
});
