// Pure reading of Cursor's cli-config.json and the workspace's .cursor/cli.json, leniently typed.
import { RhoError } from '../errors.js';
import { jsonFault } from './json-syntax.js';

export const APPROVAL_MODES = ['allowlist', 'auto-review', 'unrestricted'] as const;

/** The end of a config error's message: the advice, said only where the file is the agent's (Cursor's). */
export const FIX_IT = '; fix it, nothing was changed';

export interface Permissions {
  allow: string[];
  deny: string[];
}

export interface CursorConfig {
  /** The raw approvalMode string, or 'unrestricted' (Cursor's default) when absent. */
  approvalMode: string;
  approvalModeSet: boolean;
  permissions: Permissions;
}

// Keeps the strings of a rule list and drops anything else.
function rules(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((r): r is string => typeof r === 'string') : [];
}

// Parses a config file's text; invalid JSON is a config error that names the file and where it goes wrong,
// never quoting it (V8's message does: the file may be a key, or a link to one).
export function parseConfigText(path: string, text: string): Record<string, unknown> {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    const f = jsonFault(text);
    const why = f ? ` (line ${f.line}, column ${f.column}: ${f.what})` : '';
    throw new RhoError('config_invalid', `${path} is not valid JSON${why}${FIX_IT}`);
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new RhoError('config_invalid', `${path} must hold a JSON object${FIX_IT}`);
  }
  return data as Record<string, unknown>;
}

// What makes a parsed config unusable: Cursor would "repair" such keys by rewriting the file, losing what the
// user wrote, so the run stops first. The project file holds permissions only; its other keys are not read.
export function configProblems(data: Record<string, unknown>, project = false): string[] {
  const out: string[] = [];
  if (!project && 'approvalMode' in data && typeof data.approvalMode !== 'string') {
    out.push(`approvalMode must be a string such as "allowlist" (got ${JSON.stringify(data.approvalMode)})`);
  }
  if (!('permissions' in data)) return out;
  const perms = data.permissions;
  if (perms === null || typeof perms !== 'object' || Array.isArray(perms)) {
    out.push(`permissions must be an object with allow and deny lists (got ${JSON.stringify(perms)})`);
    return out;
  }
  for (const key of ['allow', 'deny'] as const) {
    const list = (perms as Record<string, unknown>)[key];
    if (list === undefined) continue;
    if (!Array.isArray(list)) {
      out.push(`permissions.${key} must be an array of rule strings (got ${JSON.stringify(list)})`);
    } else if (list.some((r) => typeof r !== 'string')) {
      out.push(`permissions.${key} must hold only rule strings such as "Shell(ls)"`);
    }
  }
  return out;
}

// Reads the permission lists of a parsed config object.
export function permissionsOf(data: Record<string, unknown> | undefined): Permissions {
  const perms = data?.permissions;
  if (!perms || typeof perms !== 'object') return { allow: [], deny: [] };
  const p = perms as Record<string, unknown>;
  return { allow: rules(p.allow), deny: rules(p.deny) };
}

// Combines the user's config and the project's permissions into what Cursor will apply.
export function effectiveConfig(
  user: Record<string, unknown> | undefined,
  project: Record<string, unknown> | undefined,
): CursorConfig {
  const mode = user?.approvalMode;
  const userPerms = permissionsOf(user);
  const projectPerms = permissionsOf(project);
  return {
    approvalMode: typeof mode === 'string' ? mode : 'unrestricted',
    approvalModeSet: typeof mode === 'string',
    permissions: {
      allow: [...userPerms.allow, ...projectPerms.allow],
      deny: [...userPerms.deny, ...projectPerms.deny],
    },
  };
}
