// Pure: what doctor shows for --allow, --deny and --fence: the rules as read, as Cursor's config gets them,
// and what each tool kind does under them (Cursor's config first, then rho-cursor's answer).
import type { CursorConfig } from '../config/cli-config.js';
import { overlayConfig } from '../fence/overlay.js';
import { configUnderRules, needsPrivateDir } from '../fence/rules.js';
import type { Fence, Policy } from '../options.js';
import { cell, MATRIX_KINDS } from '../policy/matrix.js';
import {
  allowedKinds,
  cursorRules,
  deniedKinds,
  rulesJson,
  type CursorRules,
  type RuleSet,
} from '../policy/rules.js';
import { cellText, type Kind } from './table.js';

export interface RulesReport {
  fence: Fence;
  policy: Policy;
  allow: string[];
  deny: string[];
  /** What the private config dir's cli-config.json adds, in Cursor's cmd:args form. */
  cursor: CursorRules;
  /** What the private config dir's cli-config.json holds, as the run writes it (fence/overlay.ts); null: the run
   * gets no private dir, the user's config applies. dropped: the user's allow rules it leaves out. */
  privateConfig: { approvalMode: string; allow: string[]; deny: string[]; dropped: string[] } | null;
  kinds: Record<Kind, string>;
}

const pick = (xs: string[], re: RegExp): string[] => xs.filter((x) => re.test(x));
const join = (xs: string[]): string => xs.join(', ');

// A catch-all deny (`Shell(*)`, `Write(**)`, `Read(**)`): nothing of the kind is left for anything else.
const catchAll = (rules: string[]): boolean => rules.some((r) => /\((\*|\*\*)\)$/.test(r));

// One kind in a line: what Cursor's rules let run or block, what rho-cursor's answer does, and what no rule reaches.
function kindLine(kind: Kind, r: RuleSet, c: CursorRules, base: string): string {
  const parts: string[] = [];
  const allowKinds = allowedKinds(r);
  if (kind === 'execute') {
    const a = pick(c.allow, /^Shell\(/);
    const d = pick(c.deny, /^Shell\(/);
    if (catchAll(d)) parts.push(`blocked: ${join(d)}`);
    else {
      if (a.length) parts.push(`runs without asking: ${join(a)} (every part of a compound command)`);
      if (d.length) parts.push(`blocked: ${join(d)}`);
      parts.push(`${a.length || d.length ? 'anything else ' : ''}${base}`);
    }
  } else if (kind === 'edit') {
    const a = pick(c.allow, /^Write\(/);
    const d = pick(c.deny, /^Write\(/);
    if (d.length) parts.push(`blocked: ${join(d)}`);
    if (!catchAll(d)) {
      parts.push(base);
      if (a.length)
        parts.push(`outside ${join(a)}: rejected when asked, and a change there is a breach (exit 8)`);
    }
  } else if (kind === 'read') {
    const d = pick(c.deny, /^Read\(/);
    if (d.length) parts.push(`blocked: ${join(d)}`);
    if (!catchAll(d)) parts.push(base);
  } else if (kind === 'fetch') {
    const a = pick(c.allow, /^WebFetch\(/);
    const d = r.deny.filter((x) => x.type === 'WebFetch').map((x) => x.text);
    if (a.length) parts.push(`runs without asking: ${join(a)}`);
    if (d.length) parts.push(`rejected when asked: ${join(d)} (Cursor ignores WebFetch deny rules)`);
    parts.push(`${a.length ? 'anything else ' : ''}${base}`);
  } else {
    parts.push(`${base} (grep and glob: no rule reaches them)`);
  }
  if (deniedKinds(r).includes(kind) && kind !== 'search') parts.push(`--deny ${kind}`);
  else if (allowKinds.includes(kind) && kind !== 'search') parts.push(`--allow ${kind}`);
  return parts.join(' · ');
}

// The whole view for one fence and policy: Cursor's config as the run would write it (overlayConfig on the
// user's file, the very function the run uses) and each kind as the run would answer it.
export function rulesReport(
  rules: RuleSet,
  fence: Fence,
  policy: Policy,
  config: CursorConfig,
  plan: boolean,
  user?: Record<string, unknown>,
): RulesReport {
  const c = cursorRules(rules);
  const under = configUnderRules(config, fence, c);
  const kinds = Object.fromEntries(
    MATRIX_KINDS.map((k) => {
      const base = cellText(cell(k, under, plan, policy, allowedKinds(rules), fence, deniedKinds(rules)));
      return [k, kindLine(k, rules, c, base)];
    }),
  ) as Record<Kind, string>;
  return {
    fence,
    policy,
    ...rulesJson(rules),
    cursor: c,
    privateConfig: privateConfig(user, fence, c),
    kinds,
  };
}

// What the private config dir's cli-config.json would hold, or null when the run makes none.
function privateConfig(
  user: Record<string, unknown> | undefined,
  fence: Fence,
  c: CursorRules,
): RulesReport['privateConfig'] {
  if (!needsPrivateDir(fence, c)) return null;
  const written = overlayConfig(user, fence, c);
  const strings = (v: unknown): string[] =>
    Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  const perms = (o: Record<string, unknown> | undefined): Record<string, unknown> =>
    o && typeof o.permissions === 'object' && o.permissions !== null
      ? (o.permissions as Record<string, unknown>)
      : {};
  const allow = strings(perms(written).allow);
  return {
    approvalMode: String(written.approvalMode),
    allow,
    deny: strings(perms(written).deny),
    dropped: strings(perms(user).allow).filter((x) => !allow.includes(x)),
  };
}
