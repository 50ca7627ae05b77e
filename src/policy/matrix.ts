// What Cursor does with each tool kind under a config, a mode and a policy, as the spike observed it.
// This table feeds the run's warnings now and `doctor` and the fences later.
import type { CursorConfig } from '../config/cli-config.js';
import type { Policy, ToolKind } from '../options.js';

export type Gate = 'runs' | 'asks' | 'blocked';
export type Outcome = 'runs' | 'asks-allowed' | 'asks-rejected' | 'asks-person' | 'blocked';

export const MATRIX_KINDS = [
  'read',
  'search',
  'edit',
  'execute',
  'fetch',
] as const satisfies readonly ToolKind[];

const DENY_RULE_FOR: Partial<Record<ToolKind, RegExp>> = {
  // Write(...) and Shell(...) deny rules hold; Read(...) covers read but not grep or glob; WebFetch(...) is ignored.
  read: /^Read\(/,
  edit: /^Write\(/,
  delete: /^Write\(/,
  move: /^Write\(/,
  execute: /^Shell\(/,
};

// A deny rule blocks a kind only when it covers everything (a `*` or `**` glob); narrower rules may still let it run.
function deniedOutright(kind: ToolKind, deny: string[]): boolean {
  const rule = DENY_RULE_FOR[kind];
  return rule !== undefined && deny.some((d) => rule.test(d) && /\((\*|\*\*|\*\*\/\*)\)$/.test(d));
}

// What Cursor itself does before any client answer: run, ask the client, or block.
export function gate(kind: ToolKind, config: CursorConfig, plan: boolean): Gate {
  if (deniedOutright(kind, config.permissions.deny)) return 'blocked';
  if (plan && (kind === 'edit' || kind === 'delete' || kind === 'move')) return 'blocked';
  if (config.approvalMode !== 'allowlist') return 'runs';
  return kind === 'execute' || kind === 'fetch' ? 'asks' : 'runs';
}

// The answer a permission request of this kind gets from the client's policy.
export function answerFor(
  kind: ToolKind,
  policy: Policy,
  allow: readonly ToolKind[],
): 'allowed' | 'rejected' | 'person' {
  if (policy === 'allow' || allow.includes(kind)) return 'allowed';
  return policy === 'ask' ? 'person' : 'rejected';
}

// Combines Cursor's gate with the client's answer.
export function outcome(
  kind: ToolKind,
  config: CursorConfig,
  plan: boolean,
  policy: Policy,
  allow: readonly ToolKind[],
): Outcome {
  const g = gate(kind, config, plan);
  if (g !== 'asks') return g;
  const a = answerFor(kind, policy, allow);
  return a === 'allowed' ? 'asks-allowed' : a === 'rejected' ? 'asks-rejected' : 'asks-person';
}
