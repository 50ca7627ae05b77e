import { describe, expect, it } from 'vitest';
import { earlyReports, optionFromArgv } from '../../../src/ci/early.js';
import { outputPathErrors, type PathKind } from '../../../src/ci/paths.js';
import { resultBeforeRun } from '../../../src/render/early.js';
import { RhoError } from '../../../src/errors.js';

const FS: Record<string, PathKind> = {
  '/d': 'directory',
  '/d/f': 'other',
  '/d/file': 'other',
  '/': 'directory',
};
const kind = (p: string): PathKind => FS[p] ?? (p.startsWith('/d/file/') ? 'not-a-directory' : 'missing');

describe('outputPathErrors', () => {
  it.each([
    ['/d/f', []],
    ['/d/new', []],
    ['/d', ['-o names a directory, not a file: /d']],
    ['/x/new', ['-o cannot be written: no such directory: /x']],
    ['/d/file/new', ['-o cannot be written: not a directory: /d/file']],
  ])('%s -> %j', (path, messages) => {
    const errors = outputPathErrors([['-o', path]], kind);
    expect(errors.map((e) => e.message)).toEqual(messages);
    for (const e of errors) expect(e.exitCode).toBe(2);
  });

  it('skips paths not given', () => {
    expect(
      outputPathErrors(
        [
          ['-o', undefined],
          ['x', ''],
        ],
        kind,
      ),
    ).toEqual([]);
  });
});

describe('earlyReports', () => {
  const result = resultBeforeRun(new RhoError('usage', 'bad'), 5);
  const gh = { GITHUB_ACTIONS: 'true', GITHUB_OUTPUT: '/o', GITHUB_STEP_SUMMARY: '/s.md' };
  it.each([
    [['run', 'x'], gh, ['/o', '/s.md']],
    [['run', '--no-summary', 'x'], gh, ['/o']],
    [['run', '--', '--no-summary'], gh, ['/o', '/s.md']],
    [['run', '--summary-file', 'mine.md', 'x'], gh, ['/o', '/w/mine.md']],
    [['run', '--summary-file=mine.md', 'x'], {}, ['/w/mine.md']],
    [['run', 'x'], {}, []],
    [['doctor', '--bogus'], gh, ['/o']],
  ])('%j %j -> %j', (argv, env, paths) => {
    expect(earlyReports(argv, env, '/w', result).map((r) => r.path)).toEqual(paths);
  });

  it('optionFromArgv takes the last value before --', () => {
    expect(optionFromArgv(['--fence', 'a', '--fence=b', '--', '--fence', 'c'], '--fence')).toBe('b');
  });

  it('optionFromArgv takes the last value under any of its names', () => {
    expect(optionFromArgv(['-C', 'a', '--cwd', 'b'], ['--cwd', '-C'])).toBe('b');
    expect(optionFromArgv(['--cwd=a', '-C', 'b'], ['--cwd', '-C'])).toBe('b');
    expect(optionFromArgv(['-C', 'a', '--cwd=b', '--', '-C', 'c'], ['--cwd', '-C'])).toBe('b');
  });
});
