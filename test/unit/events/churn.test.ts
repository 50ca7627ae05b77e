// ChurnMap: a Map for entries that come and go (a tool from its call to its final update) that never
// rehashes its table on a delete. To every caller it must be a Map: the same answers, the same order.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChurnMap } from '../../../src/events/churn.js';

type Op = { op: 'set'; key: string; value: number } | { op: 'delete'; key: string };

// Keys enough that the dead can pass the 32 a rebuild waits for, few enough that sets, deletes and re-sets
// of one key meet often.
const KEYS = [...Array.from({ length: 45 }, (_, i) => `k${i}`), '__proto__', '0', '1'];
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('set' as const), key: fc.constantFrom(...KEYS), value: fc.integer() }),
  fc.record({ op: fc.constant('delete' as const), key: fc.constantFrom(...KEYS) }),
);

describe('ChurnMap', () => {
  it('answers as a Map does after any sequence of sets and deletes', () => {
    fc.assert(
      // Many keys set, most of them deleted (so the dead outnumber the live: a rebuild), then anything.
      fc.property(
        fc.shuffledSubarray(KEYS, { minLength: 40 }),
        fc.shuffledSubarray(KEYS, { minLength: 36 }),
        fc.array(op, { maxLength: 300 }),
        (setFirst, thenDelete, rest) => {
          const ops: Op[] = [
            ...setFirst.map((key, value): Op => ({ op: 'set', key, value })),
            ...thenDelete.map((key): Op => ({ op: 'delete', key })),
            ...rest,
          ];
          const model = new Map<string, number>();
          const churn = new ChurnMap<string, number>();
          for (const o of ops) {
            if (o.op === 'set') {
              model.set(o.key, o.value);
              expect(churn.set(o.key, o.value)).toBe(churn);
            } else expect(churn.delete(o.key)).toBe(model.delete(o.key));
            expect(churn.size).toBe(model.size);
            // What it holds beyond the live entries stays bounded (the dead are dropped in rebuilds).
            expect(churn.footprint).toBeLessThanOrEqual(2 * churn.size + 33);
          }
          for (const k of KEYS) {
            expect(churn.get(k)).toBe(model.get(k));
            expect(churn.has(k)).toBe(model.has(k));
          }
          // Insertion order, a key set again after its delete going last.
          expect([...churn.values()]).toEqual([...model.values()]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('holds a value that is undefined as a Map does', () => {
    const m = new ChurnMap<string, undefined>();
    m.set('k', undefined);
    expect(m.has('k')).toBe(true);
    expect(m.size).toBe(1);
    expect(m.delete('k')).toBe(true);
    expect(m.has('k')).toBe(false);
    expect(m.delete('k')).toBe(false);
  });

  it('walking its values while deleting and adding sees the values as they were', () => {
    const m = new ChurnMap<number, number>();
    for (let i = 0; i < 40; i++) m.set(i, i);
    const seen: number[] = [];
    for (const v of m.values()) {
      seen.push(v);
      // Enough deletes to rebuild mid-walk.
      if (v === 0) for (let i = 1; i < 39; i++) m.delete(i);
      if (v === 0) m.set(100, 100);
    }
    expect(seen).toEqual(Array.from({ length: 40 }, (_, i) => i));
    expect(m.values()).toEqual([0, 39, 100]);
  });

  it('a long churn of one entry at a time keeps order and size right across rebuilds', () => {
    const m = new ChurnMap<number, number>();
    m.set(-1, -1); // one entry that stays the whole time
    for (let i = 0; i < 10_000; i++) {
      m.set(i, i);
      expect(m.delete(i)).toBe(true);
    }
    // 20,000 sets and deletes leave no more than the live entry and 32 dead ones.
    expect(m.footprint).toBeLessThanOrEqual(1 + 33);
    m.set(10_000, 10_000);
    expect(m.size).toBe(2);
    expect([...m.values()]).toEqual([-1, 10_000]);
    expect(m.get(5)).toBeUndefined();
  });
});
