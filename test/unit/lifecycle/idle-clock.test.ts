import { afterEach, describe, expect, it, vi } from 'vitest';
import { IdleTimer } from '../../../src/lifecycle/idle.js';

afterEach(() => vi.useRealTimers());

// A timer over a clock the test moves along with vitest's fake timers.
function idle(ms: number, counts: () => boolean = () => true) {
  vi.useFakeTimers();
  let fired = 0;
  const timer = new IdleTimer(
    ms,
    () => (fired++, counts()),
    () => Date.now(),
  );
  return { timer, fired: () => fired };
}

describe('IdleTimer on an injected clock', () => {
  it('fires once after ms of silence, not before', async () => {
    const { fired } = idle(500);
    await vi.advanceTimersByTimeAsync(499);
    expect(fired()).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(fired()).toBe(1);
    await vi.advanceTimersByTimeAsync(5000);
    expect(fired()).toBe(1);
  });

  it('a touch starts the silence again', async () => {
    const { timer, fired } = idle(500);
    await vi.advanceTimersByTimeAsync(400);
    timer.touch();
    await vi.advanceTimersByTimeAsync(400);
    expect(fired()).toBe(0);
    await vi.advanceTimersByTimeAsync(100);
    expect(fired()).toBe(1);
  });

  it('a silence that did not count is waited for again, in full', async () => {
    let counts = false;
    const { fired } = idle(500, () => counts);
    await vi.advanceTimersByTimeAsync(500);
    expect(fired()).toBe(1);
    counts = true;
    await vi.advanceTimersByTimeAsync(499);
    expect(fired()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(fired()).toBe(2);
  });

  it('measures the silence on the clock it is given', async () => {
    vi.useFakeTimers();
    let now = 0;
    let fired = 0;
    const timer = new IdleTimer(
      500,
      () => (fired++, true),
      () => now,
    );
    // The clock says the agent spoke 300 ms into the wait: the check at 500 waits 300 ms more.
    now = 300;
    timer.touch();
    now = 500;
    await vi.advanceTimersByTimeAsync(500);
    expect(fired).toBe(0);
    now = 800;
    await vi.advanceTimersByTimeAsync(300);
    expect(fired).toBe(1);
  });

  it('stop() ends it for good', async () => {
    const { timer, fired } = idle(500);
    timer.stop();
    await vi.advanceTimersByTimeAsync(5000);
    expect(fired()).toBe(0);
  });
});
