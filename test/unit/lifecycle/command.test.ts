import { describe, expect, it } from 'vitest';
import { withLifecycle } from '../../../src/lifecycle/command.js';
import type { RhoError } from '../../../src/errors.js';

describe('withLifecycle (doctor and sessions)', () => {
  it('drains the teardown when the body ends, and returns its value', async () => {
    const released: string[] = [];
    const v = await withLifecycle(async ({ teardown }) => {
      teardown.defer({ name: 'agent', run: () => void released.push('agent') });
      return 42;
    });
    expect(v).toBe(42);
    expect(released).toEqual(['agent']);
  });

  it('drains it when the body throws, and rethrows', async () => {
    const released: string[] = [];
    await expect(
      withLifecycle(async ({ teardown }) => {
        teardown.defer({ name: 'agent', run: () => void released.push('agent') });
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(released).toEqual(['agent']);
  });

  it('aborts its signal with the signal error a run would give (SIGTERM: exit 143), then a second signal ends what is left at once', async () => {
    const sync: string[] = [];
    const reason = await withLifecycle(async ({ signal, teardown }) => {
      teardown.defer({ name: 'agent', run: () => {}, runSync: () => void sync.push('killed') });
      process.emit('SIGTERM', 'SIGTERM');
      expect(signal.aborted).toBe(true);
      expect(sync).toEqual([]);
      process.emit('SIGTERM', 'SIGTERM');
      expect(sync).toEqual(['killed']);
      return signal.reason as RhoError;
    });
    expect(reason.code).toBe('cancelled');
    expect(reason.exitCode).toBe(143);
  });

  it('leaves no signal or exit listener behind', async () => {
    const before = [process.listenerCount('SIGINT'), process.listenerCount('exit')];
    await withLifecycle(async () => {
      expect(process.listenerCount('SIGINT')).toBe(before[0]! + 1);
    });
    expect([process.listenerCount('SIGINT'), process.listenerCount('exit')]).toEqual(before);
  });
});
