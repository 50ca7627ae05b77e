// Pure: a permission request judged by the --allow and --deny rules alone, before its kind and --permissions:
// a matching deny wins, then an allow that covers all of it; an edit outside the Write(...) allow rules is
// rejected whatever the policy. Undefined: the rules say nothing, the kind and the policy decide.
import { unitEscapes } from '../sanitize/json.js';
import type { ToolKind } from '../options.js';
import {
  domainCovered,
  formsCover,
  hostOf,
  pathCovered,
  shellAllowed,
  shellDenied,
  shellDeniedAsWritten,
  SHELL_READ_MAX,
  workspacePath,
} from './match.js';
import { NOT_LOOKED_UP } from './real-paths.js';
import { deniedKinds, type Rule, type RuleSet } from './rules.js';
import type { Subject } from './subject.js';

export interface RuleVerdict {
  decision: 'allow' | 'deny';
  reason: string;
}

type Of<T extends Rule['type']> = Rule & { type: T };
const of = <T extends Rule['type']>(rules: readonly Rule[], type: T): Of<T>[] =>
  rules.filter((r): r is Of<T> => r.type === type);

const EDITS: ReadonlySet<string> = new Set(['edit', 'delete', 'move']);
const deny = (reason: string): RuleVerdict => ({ decision: 'deny', reason });
const allow = (reason: string): RuleVerdict => ({ decision: 'allow', reason });
const list = (rs: readonly Rule[]): string => rs.map((r) => r.text).join(', ');
// Agent text in a reason stays one line: with a control or bidi character it is shown JSON-escaped.
const shown = (s: string): string =>
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  /[\0-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/.test(s)
    ? JSON.stringify(s).replace(/[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, unitEscapes)
    : `\`${s}\``;

type PathRule = Of<'Read'> | Of<'Write'>;
// Does a Read(...) or Write(...) rule cover a path? By the forms resolved for the run, else as written.
const covers = (r: PathRule, path: string, cwd: string): boolean =>
  r.forms ? formsCover(r.forms, path, cwd) : pathCovered(r.glob, path, cwd);

// Judges one request by the rules, as each kind it is judged as (a command in its rawInput makes an edit also
// an execute request: decide.ts): a deny of any part rejects it; it is allowed only when the rules allow every
// part; else the rules say nothing. Found by review: an edit of `.env` that also named `npm test` was judged
// as the command alone, and allowed by Shell(npm test) under --deny Write(.env).
export function judgeByRules(
  kinds: ToolKind | readonly ToolKind[],
  s: Subject,
  rules: RuleSet,
  cwd: string,
): RuleVerdict | undefined {
  const each = [...new Set(typeof kinds === 'string' ? [kinds] : kinds)].map((k) =>
    judgeKind(k, s, rules, cwd),
  );
  const denied = each.find((v) => v?.decision === 'deny');
  if (denied) return denied;
  if (each.length > 0 && each.every((v) => v?.decision === 'allow'))
    return allow(each.map((v) => v!.reason).join('; '));
  return undefined;
}

// Judges one request of one kind by the rules.
function judgeKind(kind: ToolKind, s: Subject, rules: RuleSet, cwd: string): RuleVerdict | undefined {
  if (deniedKinds(rules).includes(kind)) return deny(`--deny ${kind}`);
  if (kind === 'execute') return judgeShell(s, rules);
  if (EDITS.has(kind)) return judgePaths(s, rules, cwd, 'Write', true);
  if (kind === 'read') return judgePaths(s, rules, cwd, 'Read', false);
  if (kind === 'fetch') return judgeFetch(s, rules);
  return undefined;
}

// Shell: a deny covering any part of any named command wins; an allow needs every part of every command.
function judgeShell(s: Subject, rules: RuleSet): RuleVerdict | undefined {
  const denies = of(rules.deny, 'Shell');
  const allows = of(rules.allow, 'Shell');
  if (denies.length > 0 && s.commands.length === 0)
    return deny(`the command is not known, and ${list(denies)} may cover it`);
  // The bound holds for the request, not each command: an agent may name many.
  const length = s.commands.reduce((n, c) => n + c.length, 0);
  if (denies.length > 0 && length > SHELL_READ_MAX)
    return deny(
      `the command is ${length} characters, more than the ${SHELL_READ_MAX} a deny rule reads: ${list(denies)} may cover it`,
    );
  for (const c of s.commands) {
    const hit = shellDenied(c, denies);
    if (hit) return deny(`--deny ${hit.text} covers ${shown(c)}`);
  }
  // No allow rules allow nothing: shellAllowed is false for every command then.
  if (s.commands.length > 0 && s.commands.every((c) => shellAllowed(c, allows)))
    return allow(`--allow ${list(allows)}`);
  return undefined;
}

// Read or Write: a deny covering any path wins; Write allow rules must cover every path, else the edit is
// rejected (strict); Read allow rules allow what they cover and leave the rest to the policy.
function judgePaths(
  s: Subject,
  rules: RuleSet,
  cwd: string,
  type: 'Read' | 'Write',
  strict: boolean,
): RuleVerdict | undefined {
  const denies = of(rules.deny, type);
  const allows = of(rules.allow, type);
  if (denies.length > 0 && s.paths.length === 0)
    return deny(`the path is not known, and ${list(denies)} may cover it`);
  // Where a path leads once its links are followed was not looked up (past the lookups a request may take):
  // it may be a link to what a deny rule names (found by review).
  const unread = denies.length > 0 ? s.paths.find((p) => p.startsWith(NOT_LOOKED_UP)) : undefined;
  if (unread !== undefined)
    return deny(
      `where ${shown(unread.slice(NOT_LOOKED_UP.length))} leads was not looked up, and ${list(denies)} may cover it`,
    );
  for (const p of s.paths) {
    // A deny reads generously: a backslash also as the separator a tool may take it for (found by review).
    const forms = p.includes('\\') ? [p, p.split('\\').join('/')] : [p];
    const hit = denies.find((r) => forms.some((f) => covers(r, f, cwd)));
    if (hit) return deny(`--deny ${hit.text} covers ${shown(workspacePath(p, cwd))}`);
  }
  if (allows.length === 0) return undefined;
  const outside = s.paths.filter((p) => !allows.some((r) => covers(r, p, cwd)));
  if (s.paths.length > 0 && outside.length === 0) return allow(`--allow ${list(allows)}`);
  if (!strict) return undefined;
  return deny(
    s.paths.length === 0
      ? `the path is not known, so ${list(allows)} cannot vouch for it`
      : `${shown(workspacePath(outside[0]!, cwd))} is outside ${list(allows)}`,
  );
}

// Fetch: by the domain of the URL the agent named.
function judgeFetch(s: Subject, rules: RuleSet): RuleVerdict | undefined {
  const denies = of(rules.deny, 'WebFetch');
  const allows = of(rules.allow, 'WebFetch');
  if (denies.length > 0 && s.urls.length === 0)
    return deny(`the URL is not known, and ${list(denies)} may cover it`);
  const hostless = denies.length > 0 ? s.urls.find((u) => hostOf(u) === undefined) : undefined;
  if (hostless !== undefined)
    return deny(`the host of ${shown(hostless)} is not known, and ${list(denies)} may cover it`);
  for (const u of s.urls) {
    const hit = denies.find((r) => domainCovered(r.domain, u));
    if (hit) return deny(`--deny ${hit.text} covers ${shown(u)}`);
  }
  if (s.urls.length > 0 && s.urls.every((u) => allows.some((r) => domainCovered(r.domain, u))))
    return allow(`--allow ${list(allows)}`);
  return undefined;
}

// The changed paths (relative to the workspace) that no Write(...) allow rule covers, or that a Write(...) deny
// rule covers: what the change ledger reports as a breach (exit 8). No Write allow rules: only the denies count.
export function outsideWriteRules(paths: readonly string[], rules: RuleSet, cwd = '/'): string[] {
  const allows = of(rules.allow, 'Write');
  const denies = of(rules.deny, 'Write');
  return paths.filter(
    (p) =>
      denies.some((r) => covers(r, p, cwd)) || (allows.length > 0 && !allows.some((r) => covers(r, p, cwd))),
  );
}

// Did one of Cursor's deny rules from --deny stop this call? Cursor then reports it completed with no output,
// so the caller marks it rejected (Cursor only asks nothing before blocking it). Shell and Write rules hold.
// A command is judged as written: the wrappers and options rho-cursor's own deny reading sees through are not
// known to stop Cursor, and a call that ran is never shown as not run.
export function cursorDenyStops(kind: string, s: Subject, rules: RuleSet, cwd: string): boolean {
  if (kind === 'execute')
    return (
      of(rules.deny, 'kind').some((r) => r.kind === 'execute') ||
      s.commands.some((c) => shellDeniedAsWritten(c, of(rules.deny, 'Shell')) !== undefined)
    );
  if (EDITS.has(kind))
    return (
      of(rules.deny, 'kind').some((r) => EDITS.has(r.kind)) ||
      s.paths.some((p) => of(rules.deny, 'Write').some((r) => covers(r, p, cwd)))
    );
  return false;
}

// What the rules cannot hold before it happens, said as warnings: Cursor never asks before an edit, and
// rho-cursor never sees an MCP call's server and tool.
export function rulesWarnings(rules: RuleSet): Array<{ code: string; message: string }> {
  const out: Array<{ code: string; message: string }> = [];
  const writes = of(rules.allow, 'Write');
  if (writes.length > 0)
    out.push({
      code: 'write-rules-not-asked',
      message: `Cursor never asks before an edit: ${list(writes)} rejects an edit outside it only when the agent asks; the change ledger finds the others after the turn`,
    });
  const mcp = [...of(rules.allow, 'Mcp'), ...of(rules.deny, 'Mcp')];
  if (mcp.length > 0)
    out.push({
      code: 'mcp-rules-cursor-only',
      message: `${list(mcp)}: held by Cursor's config alone (rho-cursor cannot tell an MCP call from a permission request)`,
    });
  return out;
}
