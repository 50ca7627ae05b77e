// Finds the agent executable before spawning, so "not installed" is a clear exit 127, not a stream error.
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { RhoError } from '../errors.js';

const INSTALL_HINT =
  'install it with `curl https://cursor.com/install -fsS | bash`, or pass --agent <path> / set RHO_CURSOR_AGENT';

/** The name newer Cursor installs give the same binary; found only to say so, never run unasked. */
export const NEWER_NAME = 'agent';

// Is this path an executable regular file?
function executable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

// The first executable of that name on PATH, or undefined.
export function findOnPath(command: string, env: Record<string, string | undefined>): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const path = join(dir, command);
    if (executable(path)) return path;
  }
  return undefined;
}

// Where `cursor-agent` is missing but Cursor's newer name is on PATH: where it is and how to pass it.
export function newerNameHint(command: string, env: Record<string, string | undefined>): string | undefined {
  if (command !== 'cursor-agent') return undefined;
  const found = findOnPath(NEWER_NAME, env);
  return found
    ? `Cursor's newer installs name it \`agent\`: ${found} is on PATH; pass --agent ${found} or set RHO_CURSOR_AGENT=${found} to use it`
    : undefined;
}

// Resolves a command name on PATH, or checks an explicit path; throws agent_not_found with an install hint.
export function resolveAgent(command: string, env: Record<string, string | undefined>, cwd: string): string {
  if (command.includes('/')) {
    const path = isAbsolute(command) ? command : resolve(cwd, command);
    if (executable(path)) return path;
    let why = 'does not exist';
    try {
      why = statSync(path).isFile() ? 'is not executable' : 'is not a file';
    } catch {
      // keep "does not exist"
    }
    throw new RhoError('agent_not_found', `agent ${path} ${why}`, { hint: INSTALL_HINT });
  }
  const found = findOnPath(command, env);
  if (found) return found;
  throw new RhoError('agent_not_found', `${command} was not found on PATH`, {
    hint: newerNameHint(command, env) ?? INSTALL_HINT,
  });
}
