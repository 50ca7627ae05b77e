// Pure answers to the agent's permission requests and extension requests, by policy.
import { idText, isRecord } from '../acp/messages.js';
import { contentText } from '../events/tools.js';
import { anyValue, objects, paramsRest, text, uncarried, type Carried } from '../events/uncarried.js';
import { fenceRejects } from '../fence/rules.js';
import { TOOL_KINDS, type Fence, type Policy, type ToolKind } from '../options.js';
import type { RuleVerdict } from './judge.js';
import { moreDangerous, widenedByWebId } from './kinds.js';
import { answerFor } from './matrix.js';
import { namesSomething, type Subject } from './subject.js';

export const QUESTION_SKIP = '__ask_question_skip__';

export type PermOption = {
  optionId: string;
  name: string;
  kind: string;
};

export interface PermissionRequest {
  toolCallId: string;
  title: string;
  kind: string;
  options: PermOption[];
  agentReason: string | null;
  isQuestion: boolean;
  /** Why the kind judged is not the one the request claims (an unknown kind, or the tool's announced one). */
  kindNote?: string;
  /** The kind the request is judged as besides execute, when a command in its rawInput made it execute: the
   * rules judge both (what it names as that kind is never left unjudged). */
  alsoKind?: string;
  /** Its tool already finished (events/finished-ids.ts): whatever it asks now is not that tool's to run. */
  finished?: boolean;
  /** What of the params the request's event does not carry (its fields beyond sessionId, toolCall and
   * options, as `params.<name>`), for the event's `extra`; absent when none. */
  extra?: Record<string, unknown>;
}

// The params a permission request names: the session (this run's, or the request is another's), the tool
// call (read whole, when it is an object) and the options (those that are objects).
const PERMISSION_PARAMS: Readonly<Record<string, Carried>> = {
  sessionId: anyValue,
  toolCall: (v) => (v === null || isRecord(v) ? undefined : v),
  options: objects,
};

/** What rho-cursor knows of a request's tool besides the request itself. */
export interface KnownTool {
  /** The kinds it was announced with (its first tool_call), as sent. */
  announced: ReadonlyArray<{ kind: unknown }>;
  /** The title it was announced with, for a request that carries none. */
  title?: string;
  /** What the request and its tool name (subject.ts). */
  subject?: Subject;
  /** The tool already finished (events/finished-ids.ts). */
  finished?: boolean;
}

export type DecidedBy = 'policy' | 'allow-flag' | 'rule' | 'person' | 'cancel' | 'no-option';

export interface Verdict {
  decision: { optionId: string; kind: string } | { outcome: 'cancelled' };
  reason: string;
  decidedBy: DecidedBy;
}

// Reads a session/request_permission's params leniently into what the policy needs, with what is known of
// its tool: the kind judged is the most dangerous of what the request claims and what its tool was announced
// with (kinds.ts); a command in rawInput makes it execute too (alsoKind keeps what it was); only a request that names nothing to judge is
// taken for a question.
export function readPermissionRequest(params: unknown, known?: KnownTool): PermissionRequest {
  const p = isRecord(params) ? params : {};
  const tc = isRecord(p.toolCall) ? p.toolCall : {};
  // Stryker disable next-line ArrayDeclaration: filtered to records below, a placeholder is dropped
  const options = (Array.isArray(p.options) ? p.options : []).filter(isRecord).map((o) => ({
    optionId: idText(o.optionId),
    name: typeof o.name === 'string' ? o.name : idText(o.optionId),
    kind: typeof o.kind === 'string' ? o.kind : '',
  }));
  const agentReason = contentText(tc.content) ?? null;
  const isQuestion =
    questionShaped(options, tc.kind) &&
    (known?.announced ?? []).every((a) => quietKind(a.kind)) &&
    !known?.finished &&
    !(known?.subject && namesSomething(known.subject));
  const judged = isQuestion ? judgedKind(tc.kind) : kindJudged(tc.kind, known);
  // What the event does not show of the params, of the tool call and of each option, as sent.
  let extra = paramsRest(params, PERMISSION_PARAMS);
  extra = uncarried(tc, toolCallShown(judged.kind), 'params.toolCall.', extra);
  if (Array.isArray(p.options))
    p.options.forEach((o, i) => {
      if (isRecord(o)) extra = uncarried(o, OPTION_SHOWN, `params.options.${i}.`, extra);
    });
  return {
    // One id for one tool however it is written (7 and "7"), as the tool store keys it.
    toolCallId: idText(tc.toolCallId),
    title: typeof tc.title === 'string' ? tc.title : (known?.title ?? ''),
    ...judged,
    options,
    agentReason,
    isQuestion,
    ...(known?.finished ? { finished: true } : {}),
    ...(extra !== undefined ? { extra } : {}),
  };
}

