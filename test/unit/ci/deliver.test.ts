// -o's file on disk: replaced atomically when it is a regular file, written in place when it is another name
// for a file descriptor or not a file at all.
import {
  chmodSync,
  closeSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempName, writeAtomically } from '../../../src/ci/deliver.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const scratch = (under = tmpdir()): string => {
  const d = mkdtempSync(join(under, 'rho-deliver-'));
  dirs.push(d);
  return d;
};

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

  it('follows no link planted at the temporary name of old (.answer.txt.rho-<pid>.tmp): the victim keeps its text and mode', async () => {
    // Found by review: the name was predictable and written with a plain writeFile, then chmod-ed: a link
    // there sent the answer, and the file's mode, to its target.
    const dir = scratch();
    const file = join(dir, 'answer.txt');
    const victim = join(dir, 'victim.txt');
    writeFileSync(file, 'an older answer');
    chmodSync(file, 0o600);
    writeFileSync(victim, 'mine');
    chmodSync(victim, 0o644);
    symlinkSync(victim, join(dir, `.answer.txt.rho-${process.pid}.tmp`));
    await writeAtomically(file, 'the answer');
    expect(readFileSync(file, 'utf8')).toBe('the answer');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(victim, 'utf8')).toBe('mine');
    expect(statSync(victim).mode & 0o777).toBe(0o644);
  });

  it('makes its temporary file under a new name each time, and leaves none behind', async () => {
    const dir = scratch();
    const file = join(dir, 'answer.txt');
    const names = new Set<string>();
    const seen = (target: string): Promise<string> => tempName(target).then((n) => (names.add(n), n));
    for (let i = 0; i < 3; i++) await writeAtomically(file, `answer ${i}`, { tempName: seen });
    expect(names.size).toBe(3);
    for (const n of names) expect(n).toMatch(/\/\.answer\.txt\.rho-[0-9a-f]{16}\.tmp$/);
    expect(readdirSync(dir)).toEqual(['answer.txt']);
  });

  it('never writes through something already at its temporary name, and leaves it there', async () => {
    const dir = scratch();
    const file = join(dir, 'answer.txt');
    const victim = join(dir, 'victim.txt');
    const planted = join(dir, '.planted.tmp');
    writeFileSync(victim, 'mine');
    symlinkSync(victim, planted);
    await expect(writeAtomically(file, 'the answer', { tempName: async () => planted })).rejects.toThrow(
      /EEXIST/,
    );
    expect(readFileSync(victim, 'utf8')).toBe('mine');
    expect(lstatSync(planted).isSymbolicLink()).toBe(true);
    expect(existsSync(file)).toBe(false);
  });

  it("keeps an existing file's mode and gives a new one 0666 less the umask", async () => {
    const dir = scratch();
    const kept = join(dir, 'kept.txt');
    writeFileSync(kept, 'old');
    chmodSync(kept, 0o640);
    await writeAtomically(kept, 'new');
    expect(statSync(kept).mode & 0o7777).toBe(0o640);
    const made = join(dir, 'made.txt');
    await writeAtomically(made, 'new');
    const umask = process.umask();
    expect(statSync(made).mode & 0o7777).toBe(0o666 & ~umask);
  });

  it('follows a symlink: its target is replaced and the link kept, a link to nothing gets its target made', async () => {
    const dir = scratch();
    const mine = join(dir, 'mine.md');
    writeFileSync(mine, 'an older answer');
    symlinkSync('mine.md', join(dir, 'answer.md'));
    symlinkSync('new.md', join(dir, 'dangling.md'));
    await writeAtomically(join(dir, 'answer.md'), 'the answer');
    await writeAtomically(join(dir, 'dangling.md'), 'a new answer');
    expect(readFileSync(mine, 'utf8')).toBe('the answer');
    expect(readFileSync(join(dir, 'new.md'), 'utf8')).toBe('a new answer');
    expect(lstatSync(join(dir, 'answer.md')).isSymbolicLink()).toBe(true);
    expect(lstatSync(join(dir, 'dangling.md')).isSymbolicLink()).toBe(true);
  });
});
