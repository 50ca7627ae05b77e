import { describe, expect, it } from 'vitest';
import { parseStatus } from '../../../src/changes/git.js';

describe('parseStatus', () => {
  it.each([
    ['', []],
    [' M src/a.ts\0', [{ x: ' ', y: 'M', path: 'src/a.ts' }]],
    [
      '?? new file.txt\0D  old.md\0',
      [
        { x: '?', y: '?', path: 'new file.txt' },
        { x: 'D', y: ' ', path: 'old.md' },
      ],
    ],
    [
      'R  new.ts\0old.ts\0 M b\0',
      [
        { x: 'R', y: ' ', path: 'new.ts', from: 'old.ts' },
        { x: ' ', y: 'M', path: 'b' },
      ],
    ],
    ['AM weird\nname\0', [{ x: 'A', y: 'M', path: 'weird\nname' }]],
  ])('%j', (out, entries) => {
    expect(parseStatus(out)).toEqual(entries);
  });
});
