// Pure: what each fence adds to Cursor's config and which permission requests it rejects.
import type { CursorConfig } from '../config/cli-config.js';
import type { Fence, ToolKind } from '../options.js';
import type { CursorRules } from '../policy/rules.js';

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

// The config Cursor applies in a run with rules (--allow/--deny) under a fence: allowlist, the run's allow rules
// in place of the user's (so the user's config cannot widen them), its deny rules after the user's and the fence's.
export function configUnderRules(config: CursorConfig, fence: Fence, c: CursorRules): CursorConfig {
  const fenced = fencedConfig(config, fence);
  if (c.allow.length + c.deny.length === 0) return fenced;
  const deny = [...fenced.permissions.deny];
  for (const r of c.deny) if (!deny.includes(r)) deny.push(r);
  return {
    approvalMode: 'allowlist',
    approvalModeSet: true,
    permissions: { allow: c.allow.length > 0 ? c.allow : fenced.permissions.allow, deny },
  };
}
