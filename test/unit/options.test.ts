import { describe, expect, it } from 'vitest';
import { RhoError } from '../../src/errors.js';
import {
  POLICIES,
  checkAllowUnderFence,
  checkRulesUnderFence,
  defaultFence,
  defaultPolicy,
  durationOption,
  oneOf,
  parseDuration,
  promptSource,
  assemblePrompt,
  formatFromArgv,
  type Facts,
} from '../../src/options.js';
import { parseRules } from '../../src/policy/rules.js';
import { parseRunArgv } from '../../src/args.js';

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
    ['1440m', 86_400_000],
    ['86400', 86_400_000],
    // Found by review: the message said "at most 24h" and `24h` was refused.
    ['1h', 3_600_000],
    ['24h', 86_400_000],
    ['0.5h', 1_800_000],
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
    'h',
    '25h',
    '1d',
    '10 s',
    '1.5.2',
    '1e3',
    '.5',
    'ten',
    '9'.repeat(400),
    '1441m',
    '86401',
    '86400001ms',
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
        "option '--step-timeout' takes a duration like 500ms, 10s, 2m, 1h or a number of seconds, above 0 and at most 24h (got '10x')",
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

describe('promptSource', () => {
  it.each<{ words: string[]; file?: string; tty: boolean; want: object }>([
    { words: ['fix', 'the', 'bug'], tty: true, want: { words: 'fix the bug', readStdin: false } },
    { words: ['fix', 'the', 'bug'], tty: false, want: { words: 'fix the bug', readStdin: false } },
    { words: ['-'], tty: true, want: { words: '', readStdin: true } },
    { words: ['-'], tty: false, want: { words: '', readStdin: true } },
    { words: [], tty: false, want: { words: '', readStdin: true } },
    { words: [], tty: true, want: { words: '', readStdin: false } },
    { words: ['review', 'this:', '-'], tty: false, want: { words: 'review this:', readStdin: true } },
    { words: ['review', '-', 'now'], tty: false, want: { words: 'review now', readStdin: true } },
    { words: [], file: 'p.md', tty: false, want: { words: '', file: 'p.md', readStdin: false } },
    { words: ['-'], file: 'p.md', tty: false, want: { words: '', file: 'p.md', readStdin: true } },
  ])('$words (file $file, stdin a terminal $tty) -> $want', ({ words, file, tty, want }) => {
    expect(promptSource(words, file, tty)).toMatchObject(want);
  });
});

describe('assemblePrompt', () => {
  it.each<[string, string | undefined, string | undefined, string]>([
    ['review this diff:', undefined, 'diff --git a b\n', 'review this diff:\n\ndiff --git a b\n'],
    ['', undefined, 'only stdin', 'only stdin'],
    ['words', 'file text', undefined, 'words\n\nfile text'],
    ['words', 'file', 'stdin', 'words\n\nfile\n\nstdin'],
    ['words', '', '  \n', 'words'],
    ['', undefined, '', ''],
  ])('%j + file %j + stdin %j', (words, file, stdin, prompt) => {
    expect(assemblePrompt(words, file, stdin)).toBe(prompt);
  });
});

describe('formatFromArgv', () => {
  it.each<[string[], string | undefined]>([
    [['--timeout', 'abc', '--output-format', 'stream-json'], 'stream-json'],
    [['--output-format=json', '--bogus'], 'json'],
    [['go'], 'text'],
    [['--output-format', 'yaml'], undefined],
    [['--', '--output-format', 'json'], 'text'],
  ])('%j -> %s', (argv, format) => {
    expect(formatFromArgv(argv)).toBe(format);
  });
});

// Facts of a process at a terminal in /home/u, where /home/u and /tmp are the only directories.
function facts(over: Partial<Facts> = {}): Facts {
  return {
    env: {},
    cwd: '/home/u',
    stdinIsTTY: true,
    stderrIsTTY: true,
    stdinHasData: false,
    isDirectory: (p) => p === '/home/u' || p === '/tmp',
    resolvePath: (from, p) => (p.startsWith('/') ? p : p === '.' ? from : `${from}/${p}`),
    ...over,
  };
}

