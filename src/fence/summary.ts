// Pure: what a fence blocks and what stays open, read off the matrix, for the session event and its text line.
import type { Fence } from '../options.js';
import { cell, MATRIX_KINDS, stops } from '../policy/matrix.js';

export interface FenceSummary {
  name: Fence;
  /** Tool kinds the fence stops under any policy, by a deny rule or by rejecting the request. */
  blocked: string[];
  /** Tool kinds the fence leaves to Cursor and the policy: grep and glob always (no rule reaches them). */
  open: string[];
  /** What enforces it: Cursor's deny rules and the answers, or for another agent the answers alone (null: none). */
  by: string | null;
}

/** What enforces a fence on Cursor: the deny rules of its private config dir, then rejected requests. */
export const BY_CURSOR = "Cursor's deny rules in a private config dir, and permission answers";
/** What enforces a fence on any other agent (contract v3): only what it asks can be refused. */
export const BY_ANSWERS = 'permission answers and the ledger';

const NO_CONFIG = {
  approvalMode: 'unrestricted',
  approvalModeSet: false,
  permissions: { allow: [], deny: [] },
};

// Judged under the most permissive policy and an empty user config, so only the fence itself counts; `rules`
// says whether Cursor's deny rules hold it (Cursor with its private config dir) or only the answers do.
export function fenceSummary(fence: Fence, rules = true): FenceSummary {
  const blocked: string[] = [];
  const open: string[] = [];
  for (const kind of MATRIX_KINDS) {
    (stops(cell(kind, NO_CONFIG, false, 'allow', [], fence).outcome) ? blocked : open).push(kind);
  }
  return { name: fence, blocked, open, by: fence === 'none' ? null : rules ? BY_CURSOR : BY_ANSWERS };
}

// The one text-mode line: what is blocked, what is open and why search stays open, then the run's rules.
export function fenceLine(f: FenceSummary, rules: { allow: string[]; deny: string[] } = NO_RULES): string {
  const open = f.open.map((k) => (k === 'search' ? 'search (grep and glob: no rule reaches them)' : k));
  const by = f.by === BY_ANSWERS ? ` · enforced only by ${BY_ANSWERS}` : '';
  const line = `fence ${f.name}: blocks ${f.blocked.join(', ') || 'nothing'} · open: ${open.join(', ') || 'nothing'}${by}`;
  if (rules.allow.length + rules.deny.length === 0) return line;
  const list = (xs: string[]): string => xs.join(', ') || 'none';
  return `${line} · rules: allow ${list(rules.allow)}; deny ${list(rules.deny)}`;
}

const NO_RULES = { allow: [], deny: [] };
