import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { IdleTimer } from '../../../src/lifecycle/idle.js';

describe('IdleTimer', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('fires once the agent has been silent for exactly ms, not a moment before', () => {
    const onIdle = vi.fn(() => true);
    new IdleTimer(1000, onIdle);
    vi.advanceTimersByTime(999);
    expect(onIdle).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(onIdle).toHaveBeenCalledTimes(1);
  });

  it('a line from the agent starts the silence again', () => {
    const onIdle = vi.fn(() => true);
    const t = new IdleTimer(1000, onIdle);
    vi.advanceTimersByTime(600);
    t.touch();
    vi.advanceTimersByTime(999);
    expect(onIdle).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(onIdle).toHaveBeenCalledTimes(1);
  });

  it('paused (rho-cursor waits on itself), no silence counts; resumed, it is measured from the resume', () => {
    const onIdle = vi.fn(() => true);
    const t = new IdleTimer(1000, onIdle);
    vi.advanceTimersByTime(600);
    t.pause();
    vi.advanceTimersByTime(5000);
    expect(onIdle).not.toHaveBeenCalled();
    t.resume();
    vi.advanceTimersByTime(999);
    expect(onIdle).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(onIdle).toHaveBeenCalledTimes(1);
  });

  it('fires no more once the silence counted', () => {
    const onIdle = vi.fn(() => true);
    new IdleTimer(1000, onIdle);
    vi.advanceTimersByTime(10_000);
    expect(onIdle).toHaveBeenCalledTimes(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a silence that did not count (a person deciding) is measured afresh from the check', () => {
    const answers = [false, true];
    const at: number[] = [];
    new IdleTimer(1000, () => {
      at.push(Date.now());
      return answers.shift()!;
    });
    const start = Date.now();
    vi.advanceTimersByTime(1999);
    expect(at.map((t) => t - start)).toEqual([1000]);
    vi.advanceTimersByTime(1);
    expect(at.map((t) => t - start)).toEqual([1000, 2000]);
    vi.advanceTimersByTime(10_000);
    expect(at).toHaveLength(2);
  });

  it('a touch while a person decides still counts from the check, not from the touch', () => {
    const at: number[] = [];
    const t = new IdleTimer(1000, () => {
      at.push(Date.now());
      return at.length > 1;
    });
    const start = Date.now();
    vi.advanceTimersByTime(1000);
    vi.advanceTimersByTime(500);
    t.touch();
    vi.advanceTimersByTime(999);
    expect(at.map((x) => x - start)).toEqual([1000]);
    vi.advanceTimersByTime(1);
    expect(at.map((x) => x - start)).toEqual([1000, 2500]);
  });

  it('never fires once stopped, before or after the first check', () => {
    const early = vi.fn(() => true);
    new IdleTimer(1000, early).stop();
    const late = vi.fn(() => false);
    const t = new IdleTimer(1000, late);
    vi.advanceTimersByTime(1000);
    t.stop();
    vi.advanceTimersByTime(10_000);
    expect(early).not.toHaveBeenCalled();
    expect(late).toHaveBeenCalledTimes(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('stopping during a re-arm after a touch leaves no timer behind', () => {
    const onIdle = vi.fn(() => true);
    const t = new IdleTimer(1000, onIdle);
    vi.advanceTimersByTime(500);
    t.touch();
    vi.advanceTimersByTime(500);
    expect(vi.getTimerCount()).toBe(1);
    t.stop();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(10_000);
    expect(onIdle).not.toHaveBeenCalled();
  });

  // On real timers: a spy put on a fake setTimeout outlived vi.useRealTimers() (fake-timers restores only
  // what it installed), and every later file sharing the fork had a setTimeout that never fired.
  it('its timer never keeps the process alive', async () => {
    vi.useRealTimers();
    const spy = vi.spyOn(globalThis, 'setTimeout');
    let checks = 0;
    const t = new IdleTimer(20, () => (checks++, false));
    // The first timer, then the one armed again after a silence that did not count.
    await vi.waitFor(() => expect(checks).toBeGreaterThan(0), { timeout: 2000, interval: 5 });
    t.stop();
    const timers = spy.mock.results
      .filter((_, i) => (spy.mock.calls[i]![1] ?? 0) <= 20)
      .map((r) => r.value as NodeJS.Timeout);
    spy.mockRestore();
    expect(timers.length).toBeGreaterThanOrEqual(2);
    for (const timer of timers) expect(timer.hasRef()).toBe(false);
  });

  it('stopped from inside the check (the run ends there) it arms no timer again', () => {
    let calls = 0;
    const t: IdleTimer = new IdleTimer(1000, () => {
      calls++;
      t.stop();
      return false;
    });
    vi.advanceTimersByTime(1000);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(10_000);
    expect(calls).toBe(1);
  });
});
