// Where Cursor keeps its config: $CURSOR_CONFIG_DIR, else $XDG_CONFIG_HOME/cursor, else ~/.cursor.
import { join } from 'node:path';

export type ConfigDirSource = 'CURSOR_CONFIG_DIR' | 'XDG_CONFIG_HOME' | 'home';

export interface ConfigDir {
  dir: string;
  source: ConfigDirSource;
}

// Resolves the config dir from an environment and a home directory; empty variables count as unset.
export function resolveConfigDir(env: Record<string, string | undefined>, home: string): ConfigDir {
  const explicit = env.CURSOR_CONFIG_DIR;
  if (explicit) return { dir: explicit, source: 'CURSOR_CONFIG_DIR' };
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg) return { dir: join(xdg, 'cursor'), source: 'XDG_CONFIG_HOME' };
  return { dir: join(home, '.cursor'), source: 'home' };
}
