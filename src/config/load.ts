// Reads the config files from disk before anything is spawned; the only file I/O of the config module.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RhoError } from '../errors.js';
import { effectiveConfig, parseConfigText, type CursorConfig } from './cli-config.js';
import { resolveConfigDir, type ConfigDirSource } from './paths.js';

export interface ConfigFile {
  path: string;
  exists: boolean;
  data: Record<string, unknown> | undefined;
}

export interface LoadedConfig {
  configDir: string;
  configDirSource: ConfigDirSource;
  user: ConfigFile;
  project: ConfigFile;
  effective: CursorConfig;
}

// Reads one optional JSON file: missing is fine, unreadable or invalid is a config error.
async function readConfigFile(path: string): Promise<ConfigFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { path, exists: false, data: undefined };
    throw new RhoError('config_invalid', `cannot read ${path}: ${(err as Error).message}`);
  }
  return { path, exists: true, data: parseConfigText(path, text) };
}

// Loads the user's cli-config.json and the workspace's .cursor/cli.json.
export async function loadConfig(
  env: Record<string, string | undefined>,
  home: string,
  workspace: string,
): Promise<LoadedConfig> {
  const { dir, source } = resolveConfigDir(env, home);
  const [user, project] = await Promise.all([
    readConfigFile(join(dir, 'cli-config.json')),
    readConfigFile(join(workspace, '.cursor', 'cli.json')),
  ]);
  return {
    configDir: dir,
    configDirSource: source,
    user,
    project,
    effective: effectiveConfig(user.data, project.data),
  };
}
