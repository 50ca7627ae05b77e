import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  armGit,
  configSeen,
  filterOverrides,
  git,
  gitDirConfigs,
  mayBeInGit,
  moduleGitDirs,
  parseStatusV2,
} from '../../../src/changes/git.js';
import { readStatus, STATUS_BATCH } from '../../../src/changes/snapshot.js';

const OID = '748e513a7392e66c042aa04efea127cecd5845cf';
const Z = '0000000000000000000000000000000000000000';

describe('parseStatusV2', () => {
  it.each([
    ['', { entries: [], head: null }],
    // A repository with no commit yet.
    [`# branch.oid (initial)\0# branch.head main\0? f\0`, { entries: [{ xy: '??', path: 'f' }], head: null }],
    // What git printed for a change in the work tree, a file removed from the index (and so untracked, its
    // name holding a space), a staged new file and an untracked one.
    [
      `# branch.oid ${OID}\0# branch.head master\0` +
        `1 .M N... 100644 100644 100644 ${OID} ${OID} a\0` +
        `1 D. N... 100644 000000 000000 ${OID} ${Z} b c\0` +
        `1 A. N... 000000 100644 100644 ${Z} ${OID} staged\0` +
        `? b c\0? new\0`,
      {
        entries: [
          { xy: '.M', path: 'a' },
          { xy: 'D.', path: 'b c' },
          { xy: 'A.', path: 'staged' },
          { xy: '??', path: 'b c' },
          { xy: '??', path: 'new' },
        ],
        head: OID,
      },
    ],
    // A rename's old path is a record of its own, not an entry; unmerged and ignored entries have their own
    // field counts; a detached HEAD still names its commit.
    [
      `# branch.oid ${OID}\0# branch.head (detached)\0` +
        `2 R. N... 100644 100644 100644 ${OID} ${OID} R100 new name\0old name\0` +
        `u UU N... 100644 100644 100644 100644 ${OID} ${OID} ${OID} both\0` +
        `! ignored/x\0`,
      {
        entries: [
          { xy: 'R.', path: 'new name' },
          { xy: 'UU', path: 'both' },
          { xy: '!!', path: 'ignored/x' },
        ],
        head: OID,
      },
    ],
    // A name with a newline is one path (-z), and a record cut short names nothing.
    [
      `1 .M N... 100644 100644 100644 ${OID} ${OID} weird\nname\0` + `1 .M N...\0`,
      {
        entries: [{ xy: '.M', path: 'weird\nname' }],
        head: null,
      },
    ],
  ])('%j', (out, want) => {
    expect(parseStatusV2(out)).toEqual(want);
  });
});

