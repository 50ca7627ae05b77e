import { describe, expect, it } from 'vitest';
import { describeSource, resolveConfigDir } from '../../../src/config/paths.js';

describe('resolveConfigDir', () => {
  it.each<{ name: string; env: Record<string, string | undefined>; dir: string; source: string }>([
    {
      name: 'CURSOR_CONFIG_DIR wins over XDG_CONFIG_HOME',
      env: { CURSOR_CONFIG_DIR: '/etc/cursor-ci', XDG_CONFIG_HOME: '/home/dev/.config' },
      dir: '/etc/cursor-ci',
      source: 'CURSOR_CONFIG_DIR',
    },
    {
      name: 'XDG_CONFIG_HOME/cursor when CURSOR_CONFIG_DIR is unset',
      env: { XDG_CONFIG_HOME: '/home/dev/.config' },
      dir: '/home/dev/.config/cursor',
      source: 'XDG_CONFIG_HOME',
    },
    {
      name: 'XDG_CONFIG_HOME/cursor when CURSOR_CONFIG_DIR is empty',
      env: { CURSOR_CONFIG_DIR: '', XDG_CONFIG_HOME: '/home/dev/.config' },
      dir: '/home/dev/.config/cursor',
      source: 'XDG_CONFIG_HOME',
    },
    { name: '~/.cursor when neither is set', env: {}, dir: '/home/dev/.cursor', source: 'home' },
    {
      name: '~/.cursor when both are empty',
      env: { CURSOR_CONFIG_DIR: '', XDG_CONFIG_HOME: '' },
      dir: '/home/dev/.cursor',
      source: 'home',
    },
    {
      name: '~/.cursor when both are undefined',
      env: { CURSOR_CONFIG_DIR: undefined, XDG_CONFIG_HOME: undefined },
      dir: '/home/dev/.cursor',
      source: 'home',
    },
    {
      name: '~/.cursor when XDG_CONFIG_HOME is relative (the XDG spec says to ignore it)',
      env: { XDG_CONFIG_HOME: '.config' },
      dir: '/home/dev/.cursor',
      source: 'home',
    },
    {
      name: 'a relative CURSOR_CONFIG_DIR from the workspace, where the agent resolves it',
      env: { CURSOR_CONFIG_DIR: 'ci/cursor' },
      dir: '/work/project/ci/cursor',
      source: 'CURSOR_CONFIG_DIR',
    },
  ])('uses $name', ({ env, dir, source }) => {
    expect(resolveConfigDir(env, '/home/dev', '/work/project')).toEqual({ dir, source });
  });

  it('says a relative XDG_CONFIG_HOME was ignored', () => {
    expect(describeSource('home', { XDG_CONFIG_HOME: '.config' })).toContain("'.config' ignored");
    expect(describeSource('home', {})).toContain('unset');
  });
});
