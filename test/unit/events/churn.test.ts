// ChurnMap: a Map for entries that come and go (a tool from its call to its final update) that never
// rehashes its table on a delete. To every caller it must be a Map: the same answers, the same order.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChurnMap } from '../../../src/events/churn.js';

type Op = { op: 'set'; key: string; value: number } | { op: 'delete'; key: string };

// A few keys, so sets, deletes and re-sets of one key meet often; long runs, so rebuilds happen.
const KEYS = ['a', 'b', 'c', 'd', 'e', '__proto__', '0', '1'];
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('set' as const), key: fc.constantFrom(...KEYS), value: fc.integer() }),
  fc.record({ op: fc.constant('delete' as const), key: fc.constantFrom(...KEYS) }),
);

describe('ChurnMap', () => {
  it('answers as a Map does after any sequence of sets and deletes', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 400 }), (ops) => {
        const model = new Map<string, number>();
        const churn = new ChurnMap<string, number>();
        for (const o of ops) {
          if (o.op === 'set') {
            model.set(o.key, o.value);
            expect(churn.set(o.key, o.value)).toBe(churn);
          } else expect(churn.delete(o.key)).toBe(model.delete(o.key));
          expect(churn.size).toBe(model.size);
        }
        for (const k of KEYS) {
          expect(churn.get(k)).toBe(model.get(k));
          expect(churn.has(k)).toBe(model.has(k));
        }
        // Insertion order, a key set again after its delete going last.
        expect([...churn.values()]).toEqual([...model.values()]);
      }),
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

  it('a long churn of one entry at a time keeps order and size right across rebuilds', () => {
    const m = new ChurnMap<number, number>();
    m.set(-1, -1); // one entry that stays the whole time
    for (let i = 0; i < 10_000; i++) {
      m.set(i, i);
      expect(m.delete(i)).toBe(true);
    }
    m.set(10_000, 10_000);
    expect(m.size).toBe(2);
    expect([...m.values()]).toEqual([-1, 10_000]);
    expect(m.get(5)).toBeUndefined();
  });
});
