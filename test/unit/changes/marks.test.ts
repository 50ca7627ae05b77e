import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  addHash,
  HASH_FILE_MAX_BYTES,
  HashBudget,
  hashOf,
  markOf,
  marksOf,
  sameContent,
  sameMark,
  type FileMark,
} from '../../../src/changes/marks.js';

const dir = (): string => mkdtempSync(join(tmpdir(), 'rho-marks-'));

describe('hashing never blocks on, nor reads past, what it was given', () => {
  it('a FIFO is never opened for reading: no hash, at once', async () => {
    const p = join(dir(), 'pipe');
    execFileSync('mkfifo', [p]);
    expect(await hashOf(p, false)).toBeUndefined();
  }, 2000);

  it('a hashed file the agent replaced by a FIFO is not the same content, at once', async () => {
    const p = join(dir(), 'a.txt');
    writeFileSync(p, 'a\n');
    const was = (await markOf(p)) as FileMark;
    await addHash(p, was, new HashBudget(1024));
    expect(was.hash).toBeDefined();
    rmSync(p);
    execFileSync('mkfifo', [p]);
    expect(await sameContent(p, was, (await markOf(p)) as FileMark)).toBe(false);
  }, 2000);

  it('a file grown past the size recorded is never read whole', async () => {
    const p = join(dir(), 'big');
    writeFileSync(p, 'small');
    truncateSync(p, 64 * 1024 * 1024);
    expect(await hashOf(p, false, 5)).toBeUndefined();
    writeFileSync(p, 'small');
    expect(await hashOf(p, false, 5)).toBe(await hashOf(p, false));
  });
});

describe('what counts as the same content (found by review)', () => {
  it('a chmod is a change, whatever the bytes; the same bytes rewritten are not', async () => {
    const p = join(dir(), 'run.sh');
    writeFileSync(p, 'echo hi\n');
    chmodSync(p, 0o644);
    const was = (await markOf(p)) as FileMark;
    await addHash(p, was, new HashBudget(1024));
    writeFileSync(p, 'echo hi\n');
    expect(await sameContent(p, was, (await markOf(p)) as FileMark)).toBe(true);
    chmodSync(p, 0o755);
    expect(await sameContent(p, was, (await markOf(p)) as FileMark)).toBe(false);
    chmodSync(p, 0o600);
    expect(await sameContent(p, was, (await markOf(p)) as FileMark)).toBe(false);
  });
});

describe('a folder the walk did not enter (a path ending in /)', () => {
  it('is marked only as being a real directory: not a link to one, not a file, and never hashed', async () => {
    const root = dir();
    mkdirSync(join(root, 'sub', '.git'), { recursive: true });
    symlinkSync(join(root, 'sub'), join(root, 'link'));
    writeFileSync(join(root, 'file'), 'x');
    const marks = await marksOf(root, ['sub/.git/', 'sub/.git', 'link/', 'file/', 'gone/']);
    expect([...marks.values()]).toEqual([{ stat: 'folder' }, null, null, null, null]);
    const folder = (await markOf(join(root, 'sub', '.git/'))) as FileMark;
    const budget = new HashBudget(1024);
    await addHash(join(root, 'sub', '.git/'), folder, budget);
    expect(folder).toEqual({ stat: 'folder' });
    expect(budget.used).toBe(0);
  });
});

describe('marksOf', () => {
  it("looks at every path, and ends between two batches once the stop is aborted, with the stop's reason", async () => {
    const root = mkdtempSync(join(tmpdir(), 'rho-marks-'));
    const paths = Array.from({ length: 600 }, (_, i) => `f${i}`);
    for (const p of paths.slice(0, 3)) writeFileSync(join(root, p), p);
    const all = await marksOf(root, paths);
    expect(all.size).toBe(600);
    expect(all.get('f0')).not.toBeNull();
    expect(all.get('f599')).toBeNull();
    const stop = new AbortController();
    const why = new Error('the run exceeded --timeout 1s');
    const looking = marksOf(root, paths, stop.signal);
    // The first batch is looked at before the promise is returned; the stop ends it before the next one.
    stop.abort(why);
    await expect(looking).rejects.toBe(why);
    rmSync(root, { recursive: true, force: true });
  });
});

describe('HashBudget', () => {
  it('a file too large to hash is passed over without spending the budget or reading as the cap reached', () => {
    const budget = new HashBudget(64 * 1024 * 1024);
    expect(budget.take(HASH_FILE_MAX_BYTES + 1)).toBe(false);
    expect(budget.over).toBe(false);
    expect(budget.take(HASH_FILE_MAX_BYTES)).toBe(true);
    expect(budget.used).toBe(HASH_FILE_MAX_BYTES);
    const small = new HashBudget(10);
    expect(small.take(8)).toBe(true);
    expect(small.take(3)).toBe(false);
    expect(small.over).toBe(true);
  });
});

describe('a path lstat cannot answer for (found by review)', () => {
  it("past the system's length it is unmeasured, never nothing there, and never the same mark", async () => {
    const long = join(dir(), ...Array.from({ length: 25 }, () => 'd'.repeat(200)), 'f.txt');
    const gone = join(dir(), 'gone');
    const marks = await marksOf('/', [long, gone, join(gone, 'under')]);
    expect(marks.get(long)).toEqual({ unmeasured: 'ENAMETOOLONG' });
    expect(marks.get(gone)).toBeNull();
    expect(marks.get(join(gone, 'under'))).toBeNull();
    expect(await markOf(long)).toEqual({ unmeasured: 'ENAMETOOLONG' });
    const u = { unmeasured: 'ENAMETOOLONG' };
    expect(sameMark(u, u)).toBe(false);
    expect(sameMark(null, null)).toBe(true);
    expect(sameMark({ stat: 's' }, { stat: 's' })).toBe(true);
    expect(sameMark({ stat: 's' }, null)).toBe(false);
  });
});
