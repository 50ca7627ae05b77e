// Pure: the cli-config.json a fenced agent gets: the user's file with allowlist and the fence's deny rules.
import type { Fence } from '../options.js';
import type { CursorRules } from '../policy/rules.js';
import { FENCE_DENY, fenceDropsAllow } from './rules.js';

const NONE: CursorRules = { allow: [], deny: [] };

// Builds the overlay from the user's parsed file (undefined: no file, so Cursor's `{"version": 1}`).
// Every other key is kept, in its place; the user's own rules stay and the fence's are appended once, except
// the allow rules that would let read-only's network requests run without asking (fenceDropsAllow).
// The run's --allow rules replace the user's allow list (so the user's config cannot widen them); its --deny
// rules are appended after the user's and the fence's.
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
  const userAllow = Array.isArray(perms.allow)
    ? (perms.allow as unknown[]).filter((r) => !fenceDropsAllow(fence, r))
    : [];
  const allow = rules.allow.length > 0 ? [...rules.allow] : userAllow;
  const deny = Array.isArray(perms.deny) ? [...(perms.deny as unknown[])] : [];
  for (const rule of [...FENCE_DENY[fence], ...rules.deny]) if (!deny.includes(rule)) deny.push(rule);
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
