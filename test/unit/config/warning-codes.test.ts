import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { silencedWarnings, WARNING_CODES } from '../../../src/config/warning-codes.js';

const README = new URL('../../../README.md', import.meta.url);

// The codes in the first column of the README's warnings table.
function readmeCodes(): string[] {
  const text = readFileSync(README, 'utf8');
  const section = text.slice(text.indexOf('## What Cursor fences, and the warnings you get'));
  const from = section.indexOf('\n| code');
  const table = section.slice(from, section.indexOf('\n\n', from));
  return table
    .split('\n')
    .filter((l) => l.startsWith('| `'))
    .flatMap((l) => [...l.split('|')[1]!.matchAll(/`([a-z-]+)`/g)].map((m) => m[1]!));
}

describe('warning codes', () => {
  it('the README lists every code, and no other', () => {
    expect(readmeCodes()).toEqual(WARNING_CODES);
  });

  it('every code the source gives is in the list', () => {
    // A code written anywhere under src/ as a warning must be one --no-warning accepts.
    const src = [
      'run/index.ts',
      'run/attempt.ts',
      'run/handshake.ts',
      'run/turn.ts',
      'run/finish.ts',
      'config/warnings.ts',
      'events/updates.ts',
      'options.ts',
      'doctor/proxy.ts',
      'agent/warnings.ts',
    ];
    const found: string[] = [];
    for (const f of src) {
      const text = readFileSync(new URL(`../../../src/${f}`, import.meta.url), 'utf8');
      for (const m of text.matchAll(/code: '([a-z]+-[a-z-]+)'|warn\(\s*(?:ctx,\s*)?'([a-z-]+)'/g))
        found.push((m[1] ?? m[2])!);
    }
    // The run's own warnings are found where they are given (the pattern still matches them).
    expect(found).toEqual(expect.arrayContaining(['model-not-settable', 'reply-looks-like-error']));
    for (const code of found) expect(WARNING_CODES).toContain(code);
  });

  it.each([
    [['stdin-ignored'], undefined, ['stdin-ignored'], []],
    [['stdin-ignored,agent-non-json', 'stdin-ignored'], '', ['stdin-ignored', 'agent-non-json'], []],
    [[], ' policy-fences-nothing , ,socks-proxy', ['policy-fences-nothing', 'socks-proxy'], []],
    [
      ['nope'],
      'stdin-ignored,also-nope',
      ['stdin-ignored'],
      [
        { code: 'nope', from: '--no-warning' },
        { code: 'also-nope', from: 'RHO_CURSOR_NO_WARNING' },
      ],
    ],
  ])('%j with RHO_CURSOR_NO_WARNING=%j silences %j', (flags, env, codes, unknown) => {
    expect(silencedWarnings(flags, env)).toEqual({ codes, unknown });
  });
});
