// Pure: where a link in the worktree should lead once it has been followed to its real place.
import { describe, expect, it } from 'vitest';
import { intoWorktree } from '../../../src/changes/worktree.js';

describe('intoWorktree: a link that leads into your work tree leads into the worktree instead', () => {
  it.each([
    ['/home/u/repo/src', '/tmp/wt/repo/src'],
    ['/home/u/repo', '/tmp/wt/repo'],
    ['/home/u/repo/a/b/c.txt', '/tmp/wt/repo/a/b/c.txt'],
  ])('%s -> %s', (real, into) => {
    expect(intoWorktree(real, '/home/u/repo', '/tmp/wt/repo')).toBe(into);
  });

  it.each(['/home/u/repox/src', '/home/u', '/etc/passwd', '/tmp/wt/repo/src'])(
    '%s is outside your work tree: kept',
    (real) => {
      expect(intoWorktree(real, '/home/u/repo', '/tmp/wt/repo')).toBeUndefined();
    },
  );
});
