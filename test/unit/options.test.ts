import { describe, expect, it } from 'vitest';
import { RhoError } from '../../src/errors.js';
import {
  POLICIES,
  defaultPolicy,
  durationOption,
  oneOf,
  parseDuration,
  promptFromWords,
} from '../../src/options.js';

describe('parseDuration', () => {
  it.each([
    ['500ms', 500],
    ['10s', 10_000],
    ['2m', 120_000],
    ['3', 3_000],
    ['1.5', 1_500],
    ['0.5s', 500],
    ['1.5m', 90_000],
    [' 10s ', 10_000],
  ])('reads %j as %i ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each([
    '10x',
    '-1',
    '0',
    '0s',
    '0ms',
    '0.4ms',
    '',
    'ms',
    's',
    '1h',
    '10 s',
    '1.5.2',
    '99999999999',
    '86401',
    '1441m',
    '1e3',
    '.5',
    'ten',
    '9'.repeat(400),
  ])('rejects %j', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });
});

describe('durationOption', () => {
  it('returns milliseconds for a good value', () => {
    expect(durationOption('--timeout', '2m')).toBe(120_000);
  });

  it('throws a usage error naming the option and the value', () => {
    expect(() => durationOption('--step-timeout', '10x')).toThrow(
      new RhoError(
        'usage',
        "option '--step-timeout' takes a duration like 500ms, 10s, 2m or a number of seconds, above 0 and at most 24h (got '10x')",
      ),
    );
    expect(() => durationOption('--timeout', '0')).toThrow(
      expect.objectContaining({ code: 'usage', exitCode: 2 }),
    );
  });
});

describe('oneOf', () => {
  it('returns a listed value', () => {
    expect(oneOf('--permissions', POLICIES, 'ask')).toBe('ask');
  });

  it.each(['never', 'Allow', ''])('throws a usage error naming the option for %j', (value) => {
    let err: unknown;
    try {
      oneOf('--permissions', POLICIES, value);
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({
      code: 'usage',
      exitCode: 2,
      message: `option '--permissions' must be one of reject, allow, ask (got '${value}')`,
    });
  });
});

describe('defaultPolicy', () => {
  it.each([
    [true, 'ask'],
    [false, 'reject'],
  ])('with a person at the terminal %s is %s', (interactive, policy) => {
    expect(defaultPolicy(interactive)).toBe(policy);
  });
});

describe('promptFromWords', () => {
  it.each<{ words: string[]; stdinIsTTY: boolean; prompt: string | undefined }>([
    { words: ['fix', 'the', 'bug'], stdinIsTTY: true, prompt: 'fix the bug' },
    { words: ['fix', 'the', 'bug'], stdinIsTTY: false, prompt: 'fix the bug' },
    { words: ['say "hi"'], stdinIsTTY: true, prompt: 'say "hi"' },
    { words: ['-'], stdinIsTTY: true, prompt: undefined },
    { words: ['-'], stdinIsTTY: false, prompt: undefined },
    { words: [], stdinIsTTY: false, prompt: undefined },
    { words: [], stdinIsTTY: true, prompt: '' },
    { words: ['explain', '-'], stdinIsTTY: false, prompt: 'explain -' },
  ])('reads $words with stdin a terminal $stdinIsTTY as $prompt', ({ words, stdinIsTTY, prompt }) => {
    expect(promptFromWords(words, stdinIsTTY)).toBe(prompt);
  });
});
