// Finds the agent executable before spawning, so "not installed" is a clear exit 127, not a stream error.
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { RhoError } from '../errors.js';

const INSTALL_HINT =
  'install it with `curl https://cursor.com/install -fsS | bash`, or pass --agent <path> / set RHO_CURSOR_AGENT';

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
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const path = join(dir, command);
    if (executable(path)) return path;
  }
  throw new RhoError('agent_not_found', `${command} was not found on PATH`, { hint: INSTALL_HINT });
}
