import { describe, expect, it } from 'vitest';
import { hiddenCandidates, nestedRepos } from '../../../src/changes/patch.js';

describe('what the patch leaves out, and what it adds whatever the ignore rules say', () => {
  it('a repository of its own: listed whole by git, or named by the .git (folder or file) the ledger found', () => {
    expect(
      nestedRepos(['a.txt', 'sub2/', 'x/y.txt'], ['hidden/r/.git/', 'g/.git', 'G/.GIT/', 'a/.git/x']),
    ).toEqual(['g/', 'hidden/r/', 'sub2/']);
    expect(nestedRepos([], ['.git/', 'ok.txt'])).toEqual([]);
  });

  it('the ledger paths git can hold, outside the repositories left out, folders included', () => {
    expect(
      hiddenCandidates(
        ['hidden.txt', 'hidden/node_modules/', 'r/f.txt', 'r/.git/', 'd/.GIT/x', 'rr/f.txt'],
        ['r/'],
      ),
    ).toEqual(['hidden.txt', 'hidden/node_modules/', 'rr/f.txt']);
  });
});
