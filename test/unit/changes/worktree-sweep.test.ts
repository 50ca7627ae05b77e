// The worktrees a SIGKILLed run left behind: removed by the next --worktree run once their owner is gone,
// with git's record of them; a live run's and a kept one are never touched.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KEPT_MARK, sweepStaleWorktrees, WORKTREE_PREFIX } from '../../../src/changes/worktree.js';
import { tempDir } from '../../helpers/cli.js';
import { git, userRepo } from '../../helpers/repo.js';

// A pid that was just used and is gone now.
function deadPid(): number {
  const r = spawnSync('sh', ['-c', 'echo $$'], { encoding: 'utf8' });
  return Number(r.stdout.trim());
}

// A worktree of the repository in `<root>/<tmpName>/repo`, as makeWorktree lays one out.
function worktreeIn(repo: string, root: string, tmpName: string): string {
  const tmp = join(root, tmpName);
  mkdirSync(tmp);
  git(repo, 'worktree', 'add', '--quiet', '--detach', join(tmp, 'repo'), 'HEAD');
  return tmp;
}

const listed = (repo: string): string => git(repo, 'worktree', 'list', '--porcelain');

describe('sweepStaleWorktrees', () => {
  it("removes a dead run's worktree and git's record of it; a live run's and a kept one stay", () => {
    const repo = userRepo();
    const root = tempDir('rho-sweep-');
    const dead = worktreeIn(repo, root, `${WORKTREE_PREFIX}${deadPid()}-a`);
    const live = worktreeIn(repo, root, `${WORKTREE_PREFIX}${process.ppid}-b`);
    const kept = worktreeIn(repo, root, `${WORKTREE_PREFIX}kept-c`);
    const mine = worktreeIn(repo, root, `${WORKTREE_PREFIX}${process.pid}-d`);
    expect(listed(repo)).toContain(dead);

    expect(sweepStaleWorktrees(root)).toEqual([dead]);

    expect(existsSync(dead)).toBe(false);
    expect(listed(repo)).not.toContain(dead);
    for (const tmp of [live, kept, mine]) {
      expect(existsSync(join(tmp, 'repo', 'README.md'))).toBe(true);
      expect(listed(repo)).toContain(tmp);
    }
  });

  it("leaves a dead run's worktree that run kept (its patch could not carry everything)", () => {
    const root = tempDir('rho-sweep-');
    const tmp = join(root, `${WORKTREE_PREFIX}${deadPid()}-k`);
    mkdirSync(join(tmp, 'repo'), { recursive: true });
    writeFileSync(join(tmp, KEPT_MARK), '');
    expect(sweepStaleWorktrees(root)).toEqual([]);
    expect(existsSync(join(tmp, 'repo'))).toBe(true);
  });

  it('leaves what is not a worktree directory of ours, and a root it cannot read', () => {
    const root = tempDir('rho-sweep-');
    mkdirSync(join(root, 'rho-cursor-other-1-x'));
    mkdirSync(join(root, `${WORKTREE_PREFIX}notapid-x`));
    expect(sweepStaleWorktrees(root)).toEqual([]);
    expect(existsSync(join(root, `${WORKTREE_PREFIX}notapid-x`))).toBe(true);
    expect(sweepStaleWorktrees(join(root, 'missing'))).toEqual([]);
  });

  it("removes a dead run's directory even when its worktree was never made (half made: no .git in it)", () => {
    const root = tempDir('rho-sweep-');
    const tmp = join(root, `${WORKTREE_PREFIX}${deadPid()}-e`);
    mkdirSync(join(tmp, 'repo'), { recursive: true });
    expect(sweepStaleWorktrees(root)).toEqual([tmp]);
    expect(existsSync(tmp)).toBe(false);
  });
});