describe("the submodules' git dirs", () => {
  // A git dir with submodules `a`, `x/y` (a name holding a slash) and `a`'s own `inner`; `x` is no git dir.
  function gitDir(): string {
    const d = mkdtempSync(join(tmpdir(), 'rho-modules-'));
    for (const m of ['modules/a', 'modules/x/y', 'modules/a/modules/inner']) {
      mkdirSync(join(d, m, 'hooks'), { recursive: true });
      writeFileSync(join(d, m, 'HEAD'), 'ref: refs/heads/main\n');
    }
    mkdirSync(join(d, 'modules/a/objects/00'), { recursive: true });
    return d;
  }

  it('moduleGitDirs: each one, nested ones too, never a folder inside one but its modules/', () => {
    const d = gitDir();
    expect(moduleGitDirs({ gitDir: d })).toEqual(
      ['modules/a', 'modules/x/y', 'modules/a/modules/inner'].map((m) => join(d, m)),
    );
    expect(moduleGitDirs({ gitDir: join(d, 'none') })).toEqual([]);
  });

  it("gitDirConfigs: each one's config with the repository's own", () => {
    const d = gitDir();
    expect(gitDirConfigs({ gitDir: d })).toEqual(
      expect.arrayContaining([join(d, 'config'), join(d, 'modules/a/modules/inner/config')]),
    );
  });

  it("configSeen: a filter a submodule's config adds or changes is one to empty; one left alone is not", async () => {
    const d = gitDir();
    const work = mkdtempSync(join(tmpdir(), 'rho-work-'));
    execFileSync('git', ['init', '-q', '--separate-git-dir', join(d, 'main'), work]);
    const sub = join(d, 'main', 'modules', 'lib');
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(sub, 'config'), '[filter "lfs"]\n\tclean = lfs-clean\n');
    const place = { gitDir: join(d, 'main') };
    const before = await configSeen(work, place);
    expect(before.files).toContain(join(sub, 'config'));
    writeFileSync(join(sub, 'config'), '[filter "lfs"]\n\tclean = lfs-clean\n[filter "x"]\n\tclean = evil\n');
    expect(filterOverrides(before.filters, (await configSeen(work, place)).filters)).toEqual([
      ['filter.x.clean', ''],
    ]);
    writeFileSync(join(sub, 'config'), '[filter "lfs"]\n\tclean = evil\n');
    expect(filterOverrides(before.filters, (await configSeen(work, place)).filters)).toEqual([
      ['filter.lfs.clean', ''],
    ]);
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

describe('a git status read up to maxBytes (found by review: every entry was held, 259 MB for 300,000 files)', () => {
  // A repository with 50 untracked files: `?? f<n>.txt` records, 11 or 12 bytes each with their NUL.
  function untracked(): string {
    const repo = mkdtempSync(join(tmpdir(), 'rho-cut-'));
    execFileSync('git', ['init', '-q'], { cwd: repo });
    for (let i = 0; i < 50; i++) writeFileSync(join(repo, `f${i}.txt`), '');
    return repo;
  }
  const STATUS = ['status', '--porcelain=v2', '-z', '--untracked-files=all'];

  it('git() past maxBytes: git ended, code 0, cut, the first maxBytes kept', async () => {
    const repo = untracked();
    const whole = await git(repo, STATUS);
    expect(whole.cut).toBeUndefined();
    expect(whole.stdout.length).toBeGreaterThan(400);
    const r = await git(repo, STATUS, { maxBytes: 100 });
    expect(r).toMatchObject({ code: 0, cut: true });
    expect(r.stdout.equals(whole.stdout.subarray(0, 100))).toBe(true);
    // Below the bound nothing is cut.
    expect((await git(repo, STATUS, { maxBytes: 1 << 20 })).cut).toBeUndefined();
  });

  it('an armed status the same', async () => {
    const repo = untracked();
    const whole = await git(repo, STATUS);
    const r = await armGit(repo, STATUS, { maxBytes: 100 }).run();
    expect(r).toMatchObject({ code: 0, cut: true });
    expect(r.stdout.equals(whole.stdout.subarray(0, 100))).toBe(true);
    expect((await armGit(repo, STATUS, { maxBytes: 1 << 20 }).run()).cut).toBeUndefined();
  });

  it('readStatus of a cut status: the whole records before the cut, truncated, and said to be cut', async () => {
    const records = ['? a.txt', '? b.txt', '! ignored.log', '? c.txt'].map((r) => `${r}\0`).join('');
    const cutInC = Buffer.from(records).subarray(0, records.length - 4);
    const s = await readStatus({ code: 0, stdout: cutInC, stderr: '', cut: true }, '');
    expect([...s.entries.keys()]).toEqual(['a.txt', 'b.txt']);
    expect([...s.ignored]).toEqual(['ignored.log']);
    expect(s).toMatchObject({ truncated: true, cut: true });
    const whole = await readStatus({ code: 0, stdout: Buffer.from(records), stderr: '' }, '');
    expect([...whole.entries.keys()]).toEqual(['a.txt', 'b.txt', 'c.txt']);
    expect(whole.truncated).toBe(false);
    expect(whole.cut).toBeUndefined();
  });

  // Found by review: reading 8 MiB of status (~240,000 entries) was one block of up to 1.7 s on a busy
  // machine: a signal or --timeout waited for it. It is read a batch at a time, and the stop ends it.
  it('readStatus: a folder above the workspace listed as ignored says the workspace is ignored whole', async () => {
    const of = async (records: string, prefix: string) =>
      (await readStatus({ code: 0, stdout: Buffer.from(records), stderr: '' }, prefix)).ignoredWhole;
    expect(await of('! scratch/\0', 'scratch/ws/')).toBe(true);
    expect(await of('! scratch/ws/\0', 'scratch/ws/')).toBe(true);
    expect(await of('! scratch/ws/x.log\0! scratch/ws/build/\0', 'scratch/ws/')).toBe(false);
    expect(await of('! scratc/\0! scratch/w\0', 'scratch/ws/')).toBe(false);
  });

  it('readStatus lets the event loop run between batches, and ends at the stop', async () => {
    const n = STATUS_BATCH * 5;
    const stdout = Buffer.from(
      ['# branch.oid abc', ...Array.from({ length: n }, (_, i) => `? f${i}.txt`)]
        .map((r) => `${r}\0`)
        .join(''),
    );
    let turns = 0;
    const tick = setInterval(() => turns++, 0);
    const read = await readStatus({ code: 0, stdout, stderr: '' }, '');
    clearInterval(tick);
    expect(read.entries.size).toBe(n);
    expect(read.head).toBe('abc');
    expect(turns).toBeGreaterThan(0);
    const stop = new AbortController();
    setImmediate(() => stop.abort(new Error('stopped')));
    await expect(readStatus({ code: 0, stdout, stderr: '' }, '', stop.signal)).rejects.toThrow('stopped');
  });
});
