import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { walkFiles } from '../../../src/changes/walk.js';

// A directory with files, a skipped .git and node_modules, and an empty folder.
function tree(): string {
  const root = mkdtempSync(join(tmpdir(), 'rho-walk-'));
  for (const [p, t] of Object.entries({
    'b.txt': '',
    'a/z.txt': '',
    'a/y/x.txt': '',
    '.git/HEAD': '',
    'node_modules/m/i.js': '',
    'c/node_modules/n.js': '',
  })) {
    mkdirSync(join(root, p, '..'), { recursive: true });
    writeFileSync(join(root, p), t);
  }
  mkdirSync(join(root, 'empty'));
  return root;
}

describe('walkFiles', () => {
  it("lists files only, a folder's files before its folders, in name order, skipping .git and node_modules at any depth", async () => {
    expect(await walkFiles(tree(), 100)).toEqual({
      files: ['b.txt', 'a/z.txt', 'a/y/x.txt'],
      truncated: false,
    });
  });

  it('stops at the cap and says so', async () => {
    expect(await walkFiles(tree(), 2)).toEqual({ files: ['b.txt', 'a/z.txt'], truncated: true });
  });
});
