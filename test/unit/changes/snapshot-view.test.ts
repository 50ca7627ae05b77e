import { describe, expect, it } from 'vitest';
import {
  ignoreScopes,
  newIgnoredEntries,
  parseFlagged,
  parseIndexList,
  parseNameStatus,
  pinnedConfig,
  unopened,
} from '../../../src/changes/snapshot.js';

describe('parseFlagged', () => {
  it('assume-unchanged (lower case) and skip-worktree (S) entries under the workspace', () => {
    const out = 'H src/a\0h src/b\0S src/c\0s src/d\0H other\0h other/e\0';
    expect(parseFlagged(out, 'src/')).toEqual(['b', 'c', 'd']);
    expect(parseFlagged(out, '')).toEqual(['src/b', 'src/c', 'src/d', 'other/e']);
  });
});

describe('parseIndexList', () => {
  it('with -s: the flagged paths and the submodules (mode 160000) under the workspace, each once', () => {
    const id = 'a'.repeat(40);
    const out = [
      `H 100644 ${id} 0\tsrc/a`,
      `h 100644 ${id} 0\tsrc/b c`,
      `H 160000 ${id} 0\tsrc/vendor/lib`,
      `H 160000 ${id} 1\tsrc/both`,
      `H 160000 ${id} 2\tsrc/both`,
      `S 160000 ${id} 0\tother/lib`,
      '',
    ].join('\0');
    expect(parseIndexList(out, 'src/')).toEqual({
      flagged: ['b c'],
      gitlinks: ['vendor/lib', 'both'],
      inSubmodule: false,
    });
    expect(parseIndexList(out, '').flagged).toEqual(['src/b c', 'other/lib']);
    // A workspace inside a submodule's folder (its root above it: one not checked out).
    expect(parseIndexList(out, 'other/lib/deep/').inSubmodule).toBe(true);
    expect(parseIndexList(out, 'other/library/').inSubmodule).toBe(false);
  });
});

describe('pinnedConfig', () => {
  it('strict stat checks always; case, line ends and links as the snapshot saw them; the excludes copy', () => {
    const pins = new Map(pinnedConfig(new Map([['core.ignorecase', 'true']]), '/private/exclude'));
    expect(pins.get('core.checkStat')).toBe('default');
    expect(pins.get('core.trustctime')).toBe('true');
    expect(pins.get('core.fileMode')).toBe('true');
    expect(pins.get('core.ignoreCase')).toBe('true');
    expect(pins.get('core.autocrlf')).toBe('false');
    expect(pins.get('core.excludesFile')).toBe('/private/exclude');
    expect(new Map(pinnedConfig(new Map(), '')).get('core.ignoreCase')).toBe('false');
  });
});

describe('ignoreScopes', () => {
  it('the folder of each changed or new .gitignore; everything for info/exclude', () => {
    expect(
      ignoreScopes(['a.txt', 'src/.gitignore'], ['tools/.gitignore', 'x.log'], '.git/info/exclude'),
    ).toEqual(['src', 'tools']);
    expect(ignoreScopes(['.gitignore'], [], '.git/info/exclude')).toEqual(['']);
    expect(ignoreScopes(['.git/info/exclude'], [], '.git/info/exclude')).toEqual(['']);
    expect(ignoreScopes(['a.gitignore'], [], '.git/info/exclude')).toEqual([]);
  });
});

describe('newIgnoredEntries', () => {
  it('ignored now, not before nor inside a folder ignored before, under a scope', () => {
    const before = new Set(['ignored.log', 'node_modules/']);
    const now = new Set([
      'ignored.log',
      'node_modules/',
      'node_modules/x',
      'src/p.sh',
      'lib/q.sh',
      'src/new/',
    ]);
    expect(newIgnoredEntries(before, now, ['src'])).toEqual(['src/p.sh', 'src/new/']);
    expect(newIgnoredEntries(before, now, [''])).toEqual(['src/p.sh', 'lib/q.sh', 'src/new/']);
    expect(newIgnoredEntries(before, now, [])).toEqual([]);
  });
});

describe('parseNameStatus', () => {
  it('each path under the workspace, and whether it existed on the old side', () => {
    const out = 'M\0src/a\0A\0src/b\0D\0other\0';
    expect([...parseNameStatus(out, 'src/')]).toEqual([
      ['a', true],
      ['b', false],
    ]);
  });

  it('a listing cut after a status letter (read up to its bound) names no empty path', () => {
    expect([...parseNameStatus('A\0a\0M\0', '')]).toEqual([['a', false]]);
  });
});

describe('unopened: the folders git could not open', () => {
  it('permission denied is unreadable; any other reason, or a warning git cut before its quote, unmeasured (found by review)', () => {
    const cut = `warning: could not open directory '${'d'.repeat(4000)}`;
    const stderr = [
      "warning: could not open directory 'locked/': Permission denied",
      "warning: could not open directory 'odd/': Input/output error",
      cut,
    ].join('\n');
    expect(unopened(stderr)).toEqual({
      unreadable: ['locked/'],
      unmeasured: ['odd/ (Input/output error)', `${'d'.repeat(4000)} (its name cut by git: a path too long)`],
    });
  });
});
