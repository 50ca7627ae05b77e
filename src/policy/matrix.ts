// What Cursor does with each tool kind under a config, a mode, a policy and a fence, as the spike observed it,
// and the mechanism that decides each cell. This table feeds the run's warnings, the fence line and `doctor`.
import type { CursorConfig } from '../config/cli-config.js';
import { fenceRejects, fencedConfig } from '../fence/rules.js';
import type { Fence, Policy, ToolKind } from '../options.js';

export type Gate = 'runs' | 'asks' | 'blocked';
export type Outcome = 'runs' | 'asks-allowed' | 'asks-rejected' | 'asks-person' | 'blocked';
/** What decides a cell: a deny rule in the config, plan mode, the client's answer to a request, or nothing. */
export const MECHANISMS = ['config rule', 'plan mode', 'permission answer', 'nothing'] as const;
export type Mechanism = (typeof MECHANISMS)[number];

export interface Cell {
  outcome: Outcome;
  by: Mechanism;
}

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

const ALLOW_RULE_FOR: Partial<Record<ToolKind, RegExp>> = { execute: /^Shell\(/, fetch: /^WebFetch\(/ };

// A rule that covers everything: a `*` or `**` glob; narrower rules leave some calls to the default.
const coversAll = (rule: string): boolean => /\((\*|\*\*|\*\*\/\*)\)$/.test(rule);

// A deny rule blocks a kind only when it covers everything (a `*` or `**` glob); narrower rules may still let it run.
function deniedOutright(kind: ToolKind, deny: string[]): boolean {
  const rule = DENY_RULE_FOR[kind];
  return rule !== undefined && deny.some((d) => rule.test(d) && coversAll(d));
}

// Under allowlist, an allow rule that covers everything (`Shell(*)`, `WebFetch(*)`) means the kind never asks.
function allowedOutright(kind: ToolKind, allow: string[]): boolean {
  const rule = ALLOW_RULE_FOR[kind];
  return rule !== undefined && allow.some((a) => rule.test(a) && coversAll(a));
}

// What Cursor itself does before any client answer, and why: a deny rule, plan mode, or its approvalMode.
function gateOf(kind: ToolKind, config: CursorConfig, plan: boolean): { gate: Gate; by: Mechanism } {
  if (deniedOutright(kind, config.permissions.deny)) return { gate: 'blocked', by: 'config rule' };
  if (plan && (kind === 'edit' || kind === 'delete' || kind === 'move'))
    return { gate: 'blocked', by: 'plan mode' };
  if (config.approvalMode !== 'allowlist') return { gate: 'runs', by: 'nothing' };
  if (kind !== 'execute' && kind !== 'fetch') return { gate: 'runs', by: 'nothing' };
  if (allowedOutright(kind, config.permissions.allow)) return { gate: 'runs', by: 'config rule' };
  return { gate: 'asks', by: 'permission answer' };
}

// What Cursor itself does before any client answer: run, ask the client, or block.
export function gate(kind: ToolKind, config: CursorConfig, plan: boolean): Gate {
  return gateOf(kind, config, plan).gate;
}

// The answer a permission request of this kind gets from the fence, a bare --deny of its kind (as judge.ts
// rejects it, before the kind and the policy), then the client's policy.
export function answerFor(
  kind: ToolKind,
  policy: Policy,
  allow: readonly ToolKind[],
  // Stryker disable next-line StringLiteral: '' fences nothing, as 'none' does
  fence: Fence = 'none',
  denied: readonly ToolKind[] = [],
): 'allowed' | 'rejected' | 'person' {
  if (fenceRejects(fence, kind) || denied.includes(kind)) return 'rejected';
  if (policy === 'allow' || allow.includes(kind)) return 'allowed';
  return policy === 'ask' ? 'person' : 'rejected';
}

// One cell of the table: the user's config as the fence changes it, Cursor's gate, then the client's answer.
export function cell(
  kind: ToolKind,
  userConfig: CursorConfig,
  plan: boolean,
  policy: Policy,
  allow: readonly ToolKind[],
  fence: Fence = 'none',
  denied: readonly ToolKind[] = [],
): Cell {
  const g = gateOf(kind, fencedConfig(userConfig, fence), plan);
  if (g.gate !== 'asks') return { outcome: g.gate, by: g.by };
  const a = answerFor(kind, policy, allow, fence, denied);
  const outcome = a === 'allowed' ? 'asks-allowed' : a === 'rejected' ? 'asks-rejected' : 'asks-person';
  return { outcome, by: 'permission answer' };
}

// Combines Cursor's gate with the client's answer.
export function outcome(
  kind: ToolKind,
  config: CursorConfig,
  plan: boolean,
  policy: Policy,
  allow: readonly ToolKind[],
  fence: Fence = 'none',
): Outcome {
  return cell(kind, config, plan, policy, allow, fence).outcome;
}

// Is this outcome one the tool never runs under, whoever is asked?
export const stops = (o: Outcome): boolean => o === 'blocked' || o === 'asks-rejected';
