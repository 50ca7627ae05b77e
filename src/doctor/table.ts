// Pure: the doctor's table, each tool kind under each fence and policy, with the mechanism that decides it.
import type { CursorConfig } from '../config/cli-config.js';
import { FENCES, POLICIES, type Fence, type Policy, type ToolKind } from '../options.js';
import { cell, MATRIX_KINDS, type Cell } from '../policy/matrix.js';

export type Kind = (typeof MATRIX_KINDS)[number];

export interface Row {
  fence: Fence;
  policy: Policy;
  cells: Record<Kind, Cell>;
}

// Every fence with every policy, as a run with that --fence and --permissions (and these --allow kinds) sees it.
export function doctorTable(
  config: CursorConfig,
  plan: boolean,
  allow: readonly ToolKind[] = [],
  denied: readonly ToolKind[] = [],
): Row[] {
  const rows: Row[] = [];
  for (const fence of FENCES) {
    for (const policy of POLICIES) {
      const cells = Object.fromEntries(
        MATRIX_KINDS.map((kind) => [kind, cell(kind, config, plan, policy, allow, fence, denied)]),
      ) as Record<Kind, Cell>;
      rows.push({ fence, policy, cells });
    }
  }
  return rows;
}

// A cell in a few words: what happens, and what decides it when something stops the tool.
export function cellText(c: Cell): string {
  switch (c.outcome) {
    case 'runs':
      return 'runs';
    case 'asks-allowed':
      return 'asks: allowed';
    case 'asks-rejected':
      return 'asks: rejected';
    case 'asks-person':
      return 'asks: you';
    case 'blocked':
      return c.by === 'plan mode' ? 'blocked: plan' : 'blocked: rule';
  }
}
