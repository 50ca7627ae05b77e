// Reads the config files from disk before anything is spawned; the only file I/O of the config module.
// Synchronous: two small files, read before anything else can happen (no thread pool round trips, and
// node:fs/promises, ~2 ms to load, stays unloaded). Read within bounds (files/untrusted.ts): a FIFO, a
// device or a file over 1 MiB is a config error found without blocking.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { RhoError } from '../errors.js';
import { FileRefused, readUntrusted } from '../files/untrusted.js';
import { configProblems, effectiveConfig, FIX_IT, parseConfigText, type CursorConfig } from './cli-config.js';
import { resolveConfigDir, type ConfigDirSource } from './paths.js';

export interface ConfigFile {
  path: string;
  exists: boolean;
  /** The parsed object, when the file exists and is valid JSON. */
  data: Record<string, unknown> | undefined;
  /** Why the file is unusable (invalid JSON, a key of the wrong type), as the run would report it. */
  problem: RhoError | undefined;
}

export interface LoadedConfig {
  configDir: string;
  configDirSource: ConfigDirSource;
  /** Why the config dir is unusable (it is a file, say). */
  dirProblem: RhoError | undefined;
  user: ConfigFile;
  project: ConfigFile;
  effective: CursorConfig;
}

// Reads one optional JSON file without throwing: missing is fine, unreadable or invalid is a problem.
function inspectFile(path: string, project: boolean): ConfigFile {
  let text: string;
  try {
    text = readUntrusted(path, 'config').toString('utf8');
  } catch (err) {
    if (err instanceof FileRefused && err.refusal.reason === 'missing') {
      return { path, exists: false, data: undefined, problem: undefined };
    }
    // An OS limit (EMFILE) is its own error; anything else about the file is a config error naming it.
    const problem =
      err instanceof RhoError
        ? err
        : new RhoError(
            'config_invalid',
            err instanceof FileRefused ? err.message : `cannot read ${path}: ${(err as Error).message}`,
          );
    return { path, exists: true, data: undefined, problem };
  }
  try {
    const data = parseConfigText(path, text);
    const why = configProblems(data, project);
    const problem =
      why.length > 0 ? new RhoError('config_invalid', `${path}: ${why.join('; ')}${FIX_IT}`) : undefined;
    return { path, exists: true, data: problem ? undefined : data, problem };
  } catch (err) {
    return { path, exists: true, data: undefined, problem: err as RhoError };
  }
}

const POINT_IT = '; point CURSOR_CONFIG_DIR at a directory or unset it';

// A config dir that exists but is not a directory: Cursor could neither read nor write it.
function dirProblemOf(dir: string, source: ConfigDirSource): RhoError | undefined {
  try {
    if (statSync(dir).isDirectory()) return undefined;
  } catch {
    return undefined;
  }
  const named = source === 'CURSOR_CONFIG_DIR' ? `CURSOR_CONFIG_DIR (${dir})` : dir;
  return new RhoError(
    'config_invalid',
    `${named} is not a directory: Cursor's config dir must be one${source === 'CURSOR_CONFIG_DIR' ? POINT_IT : ''}`,
  );
}

// Reads everything doctor reports, never throwing for a bad file: each problem is kept with its file.
export function inspectConfig(
  env: Record<string, string | undefined>,
  home: string,
  workspace: string,
): LoadedConfig {
  const { dir, source } = resolveConfigDir(env, home, workspace);
  const dirProblem = dirProblemOf(dir, source);
  const user = inspectFile(join(dir, 'cli-config.json'), false);
  const project = inspectFile(join(workspace, '.cursor', 'cli.json'), true);
  return {
    configDir: dir,
    configDirSource: source,
    dirProblem,
    user,
    project,
    effective: effectiveConfig(user.data, project.data),
  };
}

// The first thing that makes the config unusable, in the order Cursor would meet it.
export function firstProblem(c: LoadedConfig): RhoError | undefined {
  return c.dirProblem ?? c.user.problem ?? c.project.problem;
}

/** The config as read, and the problems that were ignored because the agent is not Cursor. */
export interface ReadConfig {
  config: LoadedConfig;
  /** Each problem's message without its advice (fix the file, point CURSOR_CONFIG_DIR elsewhere). */
  ignored: string[];
}

// Loads the user's cli-config.json and the workspace's .cursor/cli.json. For Cursor an unusable one is a
// config error (Cursor would "repair" it, losing what the user wrote). Another agent never reads them: their
// problems are returned to be said as a warning, and the run goes on with Cursor's defaults in their place.
export function loadConfig(
  env: Record<string, string | undefined>,
  home: string,
  workspace: string,
  cursor = true,
): ReadConfig {
  const config = inspectConfig(env, home, workspace);
  const { error, ignored } = configErrorFor(config, cursor);
  if (error) throw error;
  return { config, ignored };
}

// What the config's problems mean for a run of this agent: for Cursor the first is its error; for another
// agent only an OS limit met while reading (EMFILE, the machine's, not the file's) is, and the rest are ignored.
export function configErrorFor(
  config: LoadedConfig,
  cursor: boolean,
): { error: RhoError | undefined; ignored: string[] } {
  const problems = [config.dirProblem, config.user.problem, config.project.problem].filter(
    (p): p is RhoError => p !== undefined,
  );
  if (cursor) return { error: firstProblem(config), ignored: [] };
  const error = problems.find((p) => p.code !== 'config_invalid');
  return { error, ignored: error ? [] : problems.map((p) => withoutAdvice(p.message)) };
}

// The warning for a problem of Cursor's config that a run of another agent ignores.
export function configIgnoredWarning(notCursor: string, why: string): { code: string; message: string } {
  return {
    code: 'cursor-config-ignored',
    message: `the agent is not Cursor (${notCursor}), so Cursor's config is ignored: ${why}`,
  };
}

function withoutAdvice(message: string): string {
  for (const advice of [FIX_IT, POINT_IT])
    if (message.endsWith(advice)) return message.slice(0, -advice.length);
  return message;
}