// The fields of a request's tool call its event shows: the id, the title, the kind when it is the kind judged
// (one judged otherwise is kept as claimed), the status `pending` (what a tool that asks is), and content that
// is only text (the event's agentReason); the rest (rawInput, locations, a diff, _meta) is kept as sent.
function toolCallShown(kind: string): Readonly<Record<string, Carried>> {
  return {
    toolCallId: anyValue,
    title: text,
    kind: (v) => (v === kind ? undefined : v),
    status: (v) => (v === 'pending' ? undefined : v),
    content: (v) => (onlyText(v) ? undefined : v),
  };
}

// An option's fields its event shows.
const OPTION_SHOWN: Readonly<Record<string, Carried>> = { optionId: anyValue, name: text, kind: text };

// Is the content a list of plain text blocks (each shown whole in agentReason), and nothing else?
function onlyText(content: unknown): boolean {
  if (!Array.isArray(content)) return false;
  return content.every((c) => {
    if (!isRecord(c)) return false;
    const inner = c.type === 'content' && Object.keys(c).length === 2 ? c.content : c;
    return (
      isRecord(inner) &&
      inner.type === 'text' &&
      typeof inner.text === 'string' &&
      Object.keys(inner).length === 2
    );
  });
}

// The kind a request is judged by, from its claim and what is known of its tool, with the notes that say why
// when it is not the kind claimed. A request that names only its tool (no kind) takes the announced kind.
function kindJudged(
  claimed: unknown,
  known: KnownTool | undefined,
): { kind: string; kindNote?: string; alsoKind?: string } {
  const announced = known?.announced ?? [];
  const notes: string[] = [];
  let kind: string | undefined;
  if (claimed !== undefined || announced.length === 0) {
    const c = judgedKind(claimed);
    kind = c.kind;
    if (c.kindNote) notes.push(c.kindNote);
  }
  const claim = claimed === undefined ? 'claims no kind' : `claims kind ${JSON.stringify(claimed)}`;
  for (const a of announced) {
    const j = judgedKind(a.kind);
    const before = kind;
    kind = before === undefined ? j.kind : moreDangerous(before, j.kind);
    if (j.kindNote) {
      const what = typeof a.kind === 'string' ? `an unknown kind ${JSON.stringify(a.kind)}` : 'no kind';
      notes.push(`the request ${claim}; its tool was announced with ${what}: judged as execute`);
    } else if (before !== undefined && kind !== before)
      notes.push(`the request ${claim}; its tool was announced as ${kind}`);
    else if (before !== undefined && before !== j.kind)
      notes.push(`its tool was announced as ${j.kind}; the request claims ${before}, the more dangerous`);
  }
  let alsoKind: string | undefined;
  if (known?.subject?.commandInInput && kind !== 'execute') {
    notes.push(
      `the tool names a command in its rawInput, so the request is judged as execute too, not only as ${kind}`,
    );
    alsoKind = kind;
    kind = 'execute';
  }
  return {
    kind: kind ?? 'execute',
    ...(notes.length > 0 ? { kindNote: notes.join('; ') } : {}),
    ...(alsoKind !== undefined ? { alsoKind } : {}),
  };
}

