// Where Cursor keeps its config: $CURSOR_CONFIG_DIR, else $XDG_CONFIG_HOME/cursor, else ~/.cursor.
import { isAbsolute, join, resolve } from 'node:path';

export type ConfigDirSource = 'CURSOR_CONFIG_DIR' | 'XDG_CONFIG_HOME' | 'home';

export interface ConfigDir {
  dir: string;
  source: ConfigDirSource;
}

// Resolves the config dir from an environment and a home directory; empty variables count as unset, and a
// relative XDG_CONFIG_HOME is ignored as the XDG spec says. A relative CURSOR_CONFIG_DIR is taken from the
// workspace, where the agent runs and would resolve it.
export function resolveConfigDir(
  env: Record<string, string | undefined>,
  home: string,
  workspace = '/',
): ConfigDir {
  const explicit = env.CURSOR_CONFIG_DIR;
  if (explicit) return { dir: resolve(workspace, explicit), source: 'CURSOR_CONFIG_DIR' };
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg && isAbsolute(xdg)) return { dir: join(xdg, 'cursor'), source: 'XDG_CONFIG_HOME' };
  return { dir: join(home, '.cursor'), source: 'home' };
}

// How the dir was found, in words, for doctor and error messages.
export function describeSource(source: ConfigDirSource, env: Record<string, string | undefined>): string {
  if (source === 'CURSOR_CONFIG_DIR') return 'from $CURSOR_CONFIG_DIR';
  if (source === 'XDG_CONFIG_HOME') return 'from $XDG_CONFIG_HOME/cursor, $CURSOR_CONFIG_DIR unset';
  const xdg = env.XDG_CONFIG_HOME;
  return xdg && !isAbsolute(xdg)
    ? `~/.cursor: $CURSOR_CONFIG_DIR unset, $XDG_CONFIG_HOME '${xdg}' ignored (not an absolute path)`
    : '~/.cursor: $CURSOR_CONFIG_DIR and $XDG_CONFIG_HOME unset';
}
