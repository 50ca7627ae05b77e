// Which listed sessions --continue takes up under --worktree: the user's own directory's, and those of earlier
// worktrees of the same workspace (they are gone: only the shape of their path says whose they were).
import { describe, expect, it } from 'vitest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { earlierWorktreeSessions, worktreeSessions } from '../../../src/changes/worktree.js';

const wt = {
  tmp: '/tmp/rho-cursor-worktree-100-aaaa',
  cwd: '/tmp/rho-cursor-worktree-100-aaaa/repo/pkg/web',
  userCwd: '/home/u/repo/pkg/web',
};
const scope = worktreeSessions(wt);

describe('worktreeSessions', () => {
  it('asks the agent for every session, since no one directory holds them', () => {
    expect(scope.ask).toBeUndefined();
  });

  it.each([
    ['the user directory', '/home/u/repo/pkg/web'],
    ['this run’s own worktree', '/tmp/rho-cursor-worktree-100-aaaa/repo/pkg/web'],
    ['an earlier run’s worktree', '/tmp/rho-cursor-worktree-7-XyZ123/repo/pkg/web'],
    ['a kept worktree', '/tmp/rho-cursor-worktree-kept-q1/repo/pkg/web'],
    ['a path written with a trailing slash', '/tmp/rho-cursor-worktree-7-b/repo/pkg/web/'],
  ])('takes %s', (_, cwd) => expect(scope.belongs(cwd)).toBe(true));

  it.each([
    ['another folder of the workspace', '/home/u/repo/pkg'],
    ['the repository root of a worktree', '/tmp/rho-cursor-worktree-7-b/repo'],
    ['a folder below it', '/tmp/rho-cursor-worktree-7-b/repo/pkg/web/src'],
    ['another repository', '/tmp/rho-cursor-worktree-7-b/other/pkg/web'],
    ['a directory not made by a run', '/tmp/my-worktree-7-b/repo/pkg/web'],
    ['a stamp without its random part', '/tmp/rho-cursor-worktree-7-/repo/pkg/web'],
    ['a stamp whose owner is no pid', '/tmp/rho-cursor-worktree-x1-b/repo/pkg/web'],
    ['the same shape in another temporary folder', '/var/tmp/rho-cursor-worktree-7-b/repo/pkg/web'],
    ['the same shape one level deeper', '/tmp/x/rho-cursor-worktree-7-b/repo/pkg/web'],
  ])('leaves %s', (_, cwd) => expect(scope.belongs(cwd)).toBe(false));
});

// `rho-cursor sessions --worktree`: the same scope from the user's directory, which has no worktree of its own.
describe('earlierWorktreeSessions', () => {
  const mine = earlierWorktreeSessions({ root: '/home/u/repo', prefix: 'pkg/web/' }, '/home/u/repo/pkg/web');
  const at = (stamp: string, ...rest: string[]) => join(tmpdir(), `rho-cursor-worktree-${stamp}`, ...rest);

  it('asks for every session, and takes the user directory and its worktrees under the temporary directory', () => {
    expect(mine.ask).toBeUndefined();
    expect(mine.belongs('/home/u/repo/pkg/web')).toBe(true);
    expect(mine.belongs(at('7-b', 'repo', 'pkg', 'web'))).toBe(true);
    expect(mine.belongs(at('kept-q1', 'repo', 'pkg', 'web'))).toBe(true);
  });

  it('leaves another folder, another repository, and the same shape elsewhere', () => {
    expect(mine.belongs(at('7-b', 'repo', 'pkg'))).toBe(false);
    expect(mine.belongs(at('7-b', 'other', 'pkg', 'web'))).toBe(false);
    expect(mine.belongs(join('/elsewhere', 'rho-cursor-worktree-7-b', 'repo', 'pkg', 'web'))).toBe(false);
  });

  it('at the repository root, the worktree root', () => {
    const root = earlierWorktreeSessions({ root: '/home/u/repo', prefix: '' }, '/home/u/repo');
    expect(root.belongs(at('7-b', 'repo'))).toBe(true);
    expect(root.belongs(at('7-b', 'repo', 'pkg'))).toBe(false);
  });
});
