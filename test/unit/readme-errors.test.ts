// The README's error-code table is the one list in src/errors.ts, row for row.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERRORS } from '../../src/errors.js';

const README = new URL('../../README.md', import.meta.url);

// The rows of the table under "### Error codes": [code, exit, when].
function readmeRows(): string[][] {
  const text = readFileSync(README, 'utf8');
  const section = text.slice(text.indexOf('### Error codes'));
  const table = section.slice(section.indexOf('\n|'), section.indexOf('\n\n', section.indexOf('\n|')));
  return table
    .split('\n')
    .filter((l) => l.startsWith('| `'))
    .map((l) =>
      l
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((c) => c.trim().replace(/^`|`$/g, '').replace(/\\\|/g, '|')),
    );
}

describe('the README lists the error codes', () => {
  it('every code of ERRORS, with its exit code and meaning, in order', () => {
    const expected = Object.entries(ERRORS).map(([code, [exit, why]]) => [code, String(exit), why]);
    expect(readmeRows()).toEqual(expected);
  });
});
