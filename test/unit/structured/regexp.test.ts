import { describe, expect, it } from 'vitest';
import { RE2JS } from 're2js';
import { linearRegExp } from '../../../src/structured/regexp.js';

describe('linearRegExp', () => {
  const engine = linearRegExp(RE2JS);

  it('names itself re2js, for ajv to import in generated code', () => {
    expect(engine.code).toBe('re2js');
  });

  it.each([
    ['^[a-z]+$', 'abc', true],
    ['^[a-z]+$', 'abC', false],
    ['b', 'abc', true],
    ['^(a+)+$', 'a'.repeat(10_000) + '!', false],
    ['\\d{3}', 'x123', true],
  ])('%s tests %j: %s', (pattern, s, matches) => {
    expect(engine(pattern, 'u').test(s)).toBe(matches);
  });

  it('is named by its source, which ajv shares one compiled copy by', () => {
    expect(String(engine('^a$', 'u'))).toBe('/^a$/u');
  });

  it('refuses a pattern it cannot run in linear time, naming it and why', () => {
    expect(() => engine('(a)\\1', 'u')).toThrow(/^pattern "\(a\)\\\\1" cannot run in linear time \(.+\)$/);
  });
});
