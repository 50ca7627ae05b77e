import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonFault } from '../../../src/config/json-syntax.js';

const parses = (text: string): boolean => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

// The config's syntax check must agree with JSON.parse on what is JSON: it only says where the fault is.
describe('jsonFault', () => {
  it('finds a fault exactly when JSON.parse refuses the text', () => {
    // Short number-like tokens, alone and as a value: where a hand-written number reader goes wrong.
    const number = fc.string({
      unit: fc.constantFrom('0', '1', '9', '.', '-', '+', 'e', 'E'),
      minLength: 1,
      maxLength: 5,
    });
    const jsonish = fc.oneof(
      number,
      number.map((n) => `{"a":${n}}`),
      number.map((n) => `[${n},1]`),
      fc.json(),
      fc.string({
        unit: fc.constantFrom(
          '{',
          '}',
          '[',
          ']',
          ',',
          ':',
          '"',
          '\\',
          'u',
          '0',
          '1',
          'e',
          '-',
          '.',
          ' ',
          'n',
          't',
          'f',
          'a',
          'l',
          's',
          'r',
          '\n',
        ),
      }),
      fc.json().chain((j) => fc.nat(j.length).map((n) => j.slice(0, n) + j.slice(n + 1))),
      fc
        .json()
        .chain((j) =>
          fc
            .tuple(fc.nat(j.length), fc.string({ minLength: 1, maxLength: 1 }))
            .map(([n, c]) => j.slice(0, n) + c + j.slice(n)),
        ),
    );
    fc.assert(
      fc.property(jsonish, (text) => {
        expect(jsonFault(text) === undefined).toBe(parses(text));
      }),
      { numRuns: 3000 },
    );
  });
});
