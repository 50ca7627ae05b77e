// Where a report path leads, taken before the agent starts and asked again before the report is written.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkedTarget, fdAlias, pinReports, realTarget } from '../../../src/ci/targets.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
// A real folder (tmpdir may itself be a link).
const scratch = (): string => {
  const d = realpathSync(mkdtempSync(join(tmpdir(), 'rho-targets-')));
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

describe('realTarget', () => {
  it('is the real folder and the name, links on the way followed, a link to nothing too', () => {
    const d = scratch();
    mkdirSync(join(d, 'real'));
    writeFileSync(join(d, 'real', 'file.md'), '');
    symlinkSync('real', join(d, 'folder'));
    symlinkSync(join(d, 'real', 'file.md'), join(d, 'link.md'));
    symlinkSync('link.md', join(d, 'chain.md'));
    symlinkSync('real/new.md', join(d, 'dangling.md'));
    symlinkSync('/dev/stdout', join(d, 'out'));
    expect(realTarget(join(d, 'new.md'))).toBe(join(d, 'new.md'));
    expect(realTarget(join(d, 'folder', 'file.md'))).toBe(join(d, 'real', 'file.md'));
    expect(realTarget(join(d, 'folder', 'new.md'))).toBe(join(d, 'real', 'new.md'));
    expect(realTarget(join(d, 'chain.md'))).toBe(join(d, 'real', 'file.md'));
    expect(realTarget(join(d, 'dangling.md'))).toBe(join(d, 'real', 'new.md'));
    expect(realTarget(join(d, 'folder', '..', 'new.md'))).toBe(join(d, 'new.md'));
    // A file descriptor's alias is where it stops: stdout may be a pipe, which has no path.
    expect(realTarget(join(d, 'out'))).toBe('/dev/stdout');
    expect(realTarget('/proc/self/fd/1')).toBe('/proc/self/fd/1');
  });

  it('throws as a write would: a loop, a missing folder', () => {
    const d = scratch();
    symlinkSync('b', join(d, 'a'));
    symlinkSync('a', join(d, 'b'));
    expect(() => realTarget(join(d, 'a'))).toThrow(expect.objectContaining({ code: 'ELOOP' }));
    expect(() => realTarget(join(d, 'missing', 'x'))).toThrow(expect.objectContaining({ code: 'ENOENT' }));
  });
});

describe('checkedTarget', () => {
  it('is where the path leads when nothing changed, or when nothing was pinned (no agent ran)', () => {
    const d = scratch();
    const path = join(d, 'answer.md');
    const pins = pinReports({ outputLastMessage: path, summaryFile: undefined });
    expect(pins).toEqual({ last: { target: path } });
    writeFileSync(path, 'a file the agent wrote: the same place');
    expect(checkedTarget(path, pins.last)).toBe(path);
    expect(checkedTarget(path, undefined)).toBe(path);
  });

  it('refuses a path that leads elsewhere than before the agent started, and says where it leads', () => {
    const d = scratch();
    const path = join(d, 'answer.md');
    const mine = join(d, 'mine.md');
    const victim = join(d, 'victim.txt');
    symlinkSync(mine, path);
    const pins = pinReports({ outputLastMessage: undefined, summaryFile: path });
    expect(pins).toEqual({ summary: { target: mine } });
    rmSync(path);
    symlinkSync(victim, path);
    expect(() => checkedTarget(path, pins.summary)).toThrow(
      `${path} was replaced during the run and now leads to ${victim} (it led to ${mine} when the run started)`,
    );
    rmSync(path);
    const fresh = { target: path };
    symlinkSync(victim, path);
    expect(() => checkedTarget(path, fresh)).toThrow(
      `${path} was replaced during the run and now leads to ${victim}`,
    );
  });

  it('a path that led nowhere before the run (no folder) and leads somewhere now is refused too', () => {
    const d = scratch();
    const path = join(d, 'out', 'answer.md');
    const pins = pinReports({ outputLastMessage: path, summaryFile: undefined });
    expect(pins).toEqual({ last: { target: null } });
    mkdirSync(join(d, 'elsewhere'));
    symlinkSync('elsewhere', join(d, 'out'));
    expect(() => checkedTarget(path, pins.last)).toThrow(
      `${path} was replaced during the run and now leads to ${join(d, 'elsewhere', 'answer.md')}`,
    );
  });
});
