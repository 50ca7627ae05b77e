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
  it("lists files, a folder's files before its folders, in name order; .git and node_modules, at any depth, are listed (ending in /) and not entered", async () => {
    expect(await walkFiles(tree(), 100)).toEqual({
      files: ['.git/', 'b.txt', 'node_modules/', 'a/z.txt', 'a/y/x.txt', 'c/node_modules/'],
      truncated: false,
      folders: 5,
    });
  });

  it("ends between two folders once the stop is aborted, with the stop's reason", async () => {
    const stop = new AbortController();
    const why = new Error('cancelled by SIGINT');
    const walking = walkFiles(tree(), 100, undefined, stop.signal);
    stop.abort(why);
    await expect(walking).rejects.toBe(why);
    await expect(walkFiles(tree(), 100, undefined, AbortSignal.abort(why))).rejects.toBe(why);
    expect((await walkFiles(tree(), 100, undefined, new AbortController().signal)).files).toHaveLength(6);
  });

  it('stops at the cap and says so', async () => {
    expect(await walkFiles(tree(), 2)).toMatchObject({ files: ['.git/', 'b.txt'], truncated: true });
  });

  it('stops at the folder cap too, however few files the folders hold', async () => {
    // The root, then a/ (its file), then a/y/: the third folder is past a cap of two.
    expect(await walkFiles(tree(), 100, 2)).toEqual({
      files: ['.git/', 'b.txt', 'node_modules/', 'a/z.txt'],
      truncated: true,
      folders: 2,
    });
    expect(await walkFiles(tree(), 100, 3)).toEqual({
      files: ['.git/', 'b.txt', 'node_modules/', 'a/z.txt', 'a/y/x.txt'],
      truncated: true,
      folders: 3,
    });
    // By default half as many folders as files, and never fewer than 64.
    const root = mkdtempSync(join(tmpdir(), 'rho-walk-'));
    for (let i = 0; i < 70; i++) mkdirSync(join(root, `d${String(i).padStart(2, '0')}`));
    expect(await walkFiles(root, 10)).toEqual({ files: [], truncated: true, folders: 64 });
    expect(await walkFiles(root, 200)).toEqual({ files: [], truncated: false, folders: 71 });
  });
});
