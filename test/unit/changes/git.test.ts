import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mayBeInGit, parseStatus } from '../../../src/changes/git.js';

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

describe('mayBeInGit', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rho-maybe-git-'));
  const deep = join(dir, 'a', 'b');
  mkdirSync(deep, { recursive: true });

  it('is false with no .git in the directory or above it and no GIT_DIR', () => {
    expect(mayBeInGit(deep, {})).toBe(false);
  });
  it('is true when GIT_DIR or GIT_WORK_TREE points git elsewhere', () => {
    expect(mayBeInGit(deep, { GIT_DIR: '/x/.git' })).toBe(true);
    expect(mayBeInGit(deep, { GIT_WORK_TREE: '/x' })).toBe(true);
  });
  it('is true when a .git (a directory, or a worktree file) is in a directory above', () => {
    writeFileSync(join(dir, 'a', '.git'), 'gitdir: /elsewhere\n');
    expect(mayBeInGit(deep, {})).toBe(true);
  });
});
