// Pure: the cli-config.json a fenced agent gets: the user's file with allowlist and the fence's deny rules.
import type { Fence } from '../options.js';
import type { CursorRules } from '../policy/rules.js';
import { privatePermissions } from './rules.js';

const NONE: CursorRules = { allow: [], deny: [] };

// Builds the overlay from the user's parsed file (undefined: no file, so Cursor's `{"version": 1}`).
// Every other key is kept, in its place; the permissions are privatePermissions' (fence/rules.ts).
export function overlayConfig(
  user: Record<string, unknown> | undefined,
  fence: Fence,
  rules: CursorRules = NONE,
): Record<string, unknown> {
  const base: Record<string, unknown> = user ? { ...user } : { version: 1 };
  const perms =
    base.permissions && typeof base.permissions === 'object' && !Array.isArray(base.permissions)
      ? { ...(base.permissions as Record<string, unknown>) }
      : {};
  const list = (v: unknown): unknown[] => (Array.isArray(v) ? (v as unknown[]) : []);
  const { allow, deny } = privatePermissions(list(perms.allow), list(perms.deny), fence, rules);
  base.approvalMode = 'allowlist';
  base.permissions = { ...perms, allow, deny };
  return base;
}

// The overlay as the file's text, indented as Cursor writes it.
export function overlayText(
  user: Record<string, unknown> | undefined,
  fence: Fence,
  rules: CursorRules = NONE,
): string {
  return JSON.stringify(overlayConfig(user, fence, rules), null, 2) + '\n';
}
