import { describe, expect, it } from 'vitest';
import { RhoError } from '../../src/errors.js';
import {
  POLICIES,
  checkAllowUnderFence,
  defaultFence,
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

describe('--fence', () => {
  it('defaults to read-only with --plan, else none', () => {
    expect(defaultFence(true)).toBe('read-only');
    expect(defaultFence(false)).toBe('none');
  });

  it.each([
    ['none', ['execute', 'fetch', 'search']],
    ['no-shell', ['edit', 'fetch', 'search', 'read']],
    ['no-shell', []],
    ['read-only', []],
  ] as const)('accepts --fence %s with --allow %j', (fence, allow) => {
    expect(() => checkAllowUnderFence(fence, allow, true)).not.toThrow();
  });

  it.each([
    ['no-shell', ['fetch', 'execute'], /'--allow execute' cannot reopen what --fence no-shell closes/],
    [
      'read-only',
      ['fetch'],
      /'--allow fetch' cannot reopen what --fence read-only closes: it rejects every permission request/,
    ],
    ['read-only', ['read'], /'--allow read'/],
  ] as const)('refuses --fence %s with --allow %j as a usage error', (fence, allow, message) => {
    let err: unknown;
    try {
      checkAllowUnderFence(fence, allow, true);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(RhoError);
    expect(err).toMatchObject({ code: 'usage', exitCode: 2 });
    expect((err as Error).message).toMatch(message);
  });

  it('says when the fence came from --plan', () => {
    expect(() => checkAllowUnderFence('read-only', ['execute'], false)).toThrow(/implied by --plan/);
  });
});