const parse = (line: string, over: Partial<Facts> = {}) =>
  parseRunArgv(line === '' ? [] : line.split(' '), facts(over));

describe('parseRunArgv: the command line of `run`', () => {
  it.each<[string, Partial<Facts>, object]>([
    ['fix the bug', {}, { policy: 'ask', interactive: true, format: 'text', color: 'auto', quiet: false }],
    ['fix', { stdinIsTTY: false }, { policy: 'reject', interactive: false }],
    ['-', {}, { policy: 'reject', interactive: false }],
    ['-m composer-2.5 -q go', {}, { model: 'composer-2.5', quiet: true }],
    ['go --color never --output-format json', {}, { color: 'never', format: 'json' }],
    [
      'go --timeout 2m --step-timeout 500ms --idle-timeout 30',
      {},
      { timeoutMs: 120_000, stepTimeoutMs: 500, idleTimeoutMs: 30_000 },
    ],
    ['go', {}, { stepTimeoutMs: 30_000, timeoutMs: undefined, idleTimeoutMs: undefined }],
    ['go --cwd /tmp --agent ./bin/agent', {}, { cwd: '/tmp', agent: '/home/u/./bin/agent' }],
    ['go', { env: { RHO_CURSOR_AGENT: 'my-agent' } }, { agent: 'my-agent' }],
    ['go', {}, { agentArgs: [], mode: undefined }],
    [
      'go --agent npx --agent-arg @zed-industries/claude-agent-acp',
      {},
      { agent: 'npx', agentArgs: ['@zed-industries/claude-agent-acp'] },
    ],
    [
      'go --agent-arg @google/gemini-cli --agent-arg --experimental-acp',
      {},
      { agentArgs: ['@google/gemini-cli', '--experimental-acp'] },
    ],
    ['go --mode acceptEdits', {}, { mode: 'acceptEdits', plan: false }],
    ['go --plan --mode plan', {}, { mode: 'plan', plan: true }],
    [
      'go --allow execute --allow fetch --permissions allow',
      {},
      { allow: ['execute', 'fetch'], policy: 'allow' },
    ],
    [
      'go --allow Shell(npm:test) --allow read --deny Shell(git:push) --deny fetch',
      {},
      {
        allow: ['read'],
        rules: {
          allow: [
            { type: 'Shell', command: 'npm', args: 'test' },
            { type: 'kind', kind: 'read' },
          ],
          deny: [
            { type: 'Shell', command: 'git', args: 'push' },
            { type: 'kind', kind: 'fetch' },
          ],
        },
      },
    ],
  ])('%j %j', (line, over, want) => {
    const r = parse(line, over);
    expect(r.ok && r.options).toMatchObject(want);
  });

  it.each<[string, Partial<Facts>, object]>([
    ['how do I bump -- --version', {}, { words: 'how do I bump --version' }],
    ['-- -q -m', {}, { words: '-q -m' }],
    ['-f task.md', {}, { file: 'task.md', readStdin: false }],
    ['review this: -', { stdinIsTTY: false, stdinHasData: true }, { words: 'review this:', readStdin: true }],
  ])('prompt of %j', (line, over, want) => {
    const r = parse(line, over);
    expect(r.ok && r.source).toMatchObject(want);
  });

  it.each<[string, Partial<Facts>, string[]]>([
    ['go', { stdinIsTTY: false, stdinHasData: true }, ['stdin-ignored']],
    ['-f p.md', { stdinIsTTY: false, stdinHasData: true }, ['stdin-ignored']],
    ['go', { stdinIsTTY: false, stdinHasData: false }, []],
    ['go -', { stdinIsTTY: false, stdinHasData: true }, []],
    ['', { stdinIsTTY: false, stdinHasData: true }, []],
  ])('notices of %j %j', (line, over, codes) => {
    const r = parse(line, over);
    expect(r.ok && r.options.notices.map((n) => n.code)).toEqual(codes);
  });

  it.each<[string, RegExp[], string | undefined]>([
    ['go --timeout abc', [/'--timeout' takes a duration/], 'text'],
    ['go --timeout 25h', [/'--timeout'/], 'text'],
    ['go --timeout 86401', [/at most 24h/], 'text'],
    ['go --idle-timeout 0 --output-format stream-json', [/'--idle-timeout'/], 'stream-json'],
    ['go --permissions maybe --timeout x --output-format json', [/'--permissions'/, /'--timeout'/], 'json'],
    ['go --output-format yaml', [/'--output-format' must be one of text, json, stream-json/], undefined],
    ['go --color sometimes', [/'--color' must be one of auto, always, never/], 'text'],
    ['go --allow teleport', [/'--allow'/], 'text'],
    [
      'go --deny Bash(x) --allow Shell()',
      [/'--allow' got a malformed rule 'Shell\(\)'/, /'--deny' got a malformed rule 'Bash\(x\)'/],
      'text',
    ],
    ['go --fence no-shell --allow Shell(ls)', [/'--allow Shell\(ls\)' cannot reopen/], 'text'],
    ['go --cwd /nope', [/'--cwd' must name a directory \(got '\/nope'\)/], 'text'],
    ['go --bogus --output-format stream-json', [/unknown option '--bogus'/], 'stream-json'],
    ['go --timeout', [/argument missing/], 'text'],
    ['go --plan --mode yolo', [/'--plan' and '--mode yolo' cannot be used together/], 'text'],
  ])('%j is a usage error', (line, messages, format) => {
    const r = parse(line);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.map((e) => e.code)).toEqual(messages.map(() => 'usage'));
    messages.forEach((m, i) => expect(r.errors[i]!.message).toMatch(m));
    expect(r.format).toBe(format);
  });

  it('names an empty --agent without a double space', () => {
    const r = parseRunArgv(['go', '--agent', ''], facts());
    expect(!r.ok && r.errors[0]!.message).toBe("option '--agent' needs a path or a command name (got '')");
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

  it.each([
    ['none', ['Shell(npm test)', 'Write(src/**)', 'WebFetch(x.com)']],
    ['no-shell', ['Write(src/**)', 'WebFetch(x.com)', 'Read(**)']],
  ] as const)('accepts --fence %s with --allow rules %j', (fence, allow) => {
    expect(() => checkRulesUnderFence(fence, parseRules(allow, []).rules)).not.toThrow();
  });

  it.each([
    [
      'no-shell',
      ['Write(src/**)', 'Shell(npm test)'],
      /'--allow Shell\(npm:test\)' cannot reopen what --fence no-shell closes/,
    ],
    ['read-only', ['Read(**)'], /'--allow Read\(\*\*\)' cannot reopen what --fence read-only closes/],
    ['read-only', ['Mcp(gh:issue)'], /--fence read-only/],
  ] as const)('refuses --fence %s with --allow rules %j as a usage error', (fence, allow, message) => {
    expect(() => checkRulesUnderFence(fence, parseRules(allow, []).rules)).toThrow(message);
  });

  it('lets --deny rules stand under every fence', () => {
    const { rules } = parseRules([], ['Shell(git push)', 'Write(**)', 'WebFetch(*)']);
    for (const fence of ['none', 'no-shell', 'read-only'] as const)
      expect(() => checkRulesUnderFence(fence, rules)).not.toThrow();
  });

  it('says when the fence came from --plan', () => {
    expect(() => checkAllowUnderFence('read-only', ['execute'], false)).toThrow(/implied by --plan/);
  });
});
