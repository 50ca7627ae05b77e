import { describe, expect, it } from 'vitest';
import { DIFF_ARGS, NEUTRAL_CONFIG, safeGitEnv } from '../../../src/changes/git-env.js';
import { excludesPath, filterOverrides, parseStatusV2 } from '../../../src/changes/git.js';
import { frozenConfig } from '../../../src/changes/worktree.js';

// The settings an environment passes, in order.
const pairs = (env: NodeJS.ProcessEnv): [string, string][] =>
  Array.from({ length: Number(env.GIT_CONFIG_COUNT) }, (_, i) => [
    env[`GIT_CONFIG_KEY_${i}`]!,
    env[`GIT_CONFIG_VALUE_${i}`]!,
  ]);

describe('safeGitEnv', () => {
  it("passes the neutral settings after the user's own, then the caller's, and runs no pager or external diff", () => {
    const env = safeGitEnv(
      {
        GIT_CONFIG_COUNT: '1',
        GIT_CONFIG_KEY_0: 'user.name',
        GIT_CONFIG_VALUE_0: 'u',
        GIT_EXTERNAL_DIFF: 'evil',
      },
      { config: [['filter.x=y.clean', '']], vars: { GIT_INDEX_FILE: '/i', GIT_DIR: undefined } },
    );
    expect(pairs(env)).toEqual([['user.name', 'u'], ...NEUTRAL_CONFIG, ['filter.x=y.clean', '']]);
    expect(pairs(env)).toContainEqual(['core.hooksPath', '/dev/null']);
    expect(pairs(env)).toContainEqual(['core.fsmonitor', 'false']);
    expect(env).toMatchObject({ GIT_PAGER: 'cat', GIT_OPTIONAL_LOCKS: '0', GIT_INDEX_FILE: '/i' });
    expect(env.GIT_EXTERNAL_DIFF).toBeUndefined();
    expect('GIT_DIR' in env).toBe(false);
  });

  it('a bad GIT_CONFIG_COUNT counts as none', () => {
    expect(safeGitEnv({ GIT_CONFIG_COUNT: 'x' }).GIT_CONFIG_KEY_0).toBe(NEUTRAL_CONFIG[0]![0]);
  });

  it('every diff has explicit prefixes, paths from the root and no external program', () => {
    expect(DIFF_ARGS).toEqual(
      expect.arrayContaining([
        '--src-prefix=a/',
        '--dst-prefix=b/',
        '--no-relative',
        '--no-ext-diff',
        '--no-textconv',
      ]),
    );
  });
});

describe('filterOverrides', () => {
  it('empties each filter command that is new or changed, its key kept whole (a name holding "=")', () => {
    const before = new Map([['filter.lfs.clean', 'git-lfs clean -- %f']]);
    const now = new Map([
      ['filter.lfs.clean', 'git-lfs clean -- %f'],
      ['filter.x=y.clean', 'evil'],
    ]);
    expect(filterOverrides(before, now)).toEqual([['filter.x=y.clean', '']]);
  });
});

describe('excludesPath', () => {
  it.each([
    [{ 'core.excludesfile': '~/ign' }, { HOME: '/h' }, '/h/ign'],
    [{ 'core.excludesfile': '/abs' }, { HOME: '/h' }, '/abs'],
    [{}, { HOME: '/h', XDG_CONFIG_HOME: '/x' }, '/x/git/ignore'],
    [{}, { HOME: '/h' }, '/h/.config/git/ignore'],
    [{}, {}, ''],
  ])('%j %j: %s', (values, env, want) => {
    expect(excludesPath(new Map(Object.entries(values)), env)).toBe(want);
  });
});

describe('parseStatusV2: submodules', () => {
  it('a submodule entry carries its state', () => {
    const oid = 'a'.repeat(40);
    expect(parseStatusV2(`1 .M SCMU 160000 160000 160000 ${oid} ${oid} vendor/lib\0`).entries).toEqual([
      { xy: '.M', path: 'vendor/lib', sub: 'SCMU' },
    ]);
  });
});

describe('frozenConfig', () => {
  it('keeps each setting as listed, a bare key as true, and leaves out includes', () => {
    const listing = Buffer.from(
      'core.autocrlf\ninput\0include.path\n/x\0includeif.gitdir:/a/.path\n/y\0core.bare\0',
    );
    expect(frozenConfig(listing)).toEqual([
      ['core.autocrlf', 'input'],
      ['core.bare', 'true'],
    ]);
  });
});
