import { describe, expect, it } from 'vitest';
import { resolveConfigDir } from '../../../src/config/paths.js';

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
  ])('uses $name', ({ env, dir, source }) => {
    expect(resolveConfigDir(env, '/home/dev')).toEqual({ dir, source });
  });
});
