// Pure: what doctor shows for --allow, --deny and --fence: the rules as read, as Cursor's config gets them,
// and what each tool kind does under them (Cursor's config first, then rho-cursor's answer).
import type { CursorConfig } from '../config/cli-config.js';
import { configUnderRules } from '../fence/rules.js';
import type { Fence, Policy } from '../options.js';
import { cell, MATRIX_KINDS } from '../policy/matrix.js';
import { allowedKinds, cursorRules, rulesJson, type CursorRules, type RuleSet } from '../policy/rules.js';
import { cellText, type Kind } from './table.js';

export interface RulesReport {
  fence: Fence;
  policy: Policy;
  allow: string[];
  deny: string[];
  /** What the private config dir's cli-config.json adds, in Cursor's cmd:args form. */
  cursor: CursorRules;
  kinds: Record<Kind, string>;
}

const pick = (xs: string[], re: RegExp): string[] => xs.filter((x) => re.test(x));
const join = (xs: string[]): string => xs.join(', ');

// One kind in a line: what Cursor's rules let run or block, what rho-cursor's answer does, and what no rule reaches.
function kindLine(kind: Kind, r: RuleSet, c: CursorRules, base: string): string {
  const parts: string[] = [];
  const allowKinds = allowedKinds(r);
  if (kind === 'execute') {
    const a = pick(c.allow, /^Shell\(/);
    const d = pick(c.deny, /^Shell\(/);
    if (a.length) parts.push(`runs without asking: ${join(a)} (every part of a compound command)`);
    if (d.length) parts.push(`blocked: ${join(d)}`);
    parts.push(`${a.length || d.length ? 'anything else ' : ''}${base}`);
  } else if (kind === 'edit') {
    const a = pick(c.allow, /^Write\(/);
    const d = pick(c.deny, /^Write\(/);
    if (d.length) parts.push(`blocked: ${join(d)}`);
    parts.push(base);
    if (a.length)
      parts.push(
        `outside ${join(a)}: rejected when asked, and a change there is a breach (exit 8, once the change ledger lands)`,
      );
  } else if (kind === 'read') {
    const d = pick(c.deny, /^Read\(/);
    if (d.length) parts.push(`blocked: ${join(d)}`);
    parts.push(base);
  } else if (kind === 'fetch') {
    const a = pick(c.allow, /^WebFetch\(/);
    const d = r.deny.filter((x) => x.type === 'WebFetch').map((x) => x.text);
    if (a.length) parts.push(`runs without asking: ${join(a)}`);
    if (d.length) parts.push(`rejected when asked: ${join(d)} (Cursor ignores WebFetch deny rules)`);
    parts.push(`${a.length ? 'anything else ' : ''}${base}`);
  } else {
    parts.push(`${base} (grep and glob: no rule reaches them)`);
  }
  if (allowKinds.includes(kind) && kind !== 'search') parts.push(`--allow ${kind}`);
  return parts.join(' · ');
}

// The whole view for one fence and policy.
export function rulesReport(
  rules: RuleSet,
  fence: Fence,
  policy: Policy,
  config: CursorConfig,
  plan: boolean,
): RulesReport {
  const c = cursorRules(rules);
  const under = configUnderRules(config, fence, c);
  const kinds = Object.fromEntries(
    MATRIX_KINDS.map((k) => {
      const base = cellText(cell(k, under, plan, policy, allowedKinds(rules), fence));
      return [k, kindLine(k, rules, c, base)];
    }),
  ) as Record<Kind, string>;
  return { fence, policy, ...rulesJson(rules), cursor: c, kinds };
}
