import { describe, expect, it } from 'vitest';
import {
  batchContents,
  hiddenCandidates,
  missingChanges,
  nestedRepos,
  newSides,
  outsideTheTree,
} from '../../../src/changes/patch.js';

describe('what the patch leaves out, and what it adds whatever the ignore rules say', () => {
  it('a repository of its own: listed whole by git, or named by the .git (folder or file) the ledger found', () => {
    expect(
      nestedRepos(['a.txt', 'sub2/', 'x/y.txt'], ['hidden/r/.git/', 'g/.git', 'G/.GIT/', 'a/.git/x']),
    ).toEqual(['g/', 'hidden/r/', 'sub2/']);
    expect(nestedRepos([], ['.git/', 'ok.txt'])).toEqual([]);
  });

  it("the worktree's own git dir (its hooks, its config), and what is outside the worktree, are no part of the tree", () => {
    expect(
      ['.git/hooks/pre-commit', 'sub/../.git/config', '../x', 'src/.git/x', '.github/w.yml'].map(
        outsideTheTree,
      ),
    ).toEqual([true, true, true, false, false]);
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

describe('missingChanges: every change the ledger lists that the patch does not carry (found by review)', () => {
  it('of any kind: added, modified (a CRLF rewrite git normalised away), deleted; not what the patch holds', () => {
    const carried = new Set(['.gitattributes', 'b.txt', 'gone.txt', 'nm/node_modules/a.js']);
    expect(
      missingChanges(
        [
          '.gitattributes',
          'a.txt',
          'b.txt',
          'gone.txt',
          'kept-gone.txt',
          'nm/node_modules/',
          'x/node_modules/',
        ],
        carried,
        [],
      ),
    ).toEqual(['a.txt', 'kept-gone.txt', 'x/node_modules/']);
  });

  it("not the worktree's git dir, nor what a folder left out whole (a repository, a submodule's) holds, itself included", () => {
    expect(
      missingChanges(
        [
          '.git/hooks/pre-commit',
          'sub2/.git/',
          'sub2/f.txt',
          'vendor/lib',
          'vendor/lib/impl.c',
          'vendor/libx',
        ],
        new Set(),
        ['sub2/', 'vendor/lib/'],
      ),
    ).toEqual(['vendor/libx']);
  });
});

describe("reading git's answers for the key's masking", () => {
  const A = 'a'.repeat(40);
  const B = 'b'.repeat(40);
  const Z = '0'.repeat(40);

  it("newSides: each added or changed file's mode, blob and path as bytes; deletions and submodules left out", () => {
    const raw = Buffer.concat([
      Buffer.from(`:000000 100644 ${Z} ${A} A\0new \xff.txt\0`, 'latin1'),
      Buffer.from(`:100644 000000 ${A} ${Z} D\0gone.txt\0`),
      Buffer.from(`:160000 160000 ${A} ${B} M\0vendor/lib\0`),
      Buffer.from(`:100644 120000 ${A} ${B} T\0link\0`),
    ]);
    expect(newSides(raw)).toEqual([
      { mode: '100644', id: A, path: Buffer.from('new \xff.txt', 'latin1') },
      { mode: '120000', id: B, path: Buffer.from('link') },
    ]);
  });

  it('batchContents: each content in the order asked, a missing one undefined, newlines inside kept', () => {
    const out = Buffer.from(`${A} blob 4\na\nb\n\n${B} missing\n${Z} blob 0\n\n`);
    expect(batchContents(out)).toEqual([Buffer.from('a\nb\n'), undefined, Buffer.alloc(0)]);
  });
});
