import { beforeEach, describe, expect, it, vi } from 'vitest';

const setFlagsFromString = vi.fn();
vi.mock('node:v8', () => ({ setFlagsFromString }));

// The import of node:v8 is asynchronous: let it settle.
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('tuneForTheTurn', () => {
  beforeEach(() => {
    vi.resetModules();
    setFlagsFromString.mockClear();
  });

  it('keeps the young generation flat and doubles the interrupt budget', async () => {
    const { tuneForTheTurn } = await import('../../../src/lifecycle/v8-tuning.js');
    tuneForTheTurn();
    await settle();
    expect(setFlagsFromString.mock.calls).toEqual([
      ['--semi-space-growth-factor=1'],
      ['--interrupt-budget=135168'],
    ]);
  });

  it('sets the flags once however often it is called', async () => {
    const { tuneForTheTurn } = await import('../../../src/lifecycle/v8-tuning.js');
    tuneForTheTurn();
    tuneForTheTurn();
    await settle();
    tuneForTheTurn();
    await settle();
    expect(setFlagsFromString).toHaveBeenCalledTimes(2);
  });
});
