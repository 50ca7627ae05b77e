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

  it('the function defer() returns releases the step now, and only once', async () => {
    const t = new Teardown();
    const ran: string[] = [];
    const release = t.defer({ name: 'agent', run: () => void ran.push('agent') });
    await release();
    await release();
    await t.drain();
    expect(ran).toEqual(['agent']);
  });

  it('a step released early is not released again by the exit hook', async () => {
    const t = new Teardown();
    const sync: string[] = [];
    const release = t.defer({ name: 'agent', run: () => {}, runSync: () => void sync.push('agent') });
    await release();
    t.drainSync();
    expect(sync).toEqual([]);
  });

  it('a step whose release failed is not released again by the exit hook', async () => {
    const t = new Teardown();
    const sync: string[] = [];
    const errors: string[] = [];
    t.defer({
      name: 'agent',
      run: () => Promise.reject(new Error('gone')),
      runSync: () => void sync.push('agent'),
    });
    await t.drain((name, err) => void errors.push(`${name}: ${(err as Error).message}`));
    t.drainSync();
    expect(errors).toEqual(['agent: gone']);
    expect(sync).toEqual([]);
  });

  it('one failing step never keeps the others from running', async () => {
    const t = new Teardown();
    const ran: string[] = [];
    const errors: string[] = [];
    t.defer({ name: 'a', run: () => void ran.push('a') });
    t.defer({
      name: 'b',
      run: () => {
        throw new Error('b failed');
      },
    });
    t.defer({ name: 'c', run: () => void ran.push('c') });
    await t.drain((name) => void errors.push(name));
    expect(ran).toEqual(['c', 'a']);
    expect(errors).toEqual(['b']);
  });

  it('a step the exit hook released is not run by drain() or its own release afterwards', async () => {
    const t = new Teardown();
    const ran: string[] = [];
    const sync: string[] = [];
    const release = t.defer({
      name: 'agent',
      run: () => void ran.push('agent'),
      runSync: () => void sync.push('agent'),
    });
    t.drainSync();
    await release();
    await t.drain();
    expect(sync).toEqual(['agent']);
    expect(ran).toEqual([]);
  });

  it('a second exit hook does not release the step drain() is waiting on again', async () => {
    const t = new Teardown();
    const sync: string[] = [];
    let release = (): void => {};
    t.defer({
      name: 'agent',
      run: () => new Promise<void>((resolve) => (release = resolve)),
      runSync: () => void sync.push('agent'),
    });
    const draining = t.drain();
    await Promise.resolve();
    t.drainSync();
    t.drainSync();
    expect(sync).toEqual(['agent']);
    release();
    await draining;
  });

  it('the exit hook releases steps with no synchronous path silently and goes on to the next', () => {
    const t = new Teardown();
    const sync: string[] = [];
    t.defer({ name: 'first', run: () => {}, runSync: () => void sync.push('first') });
    t.defer({ name: 'no sync', run: () => {} });
    t.defer({
      name: 'throws',
      run: () => {},
      runSync: () => {
        throw new Error('boom');
      },
    });
    expect(() => t.drainSync()).not.toThrow();
    expect(sync).toEqual(['first']);
  });

  it('the exit hook alone releases every step newest first', () => {
    const t = new Teardown();
    const sync: string[] = [];
    for (const name of ['a', 'b', 'c']) t.defer({ name, run: () => {}, runSync: () => void sync.push(name) });
    t.drainSync();
    t.drainSync();
    expect(sync).toEqual(['c', 'b', 'a']);
  });
});
