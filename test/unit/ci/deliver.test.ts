// -o's file on disk: replaced atomically when it is a regular file, written in place when it is another name
// for a file descriptor or not a file at all.
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeAtomically } from '../../../src/ci/deliver.js';
import { fdAlias } from '../../../src/ci/targets.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const scratch = (under = tmpdir()): string => {
  const d = mkdtempSync(join(under, 'rho-deliver-'));
  dirs.push(d);
  return d;
};

describe('fdAlias', () => {
  it.each([
    ['/dev/stdout', true],
    ['/dev/stderr', true],
    ['/dev/stdin', true],
    ['/dev/fd/1', true],
    ['/dev/fd/12', true],
    ['/proc/self/fd/2', true],
    ['/proc/1234/fd/1', true],
    ['/proc/thread-self/fd/1', true],
    ['/proc/1234/task/1235/fd/1', true],
    ['/dev/../dev/stdout', true],
    ['/dev/shm/answer.txt', false],
    ['/dev/null', false],
    ['/dev/tty', false],
    ['/dev/fd', false],
    ['/dev/stdout.txt', false],
    ['/proc/self/environ', false],
    ['/proc/self/fd/1/x', false],
    ['dev/stdout', false],
  ])('%s: %s', (path, alias) => {
    expect(fdAlias(path)).toBe(alias);
  });
});

describe('writeAtomically', () => {
  it.skipIf(!existsSync('/dev/shm'))(
    'replaces a regular file under /dev (a tmpfs such as /dev/shm) instead of appending to it',
    async () => {
      // Found by review: every path under /dev or /proc was appended to, /dev/shm/answer.txt too.
      const file = join(scratch('/dev/shm'), 'answer.txt');
      writeFileSync(file, 'an older answer');
      const before = statSync(file).ino;
      await writeAtomically(file, 'the answer');
      expect(readFileSync(file, 'utf8')).toBe('the answer');
      expect(statSync(file).ino).not.toBe(before);
    },
  );

  it('writes in place to another name for a file descriptor: the same file, appended to', async () => {
    const file = join(scratch(), 'stdout.txt');
    writeFileSync(file, 'before\n');
    const fd = openSync(file, 'a');
    try {
      const before = statSync(file).ino;
      await writeAtomically(`/proc/self/fd/${fd}`, 'the answer\n');
      expect(readFileSync(file, 'utf8')).toBe('before\nthe answer\n');
      expect(statSync(file).ino).toBe(before);
    } finally {
      closeSync(fd);
    }
  });
});
