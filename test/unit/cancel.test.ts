import { afterEach, describe, expect, it, vi } from 'vitest';
import { Cancel } from '../../src/cancel.js';

afterEach(() => vi.useRealTimers());

const make = (inTurn: boolean) => {
  const calls = { cancelTurn: 0, killNow: 0 };
  const cancel = new Cancel({
    graceMs: 2000,
    timeoutMs: 500,
    cancelTurn: () => (calls.cancelTurn++, inTurn),
    killNow: () => void calls.killNow++,
  });
  return { cancel, calls };
};

describe('Cancel', () => {
  it('outside a turn, a stop ends the wait at once with the cause as error', async () => {
    const { cancel, calls } = make(false);
    const waiting = cancel.race(new Promise(() => {}));
    cancel.stop('SIGTERM');
    await expect(waiting).rejects.toMatchObject({ exitCode: 143, code: 'cancelled' });
    expect(calls).toEqual({ cancelTurn: 1, killNow: 0 });
  });

  it('in a turn, a stop cancels the turn and gives the agent a grace before ending the wait', async () => {
    vi.useFakeTimers();
    const { cancel } = make(true);
    let settled = false;
    const waiting = cancel.race(new Promise(() => {})).catch((e) => ((settled = true), e));
    cancel.stop('timeout');
    await vi.advanceTimersByTimeAsync(1999);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await waiting).toMatchObject({ exitCode: 124, code: 'run_timeout' });
  });

  it('a turn that ends within the grace wins the race', async () => {
    const { cancel } = make(true);
    cancel.stop('SIGINT');
    await expect(cancel.race(Promise.resolve('cancelled'))).resolves.toBe('cancelled');
    expect(cancel.error()).toMatchObject({ exitCode: 130 });
  });

  it('a second signal kills the agent and ends the wait at once, keeping the first cause', async () => {
    const { cancel, calls } = make(true);
    const waiting = cancel.race(new Promise(() => {}));
    cancel.stop('SIGINT');
    cancel.stop('SIGINT');
    await expect(waiting).rejects.toMatchObject({ exitCode: 130 });
    expect(calls).toEqual({ cancelTurn: 1, killNow: 1 });
  });

  it('a second epipe or timeout does not escalate', () => {
    const { cancel, calls } = make(true);
    cancel.stop('SIGINT');
    cancel.stop('epipe');
    cancel.stop('timeout');
    expect(calls.killNow).toBe(0);
    expect(cancel.cause).toBe('SIGINT');
  });
});
