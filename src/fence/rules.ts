// Pure: what each fence adds to Cursor's config and which permission requests it rejects.
import type { CursorConfig } from '../config/cli-config.js';
import type { Fence, ToolKind } from '../options.js';
import { needsCursorRules, type CursorRules } from '../policy/rules.js';

/** The deny rules each fence adds to permissions.deny; the spike saw Shell(*) and Write(**) hold. */
export const FENCE_DENY: Record<Fence, readonly string[]> = {
  none: [],
  'no-shell': ['Shell(*)'],
  'read-only': ['Shell(*)', 'Write(**)'],
};

/** The tool kinds a fence's deny rules stop before any request is made (Write(**) covers delete and move). */
const RULE_KINDS: Record<Fence, readonly ToolKind[]> = {
  none: [],
  'no-shell': ['execute'],
  'read-only': ['execute', 'edit', 'delete', 'move'],
};

// Allow rules a fence cannot let stand: Cursor ignores WebFetch(...) deny rules, so under read-only the network
// is fenced only by rejecting its request, and an allowlisted fetch (or MCP tool) would never ask.
export function fenceDropsAllow(fence: Fence, rule: unknown): boolean {
  return fence === 'read-only' && typeof rule === 'string' && /^(WebFetch|Mcp)\(/.test(rule);
}

// Does the fence reject a permission request of this kind? read-only rejects them all (that is what fences fetch).
export function fenceRejects(fence: Fence, kind: ToolKind): boolean {
  return fence === 'read-only' || (fence === 'no-shell' && kind === 'execute');
}

// Does one of the fence's own deny rules stop this kind, so a "completed" call with no output did not run?
export function fenceRuleBlocks(fence: Fence, kind: string): boolean {
  return (RULE_KINDS[fence] as readonly string[]).includes(kind);
}

// The config Cursor applies under a fence: allowlist, the fence's deny rules after the user's own, and no allow
// rule that would let a fenced request run without asking.
export function fencedConfig(config: CursorConfig, fence: Fence): CursorConfig {
  if (fence === 'none') return config;
  const deny = [...config.permissions.deny];
  for (const rule of FENCE_DENY[fence]) if (!deny.includes(rule)) deny.push(rule);
  return {
    approvalMode: 'allowlist',
    approvalModeSet: true,
    permissions: { allow: config.permissions.allow.filter((r) => !fenceDropsAllow(fence, r)), deny },
  };
}

// Does the run give Cursor a private config dir? Under a fence, or when the run's rules must be in Cursor's
// config (policy/rules.ts needsCursorRules). The run and doctor both ask here.
export function needsPrivateDir(fence: Fence, c: CursorRules): boolean {
  return fence !== 'none' || needsCursorRules(c);
}

// An allow rule of a kind whose deny rules Cursor does not hold, while the run denies some of that kind: it
// would let what the deny covers run unasked. The user's go; of the run's own, the WebFetch(...) ones go
// (rho-cursor then allows what they cover when Cursor asks), and the Mcp(...) ones stay (no request says
// which MCP tool it is, so only Cursor can allow one).
function rulesDropAllow(c: CursorRules, rule: unknown, own: boolean): boolean {
  return (
    typeof rule === 'string' &&
    (c.unheld ?? []).some((head) => (!own || head === 'WebFetch') && rule.startsWith(`${head}(`))
  );
}

// The permissions of the private config: the run's allow rules in place of the user's (so the user's config
// cannot widen them), else the user's, less those the fence or a deny Cursor does not hold cannot let stand;
// the user's deny rules, then the fence's, then the run's, once each. The one computation of what Cursor is
// given: overlay.ts writes it, doctor shows it, the warnings and the table judge it.
export function privatePermissions(
  userAllow: readonly unknown[],
  userDeny: readonly unknown[],
  fence: Fence,
  c: CursorRules,
): { allow: unknown[]; deny: unknown[] } {
  const own = c.allow.length > 0;
  const allow = (own ? c.allow : userAllow).filter(
    (r) => !fenceDropsAllow(fence, r) && !rulesDropAllow(c, r, own),
  );
  const deny = [...userDeny];
  for (const rule of [...FENCE_DENY[fence], ...c.deny]) if (!deny.includes(rule)) deny.push(rule);
  return { allow, deny };
}

// The config Cursor applies in a run with rules (--allow/--deny) under a fence, as privatePermissions makes it.
export function configUnderRules(config: CursorConfig, fence: Fence, c: CursorRules): CursorConfig {
  if (!needsPrivateDir(fence, c)) return config;
  const p = privatePermissions(config.permissions.allow, config.permissions.deny, fence, c);
  return {
    approvalMode: 'allowlist',
    approvalModeSet: true,
    permissions: { allow: p.allow as string[], deny: p.deny as string[] },
  };
}
