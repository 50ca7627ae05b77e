import { describe, expect, it } from 'vitest';
import { onProcessExit, onStopSignals } from '../../../src/lifecycle/signals.js';
import { CANCEL_SIGNALS, FATAL_SIGNALS } from '../../../src/stop.js';

const ALL = [...CANCEL_SIGNALS, ...FATAL_SIGNALS] as const;
const counts = (): number[] => [...ALL, 'SIGXFSZ' as const].map((s) => process.listenerCount(s));

describe('onStopSignals', () => {
  it.each(ALL)('hands %s to the handler', (signal) => {
    const seen: string[] = [];
    const off = onStopSignals((s) => void seen.push(s));
    try {
      process.emit(signal, signal);
    } finally {
      off();
    }
    expect(seen).toEqual([signal]);
  });

  it('ignores SIGXFSZ (a too-large file is a write error, not the end of rho-cursor)', () => {
    const seen: string[] = [];
    const before = process.listenerCount('SIGXFSZ');
    const off = onStopSignals((s) => void seen.push(s));
    try {
      expect(process.listenerCount('SIGXFSZ')).toBe(before + 1);
      process.emit('SIGXFSZ', 'SIGXFSZ');
    } finally {
      off();
    }
    expect(seen).toEqual([]);
  });

  it('the unsubscribe removes every listener it added, and nothing after it reaches the handler', () => {
    const before = counts();
    const seen: string[] = [];
    const off = onStopSignals((s) => void seen.push(s));
    expect(counts()).toEqual(before.map((n) => n + 1));
    off();
    expect(counts()).toEqual(before);
    // Emitting with no listener would end the worker: keep one of our own in place.
    const keep = (): void => {};
    process.on('SIGINT', keep);
    process.emit('SIGINT', 'SIGINT');
    process.removeListener('SIGINT', keep);
    expect(seen).toEqual([]);
  });
});

describe('onProcessExit', () => {
  it('subscribes fn to the exit event until the unsubscribe', () => {
    const fn = (): void => {};
    const off = onProcessExit(fn);
    expect(process.listeners('exit')).toContain(fn);
    off();
    expect(process.listeners('exit')).not.toContain(fn);
  });
});