// A kind of tool that acts on nothing: a question may be sent for one (or for none).
const quietKind = (kind: unknown): boolean =>
  kind === undefined || kind === null || kind === 'other' || kind === 'think';

// Cursor's ask_question sent as a permission request (the spike, from Cursor's source): one allow_once option
// per answer and the skip option, a reject_once, for no tool that acts (a kind of other or think, or none).
// Only then, and only when neither the request nor its tool names a command, a path or a URL to fetch (and
// its tool was announced with no kind that acts), is it shown and answered as a question: a request with the
// skip option and a tool kind, an allow_always, or a command (`curl ... | sh` in rawInput) is a permission
// request like any other, judged by the fence, the rules, the policy and --strict, and shown with its kind
// and command (else an execute request could pass as "Shall I keep the formatting?": found by review).
function questionShaped(options: readonly PermOption[], kind: unknown): boolean {
  const skips = options.filter((o) => o.optionId === QUESTION_SKIP);
  return (
    skips.length === 1 &&
    skips[0]!.kind === 'reject_once' &&
    options.every((o) => o.optionId === QUESTION_SKIP || o.kind === 'allow_once') &&
    quietKind(kind)
  );
}

// The kinds ACP names; any other kind, or none, is judged as the most dangerous one: execute.
const KNOWN_KINDS: ReadonlySet<string> = new Set([...TOOL_KINDS, 'switch_mode']);

// The kind a request is judged by, and why when it is not the one it claims.
export function judgedKind(claimed: unknown): { kind: string; kindNote?: string } {
  if (typeof claimed === 'string' && KNOWN_KINDS.has(claimed)) return { kind: claimed };
  const what = typeof claimed === 'string' ? `an unknown kind '${claimed}'` : 'no kind';
  return { kind: 'execute', kindNote: `the request has ${what}: judged as execute` };
}

// Two options with one optionId: an answer could not say which was meant.
function ambiguous(req: PermissionRequest): boolean {
  return new Set(req.options.map((o) => o.optionId)).size !== req.options.length;
}

// Picks the option of a kind; only `_once` kinds are ever chosen (allow_always persists into Cursor's allowlist).
function pick(
  req: PermissionRequest,
  kind: 'allow_once' | 'reject_once',
  reason: string,
  by: DecidedBy,
): Verdict {
  const option = req.options.find((o) => o.kind === kind);
  if (!option) {
    return {
      decision: { outcome: 'cancelled' },
      reason: `no ${kind} option offered; ${reason}`,
      decidedBy: 'no-option',
    };
  }
  return { decision: { optionId: option.optionId, kind: option.kind }, reason, decidedBy: by };
}

// The network is one kind whatever Cursor calls it: web search asks with kind `search` (toolCallId
// `web_search_<n>`), fetch with `fetch` (`web_fetch_<n>`); both count as fetch for --allow and the fences. The
// id only ever widens (kinds.ts): an execute, edit, delete or move request stays what it is.
export function requestKind(req: Pick<PermissionRequest, 'kind' | 'toolCallId'>): ToolKind {
  // Other kinds (fetch among them) pass as they are: an unknown kind matches no --allow, as before.
  return widenedByWebId(req.kind, req.toolCallId) as ToolKind;
}

