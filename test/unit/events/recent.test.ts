import { describe, expect, it } from 'vitest';
import { RecentIds } from '../../../src/events/recent.js';

// A window of `size` with the ids added in order.
const window = (size: number, ids: string[]): RecentIds => {
  const recent = new RecentIds(size);
  for (const id of ids) recent.add(id);
  return recent;
};

describe('RecentIds', () => {
  it('knows nothing it was not told', () => {
    expect(new RecentIds(2).has('a')).toBe(false);
  });

  it('remembers the last size ids', () => {
    const recent = window(2, ['a', 'b', 'c']);
    expect(['a', 'b', 'c'].map((id) => recent.has(id))).toEqual([true, true, true]);
  });

  it('forgets an id once two windows of newer ones came after it', () => {
    const recent = window(2, ['a', 'b', 'c', 'd', 'e']);
    expect(['a', 'b', 'c', 'd', 'e'].map((id) => recent.has(id))).toEqual([false, false, true, true, true]);
  });

  it('never remembers more than twice its size', () => {
    const ids = Array.from({ length: 100 }, (_, i) => `t${i}`);
    const recent = window(10, ids);
    expect(ids.filter((id) => recent.has(id)).length).toBeLessThanOrEqual(20);
    expect(ids.slice(-10).every((id) => recent.has(id))).toBe(true);
  });
});
