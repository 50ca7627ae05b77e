import { describe, expect, it } from 'vitest';
import { Teardown } from '../../../src/lifecycle/teardown.js';

describe('Teardown', () => {
  it('runs every step once, newest first', async () => {
    const t = new Teardown();
    const ran: string[] = [];
    t.defer({ name: 'a', run: () => void ran.push('a') });
    t.defer({ name: 'b', run: () => void ran.push('b') });
    await Promise.all([t.drain(), t.drain()]);
    t.drainSync();
    expect(ran).toEqual(['b', 'a']);
  });

  it('the exit hook still reaches the step drain() is waiting on (a kill ladder in its grace)', async () => {
    const t = new Teardown();
    const sync: string[] = [];
    let release = (): void => {};
    t.defer({ name: 'first', run: () => {}, runSync: () => void sync.push('first') });
    t.defer({
      name: 'agent',
      run: () => new Promise<void>((resolve) => (release = resolve)),
      runSync: () => void sync.push('agent'),
    });
    const draining = t.drain();
    await Promise.resolve();
    // The process exits now: the agent's step is off the stack but not released, the other not yet run.
    t.drainSync();
    expect(sync).toEqual(['agent', 'first']);
    release();
    await draining;
  });

  it('a step already released is not released again by the exit hook', async () => {
    const t = new Teardown();
    const sync: string[] = [];
    t.defer({ name: 'agent', run: () => {}, runSync: () => void sync.push('agent') });
    await t.drain();
    t.drainSync();
    expect(sync).toEqual([]);
  });
});