// Decides a permission request without a person; returns undefined when a person at the terminal must choose.
// `ruled` is the --allow/--deny rules' verdict (policy/judge.ts): after the fence, before the kind and policy.
export function decidePermission(
  req: PermissionRequest,
  policy: Policy,
  allow: readonly ToolKind[],
  interactive: boolean,
  // Stryker disable next-line StringLiteral: '' fences nothing, as 'none' does
  fence: Fence = 'none',
  ruled?: RuleVerdict,
): Verdict | undefined {
  if (ambiguous(req))
    return {
      decision: { outcome: 'cancelled' },
      reason: 'ambiguous: two options share an optionId',
      decidedBy: 'no-option',
    };
  // Its tool already ran (or failed, or was stopped): nothing it asks now is that tool's, and text mode keeps
  // nothing of it to judge by, so it is rejected whatever the policy and the rules, in every output format.
  if (req.finished) return pick(req, 'reject_once', 'its tool had already finished', 'policy');
  if (req.isQuestion) {
    if (policy === 'ask' && interactive) return undefined;
    const skip = req.options.find((o) => o.optionId === QUESTION_SKIP);
    return skip
      ? {
          decision: { optionId: skip.optionId, kind: skip.kind },
          reason: 'a question, and no person to answer it: skipped',
          decidedBy: 'policy',
        }
      : {
          decision: { outcome: 'cancelled' },
          reason: 'a question without a skip option',
          decidedBy: 'no-option',
        };
  }
  const kind = requestKind(req);
  const net = kind === 'fetch' && req.kind !== 'fetch' ? ` (${req.kind} of the web counts as fetch)` : '';
  if (fenceRejects(fence, kind)) {
    const what = fence === 'read-only' ? 'every permission request' : `${kind} requests`;
    return pick(req, 'reject_once', `--fence ${fence} rejects ${what}${net}`, 'policy');
  }
  if (ruled)
    return pick(req, ruled.decision === 'allow' ? 'allow_once' : 'reject_once', ruled.reason, 'rule');
  const answer = answerFor(kind, policy, allow);
  if (answer === 'allowed') {
    const byFlag = policy !== 'allow';
    return pick(
      req,
      'allow_once',
      (byFlag ? `--allow ${kind}` : '--permissions allow') + net,
      byFlag ? 'allow-flag' : 'policy',
    );
  }
  if (answer === 'person' && interactive) return undefined;
  return pick(
    req,
    'reject_once',
    (answer === 'person' ? '--permissions ask with no terminal' : '--permissions reject') + net,
    'policy',
  );
}

// The JSON-RPC result for a verdict.
export function permissionResult(v: Verdict): unknown {
  return 'optionId' in v.decision
    ? { outcome: { outcome: 'selected', optionId: v.decision.optionId } }
    : { outcome: { outcome: 'cancelled' } };
}

// Whether a verdict means the tool will not run.
export function isRejection(v: Verdict): boolean {
  return !('optionId' in v.decision) || v.decision.kind.startsWith('reject');
}

export const PLAN_ONLY_REASON =
  'This is a plan-only run (rho-cursor --plan): do not execute the plan. Give the whole plan as your final answer.';
export const SKIP_QUESTION_REASON =
  'No person can answer: rho-cursor is running without a terminal. Choose the most reasonable option yourself, say which, and continue.';

export type PlanAnswer = { outcome: 'accepted' } | { outcome: 'rejected'; reason: string };

export const READ_ONLY_PLAN_REASON =
  'This run is read-only (rho-cursor --fence read-only): the plan cannot be executed. Give the whole plan as your final answer.';

// How cursor/create_plan is answered without a person; undefined means ask the person.
export function decidePlan(
  policy: Policy,
  plan: boolean,
  interactive: boolean,
  // Stryker disable next-line StringLiteral: '' fences nothing, as 'none' does
  fence: Fence = 'none',
): PlanAnswer | undefined {
  if (plan) return { outcome: 'rejected', reason: PLAN_ONLY_REASON };
  // Accepting would ask the agent to carry out edits and commands the fence forbids.
  if (fence === 'read-only') return { outcome: 'rejected', reason: READ_ONLY_PLAN_REASON };
  if (policy === 'allow') return { outcome: 'accepted' };
  if (policy === 'ask' && interactive) return undefined;
  const why =
    policy === 'ask' ? 'no person at the terminal to approve it' : 'rho-cursor --permissions reject';
  return {
    outcome: 'rejected',
    reason: `The plan was not approved (${why}). Do not execute it; give the plan as your final answer.`,
  };
}
