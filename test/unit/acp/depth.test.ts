// The depth limit: a message nested deeper than MAX_DEPTH is found without recursion.
import { describe, expect, it } from 'vitest';
import { MAX_DEPTH, tooDeep } from '../../../src/acp/depth.js';

const nested = (n: number): string => '['.repeat(n) + ']'.repeat(n);

describe('tooDeep', () => {
  it('is at least 512', () => expect(MAX_DEPTH).toBeGreaterThanOrEqual(512));

  it.each([
    [1, false],
    [MAX_DEPTH, false],
    [MAX_DEPTH + 1, true],
    [100_000, true],
  ])('an array nested %i deep: too deep %s', (n, deep) => {
    const line = nested(n);
    expect(tooDeep(JSON.parse(line), line.length)).toBe(deep);
  });

  it('finds depth inside objects too', () => {
    const line = `{"params":{"rawInput":${'{"a":'.repeat(600)}1${'}'.repeat(600)}}}`;
    expect(tooDeep(JSON.parse(line), line.length)).toBe(true);
  });

  it('never looks into a short line', () => {
    expect(tooDeep([[[1]]], 8, 2)).toBe(false);
  });
});

describe('tooDeep: what is never deep', () => {
  it.each([
    ['null', null],
    ['a number', 7],
    ['a string', 'x'.repeat(2000)],
    ['a boolean', true],
  ])('%s, however long its line', (_name, value) => {
    expect(tooDeep(value, 5000)).toBe(false);
  });

  it('walks an object whose values are null', () => {
    const line = JSON.stringify({ a: null, b: [null, 1], c: 'x'.repeat(2000) });
    expect(tooDeep(JSON.parse(line), line.length)).toBe(false);
  });

  it('takes the limit it is given', () => {
    const line = '[[[[' + ' '.repeat(2000) + ']]]]';
    expect(tooDeep(JSON.parse(line), line.length, 3)).toBe(true);
    expect(tooDeep(JSON.parse(line), line.length, 4)).toBe(false);
  });

  it('counts a plain value as no nesting at all, even under a limit of 0', () => {
    expect(tooDeep('x'.repeat(2000), 2002, 0)).toBe(false);
    expect(tooDeep(7, 2000, 0)).toBe(false);
    expect(tooDeep([], 2000, 0)).toBe(true);
  });
});
