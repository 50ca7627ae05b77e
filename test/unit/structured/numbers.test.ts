import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inexact, inexactNumber } from '../../../src/structured/numbers.js';

describe('inexact: a number a double does not carry exactly', () => {
  it.each([
    ['1e400', 'past the largest'],
    ['-1e400', 'past the largest'],
    ['1' + '0'.repeat(400), 'past the largest'],
    ['1e-400', 'reads as 0'],
    ['-0.0000e-400', undefined],
    ['0.001e-400', 'reads as 0'],
    ['12345678901234567890', 'reads as 12345678901234567168'],
    ['9007199254740993', 'reads as 9007199254740992'],
    ['-9007199254740993', 'reads as -9007199254740992'],
  ])('%s', (token, why) => {
    if (why === undefined) expect(inexact(token)).toBeUndefined();
    else expect(inexact(token)).toContain(why);
  });

  it.each(['0', '-0', '0.0', '0.1', '1.5e300', '5e-324', '9007199254740991', '9007199254740992', '1e21'])(
    '%s is carried as JSON rounds it',
    (token) => expect(inexact(token)).toBeUndefined(),
  );

  it('takes every safe integer, and every finite double written with its exponent', () => {
    fc.assert(fc.property(fc.maxSafeInteger(), (n) => inexact(String(n)) === undefined));
    fc.assert(
      fc.property(
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        (d) => inexact(d.toExponential()) === undefined,
      ),
    );
  });

  it('takes an integer past 2^53 written exactly, and refuses its neighbours, which no double holds', () => {
    const big = fc
      .double({ min: 2 ** 53, max: 1e300, noNaN: true })
      .filter((d) => Number.isInteger(d) && d > 2 ** 53);
    fc.assert(
      fc.property(big, fc.boolean(), (d, negative) => {
        const exact = BigInt(d) * (negative ? -1n : 1n);
        expect(inexact(String(exact))).toBeUndefined();
        // Past 2^53 doubles are at least 2 apart: one more or one less is no double.
        expect(inexact(String(exact + 1n))).toContain('past 2^53');
        expect(inexact(String(exact - 1n))).toContain('past 2^53');
      }),
    );
  });

  it('refuses any integer literal past 2^53 that reads as another integer', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 2n ** 53n + 1n, max: 10n ** 30n }), (b) => {
        const read = BigInt(Number(b));
        expect(inexact(String(b)) === undefined).toBe(read === b);
      }),
    );
  });
});

describe('inexactNumber: the first such number of a JSON text', () => {
  it('names the token as written', () => {
    expect(inexactNumber('{"a": [1, 2.5, -1e400]}')).toEqual({
      token: '-1e400',
      why: 'it is past the largest number a double holds',
    });
    expect(inexactNumber('[0.1, 1e-400, 1e400]')?.token).toBe('1e-400');
    expect(inexactNumber('{"id":12345678901234567890}')?.token).toBe('12345678901234567890');
  });

  it('reads numbers in strings and keys as text', () => {
    expect(inexactNumber('{"1e400": "12345678901234567890 \\" 1e400", "n": 1}')).toBeUndefined();
  });

  it('finds nothing in any text JSON.stringify wrote from safe integers and fractions, numbers in strings too', () => {
    const value = fc.letrec((tie) => ({
      v: fc.oneof(
        fc.maxSafeInteger(),
        fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e15, max: 1e15 }),
        fc.string(),
        fc.constantFrom('1e400', '"12345678901234567890', '\\1e-400', null, true),
        fc.array(tie('v'), { maxLength: 4 }),
        fc.dictionary(fc.string(), tie('v'), { maxKeys: 4 }),
      ),
    })).v;
    fc.assert(fc.property(value, (v) => inexactNumber(JSON.stringify(v)) === undefined));
  });

  it('finds a number that overflows wherever it stands among such values', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 5 }), fc.nat(5), (items, at) => {
        const safe = JSON.stringify(items, (_, v: unknown) => (typeof v === 'number' ? 1 : v));
        const parts = JSON.parse(safe) as unknown[];
        const spliced = parts.map((p) => JSON.stringify(p));
        spliced.splice(Math.min(at, spliced.length), 0, '1e400');
        expect(inexactNumber(`[${spliced.join(',')}]`)?.token).toBe('1e400');
      }),
    );
  });
});
