import { describe, expect, it } from 'vitest';
import { redact, redactBytes, Redactor, secretForms } from '../../../src/lifecycle/secrets.js';

const KEY = 'sk-12345678';
const MASK = '[redacted]';

describe('secretForms', () => {
  it('spells the key plain, JSON-escaped and \\u-escaped in both cases', () => {
    expect(secretForms('a"b/')).toEqual([
      'a"b/',
      'a\\"b/',
      '\\u0061\\u0022\\u0062\\u002f',
      '\\u0061\\u0022\\u0062\\u002F',
    ]);
  });

  it('has no empty form, so an empty secret masks nothing', () => {
    expect(secretForms('')).toEqual([]);
    expect(redact('some text', secretForms(''))).toBe('some text');
  });
});

describe('redact', () => {
  it('leaves a text with backslashes alone when there is no secret', () => {
    expect(redact('C:\\dir\\u0041 "\\n"', [])).toBe('C:\\dir\\u0041 "\\n"');
  });

  it('masks every occurrence of every form', () => {
    const text = `${KEY} and ${JSON.stringify(KEY)} and ${secretForms(KEY)[2]!} again ${KEY}`;
    expect(redact(text, secretForms(KEY))).toBe(`${MASK} and "${MASK}" and ${MASK} again ${MASK}`);
  });

  // Each character of the key that JSON can write as a two-character escape, written so, among \u escapes.
  it.each([
    ['"', '\\"'],
    ['\\', '\\\\'],
    ['/', '\\/'],
    ['\b', '\\b'],
    ['\f', '\\f'],
    ['\n', '\\n'],
    ['\r', '\\r'],
    ['\t', '\\t'],
  ])('masks a key whose %j is written %s among \\u escapes', (char, short) => {
    const key = `k${char}ey-12345`;
    const text = `{"k":"\\u006B${short}ey-12345"}`;
    expect(redact(text, secretForms(key))).toBe(`{"k":"${MASK}"}`);
  });

  it('masks a key spelled with lower- and upper-case \\u escapes mixed with plain characters', () => {
    expect(redact('x \\u0073\\u004B-\\u0031\\u0032345678 y', secretForms('sK-12345678'))).toBe(`x ${MASK} y`);
  });

  it('masks every mixed spelling in a text, not only the first', () => {
    expect(redact('a \\u0061bcdefgh b ab\\u0063defgh c', secretForms('abcdefgh'))).toBe(
      `a ${MASK} b ${MASK} c`,
    );
  });

  it('masks a second secret after a first one (each its own mixed spelling)', () => {
    expect(redact('\\u0061bcdefgh', secretForms('abcdefgh'))).toBe(MASK);
    expect(redact('\\u0069jklmnop', secretForms('ijklmnop'))).toBe(MASK);
    expect(redact('\\u0061bcdefgh', secretForms('ijklmnop'))).toBe('\\u0061bcdefgh');
  });
});

describe('Redactor', () => {
  it('masks the values it is also given (the guard token), split across writes too, with or without a key', () => {
    const token = 'rho-0123456789abcdef0123456789abcdef';
    for (const r of [new Redactor(undefined, [token]), new Redactor('sk-a-long-key-123', [token])]) {
      const out = r.push(`a\n::${token.slice(0, 10)}`) + r.push(`${token.slice(10)}::\n`) + r.end();
      expect(out).toBe('a\n::[redacted]::\n');
    }
    // A value shorter than a key would mask ordinary words: not taken.
    expect(new Redactor(undefined, ['ab']).push('ab')).toBe('ab');
  });

  it.each([
    ['no key', undefined],
    ['an empty key', ''],
    ['a key shorter than 8', '1234567'],
  ])('is inactive with %s and passes text through as it is', (_, secret) => {
    const r = new Redactor(secret);
    expect(r.active).toBe(false);
    expect(r.push('1234567 and \\u0031234567')).toBe('1234567 and \\u0031234567');
    expect(r.push('123')).toBe('123');
    expect(r.end()).toBe('');
  });

  it('is active with a key of 8 or more', () => {
    const r = new Redactor('12345678');
    expect(r.active).toBe(true);
    expect(r.push('a 12345678 b')).toBe(`a ${MASK} b`);
  });

  it('writes at once what cannot be the start of the key', () => {
    const r = new Redactor(KEY);
    expect(r.push('hello world')).toBe('hello world');
    expect(r.push(' and more\n')).toBe(' and more\n');
    expect(r.end()).toBe('');
  });

  it('holds back only the end that could be the start of the key, and end() gives it back once', () => {
    const r = new Redactor(KEY);
    expect(r.push('hello sk-12')).toBe('hello ');
    expect(r.end()).toBe('sk-12');
    expect(r.end()).toBe('');
    expect(r.push('34')).toBe('34');
  });

  it('holds back the longest start of any form (here the \\u one)', () => {
    const r = new Redactor(KEY);
    expect(r.push('x \\u0073\\u006b')).toBe('x ');
    expect(r.push('\\u002d\\u0031\\u0032\\u0033\\u0034\\u0035\\u0036\\u0037\\u0038 y')).toBe(`${MASK} y`);
  });

  it('masks a key cut across writes', () => {
    const r = new Redactor(KEY);
    expect([r.push('abc sk-1'), r.push('2345'), r.push('678 def'), r.end()]).toEqual([
      'abc ',
      '',
      `${MASK} def`,
      '',
    ]);
  });

  it('writes a held-back end that turns out not to be the key with the next write', () => {
    const r = new Redactor(KEY);
    expect(r.push('sk-1')).toBe('');
    expect(r.push('x')).toBe('sk-1x');
  });
});

describe('Redactor: a long run of backslashes', () => {
  it('holds back only what could still change, so a stream of backslashes goes out as it comes', () => {
    // Found by review: the whole trailing run was held and re-read at every write (quadratic).
    const r = new Redactor(KEY);
    let out = '';
    const chunk = '\\'.repeat(100);
    for (let i = 0; i < 2000; i++) {
      out += r.push(chunk);
      expect(out.length).toBeGreaterThanOrEqual((i + 1) * 100 - 10);
    }
    expect(out + r.end()).toBe(chunk.repeat(2000));
  });
});

describe('redactBytes', () => {
  it('masks every occurrence, byte for byte: bytes that are not UTF-8 stay as they were', () => {
    const bytes = Buffer.concat([
      Buffer.from(`+${KEY}\n`),
      Buffer.of(0xff, 0xfe),
      Buffer.from(`a/${KEY}.txt`),
    ]);
    expect(redactBytes(bytes, secretForms(KEY))).toEqual(
      Buffer.concat([Buffer.from('+[redacted]\n'), Buffer.of(0xff, 0xfe), Buffer.from('a/[redacted].txt')]),
    );
  });

  it('says when there is nothing to mask; forms that overlap are one mask', () => {
    expect(redactBytes(Buffer.from('nothing here'), secretForms(KEY))).toBeUndefined();
    expect(redactBytes(Buffer.from('xabcdy'), ['abc', 'bcd'])?.toString()).toBe('x[redacted]y');
  });
});
