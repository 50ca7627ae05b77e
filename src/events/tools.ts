// Pure tool-call state: merges tool_call and tool_call_update in place and normalises their output.
import { idText, isRecord } from '../acp/messages.js';
import { keep } from './own-key.js';
import { anyValue, text, uncarried, type Carried } from './uncarried.js';
import type { Todo, ToolEvent, ToolStatus } from './types.js';
import { ChurnMap } from './churn.js';
import { FinishedIds } from './finished-ids.js';

/** The most tool calls a run holds: those unfinished (pending, in progress, or completed with no output yet),
 * each kept to the end of the turn to be settled, so an agent that leaves them open would fill memory (found
 * by review: 200k pending, 324 MB); and with --output-format json, which prints every tool, all of them.
 * Past it the turn is cancelled as a protocol error. */
export const MAX_HELD_TOOLS = 50_000;

type Diff = { path: string; oldText: string | null; newText: string };

// Stryker disable next-line StringLiteral: a status not listed reads as pending anyway
const STATUSES: ReadonlySet<string> = new Set(['pending', 'in_progress', 'completed', 'failed']);

// Cursor marks a new file with an `-- /dev/null` old side and a `++ b/<path>` header line on the new side.
export function cleanDiff(path: string, oldText: unknown, newText: unknown): Diff {
  const old = typeof oldText === 'string' ? oldText : null;
  let text = typeof newText === 'string' ? newText : '';
  // Only a new file carries the header; an edit whose text really starts with `++ b/` keeps its first line.
  if (old === '-- /dev/null' && text.startsWith('++ b/')) {
    const nl = text.indexOf('\n');
    text = nl === -1 ? '' : text.slice(nl + 1);
  }
  return { path, oldText: old === '-- /dev/null' ? null : old, newText: text };
}

// Collects the diffs of a content array, if it holds any.
function diffsOf(content: unknown): Diff[] | undefined {
  if (!Array.isArray(content)) return undefined;
  const diffs = content
    .filter((c): c is Record<string, unknown> => isRecord(c) && c.type === 'diff')
    .map((c) => cleanDiff(typeof c.path === 'string' ? c.path : '', c.oldText, c.newText));
  return diffs.length > 0 ? diffs : undefined;
}

// The text blocks of a content array, joined.
export function contentText(content: unknown): string | undefined {
  if (!Array.isArray(content)) return undefined;
  const texts: string[] = [];
  for (const c of content) {
    if (!isRecord(c)) continue;
    const inner = c.type === 'content' ? c.content : c;
    if (isRecord(inner) && inner.type === 'text' && typeof inner.text === 'string') texts.push(inner.text);
  }
  return texts.length > 0 ? texts.join('\n') : undefined;
}

// Normalises what a tool returned into the contract's per-kind output shape.
export function normalizeOutput(kind: string, rawOutput: unknown, content: unknown): ToolEvent['output'] {
  return outputOf(kind, rawOutput, content, diffsOf(content));
}

function outputOf(
  kind: string,
  rawOutput: unknown,
  content: unknown,
  diffs: Diff[] | undefined,
): ToolEvent['output'] {
  if (diffs) return { diffs };
  if (isRecord(rawOutput)) {
    if (isExecuteShape(kind, rawOutput)) {
      return {
        exitCode: Number.isFinite(rawOutput.exitCode) ? (rawOutput.exitCode as number) : null,
        stdout: typeof rawOutput.stdout === 'string' ? rawOutput.stdout : '',
        stderr: typeof rawOutput.stderr === 'string' ? rawOutput.stderr : '',
      };
    }
    if (isReadShape(kind, rawOutput)) return { content: rawOutput.content as string };
    return rawOutput;
  }
  // Other agents send a string (Claude's adapter for Read and Bash): the text is the output, shaped by kind.
  if (typeof rawOutput === 'string') {
    return kind === 'execute' ? { exitCode: null, stdout: rawOutput, stderr: '' } : { content: rawOutput };
  }
  // Any other JSON value (an array, a number, a boolean) is carried as it came.
  if (rawOutput !== undefined && rawOutput !== null) return rawOutput;
  const text = contentText(content);
  return text === undefined ? null : { content: text };
}

const isExecuteShape = (kind: string, raw: Record<string, unknown>): boolean =>
  kind === 'execute' && ('stdout' in raw || 'exitCode' in raw);
const isReadShape = (kind: string, raw: Record<string, unknown>): boolean =>
  kind === 'read' && typeof raw.content === 'string';

// A field the agent sent a value in (null and absent are nothing sent).
const sent = (v: unknown): boolean => v !== undefined && v !== null;

// The fields of a tool update that, null, leave the tool as it is.
const NULL_IS_NOTHING: ReadonlySet<string> = new Set([
  'kind',
  'title',
  'status',
  'rawInput',
  'locations',
  'content',
]);

/** What of one update's fields a tool event names its event does not carry, by field, as the agent sent it. */
type Rest = Record<string, unknown>;

// The keys of a rawOutput record its shaped output does not carry (undefined when it carries it whole):
// execute keeps exitCode, stdout and stderr (a null as much as a value), read its content; any other
// record is the output as it came.
function rawRest(kind: string, raw: Record<string, unknown>): Rest | undefined {
  let rest: Rest | undefined;
  if (isExecuteShape(kind, raw)) {
    for (const k in raw) {
      const v = raw[k];
      if (v === null && (k === 'exitCode' || k === 'stdout' || k === 'stderr')) continue;
      if (k === 'exitCode' ? Number.isFinite(v) : (k === 'stdout' || k === 'stderr') && typeof v === 'string')
        continue;
      rest = keep(rest, k, v);
    }
  } else if (isReadShape(kind, raw)) {
    for (const k in raw) if (k !== 'content') rest = keep(rest, k, raw[k]);
  }
  return rest;
}

// Has `o` no key but these?
function onlyKeys(o: Record<string, unknown>, a: string, b: string, c = a, d = a): boolean {
  for (const k in o) if (k !== a && k !== b && k !== c && k !== d) return false;
  return true;
}

// Does the output carry this content block whole: a diff (when the output is the diffs), or a text block
// (when it is the text)? A block with a field more than that, or of another kind, is not carried.
function carriedBlock(c: unknown, carries: 'diff' | 'text'): boolean {
  if (!isRecord(c)) return false;
  if (carries === 'diff')
    return (
      c.type === 'diff' &&
      typeof c.path === 'string' &&
      typeof c.newText === 'string' &&
      (c.oldText === undefined || c.oldText === null || typeof c.oldText === 'string') &&
      onlyKeys(c, 'type', 'path', 'oldText', 'newText')
    );
  const inner = c.type === 'content' ? c.content : c;
  if (inner !== c && !onlyKeys(c, 'type', 'content')) return false;
  return (
    isRecord(inner) &&
    inner.type === 'text' &&
    typeof inner.text === 'string' &&
    onlyKeys(inner, 'type', 'text')
  );
}

// The blocks of an update's content the output does not carry (undefined when it carries them all); content
// that is no array is carried by nothing.
function contentRest(content: unknown, carries: 'diff' | 'text' | undefined): unknown {
  if (!Array.isArray(content) || carries === undefined) return content;
  let rest: unknown[] | undefined;
  for (const c of content) if (!carriedBlock(c, carries)) (rest ??= []).push(c);
  return rest;
}

// What of an update's rawOutput and content the tool's output leaves out, added to `rest`. The output is
// made of the tool's latest rawOutput and content (which this update's replace): its diffs when the content
// holds any (a rawOutput beside them is not carried), else its rawOutput shaped by kind (the content is not
// carried), else the content's text blocks.
function outputRest(
  kind: string,
  held: Extra,
  u: Record<string, unknown>,
  diffs: boolean,
  rest: Rest | undefined,
): Rest | undefined {
  const raw = u.rawOutput;
  if (sent(raw)) {
    const left = diffs ? raw : isRecord(raw) ? rawRest(kind, raw) : undefined;
    if (left !== undefined) rest = keep(rest, 'rawOutput', left);
  }
  const content = u.content;
  if (sent(content)) {
    const rawHeld = sent(held.rawOutput);
    const left = contentRest(content, diffs ? 'diff' : rawHeld ? undefined : 'text');
    if (left !== undefined) rest = keep(rest, 'content', left);
  }
  return rest;
}

// Cursor's todo statuses arrive as TODO_STATUS_IN_PROGRESS in tool input and in_progress elsewhere.
const todoStatus = (s: string): string => s.replace(/^TODO_STATUS_/, '').toLowerCase();

// What a todo names: its id whatever it is (as text), a string content, and a status shown as sent.
const TODO_FIELDS: Readonly<Record<string, Carried>> = {
  id: anyValue,
  content: text,
  status: (v) => (v === null || (typeof v === 'string' && todoStatus(v) === v) ? undefined : v),
};

// A list's todos (entries that are no object are none). With `withExtra` (a request's todos), a todo's own
// other fields (a priority, dependencies), a content that is no string, and a status not shown as sent
// (TODO_STATUS_IN_PROGRESS, shown in_progress) are its `extra`, as the agent sent them. A tool's todos are
// read without: its input holds them whole, and its updates are the hot path.
export function normalizeTodos(value: unknown, withExtra = false): Todo[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isRecord).map((t) => {
    const todo: Todo = {
      id: idText(t.id),
      content: typeof t.content === 'string' ? t.content : '',
      status: typeof t.status === 'string' ? todoStatus(t.status) : 'pending',
    };
    const extra = withExtra ? uncarried(t, TODO_FIELDS) : undefined;
    if (extra !== undefined) todo.extra = extra;
    return todo;
  });
}

// Does merging `next` leave the input as it is: every key held already, with the same primitive value?
function sameInput(held: Record<string, unknown>, next: Record<string, unknown>): boolean {
  for (const k in next) {
    if (!Object.hasOwn(held, k)) return false;
    const v = next[k];
    if (v !== null && typeof v === 'object') return false;
    if (held[k] !== v) return false;
  }
  return true;
}

// How many keys an object from JSON.parse (or a merge of such) holds, without making an array of them: the
// tool loops below run for every tool update (for-in enumerates own keys only on such plain objects).
export function keyCount(o: Record<string, unknown>): number {
  let n = 0;
  for (const _ in o) n++;
  return n;
}

/** The most keys a tool's merged input holds: each update copies it, so the copies stay bounded. */
export const MAX_INPUT_KEYS = 1000;

// A tool's input with an update's rawInput merged in: a new object (events already written keep theirs).
// Keys beyond MAX_INPUT_KEYS are not added (the wire log still has them); an empty update copies nothing.
// An own `__proto__` key from JSON.parse stays a key, never a prototype (spread, and defineProperty).
function mergeInput(held: Record<string, unknown>, next: Record<string, unknown>): Record<string, unknown> {
  const adding = keyCount(next);
  if (adding === 0) return held;
  let room = MAX_INPUT_KEYS - keyCount(held);
  if (room >= adding) return { ...held, ...next };
  const out = { ...held };
  for (const k in next) {
    const known = Object.hasOwn(out, k);
    if (!known && room <= 0) continue;
    if (!known) room--;
    keep(out, k, next[k]);
  }
  return out;
}

// An ACP location, {path, line?}: an entry without a string path (or with a line that is no finite number:
// 1e400 parses as Infinity, written back as null) is not one, and would break the event's published schema.
const isLocation = (l: unknown): l is ToolEvent['locations'][number] =>
  isRecord(l) && typeof l.path === 'string' && (l.line === undefined || Number.isFinite(l.line));

interface Extra {
  rawOutput: unknown;
  content: unknown;
  reported: string;
  verdict: 'rejected' | 'cancelled' | undefined;
  /** The kind the tool was announced with (its first tool_call, never a tool_call_update), as sent. */
  announced?: { kind: unknown };
}

/** A tool held by the store: its state so far, and what is kept beside it to settle its status. */
interface Held {
  tool: ToolEvent;
  extra: Extra;
}

/** What the run needs of every tool once it is finished (summary counts, --strict, --max-tool-calls). */
export interface ToolFacts {
  /** Tool calls announced so far (each toolCallId once while it is held). */
  calls: number;
  /** Tools that reached a final status, by that status. */
  finished: Record<'completed' | 'failed' | 'rejected' | 'cancelled', number>;
}

const FINAL: ReadonlySet<string> = new Set(['completed', 'failed', 'rejected', 'cancelled']);

export class ToolStore {
  // Each tool held, with what the store keeps beside it; a ChurnMap, as a tool is added and retired in a
  // moment, 200k times in a long turn (churn.ts says why).
  private readonly entries = new ChurnMap<string, Held>();
  private readonly verdicts = new ChurnMap<string, 'rejected' | 'cancelled'>();
  private readonly counts: ToolFacts = {
    calls: 0,
    finished: { completed: 0, failed: 0, rejected: 0, cancelled: 0 },
  };
  /** The ids of the tools that finished, in every output format: a permission request for one is rejected
   * (finished-ids.ts), so the decision never depends on whether the tool is still held. */
  readonly finishedIds = new FinishedIds();

  /**
   * keepFinished: hold every tool's whole state to the end (the json output prints them all); without it a
   * tool that reaches a final status is forgotten once returned, and only its counts remain, so memory
   * stays flat however many tools a turn runs (text and stream-json never need a finished tool again).
   */
  constructor(private readonly keepFinished = true) {}

  // Is u an update of a tool that finished and was let go (text and stream-json)? Applied, it would start a blank
  // pending tool and count a new call (found by review: `--max-tool-calls 1` then failed in those formats and
  // not in json, and the tool read cancelled). A false yes of the filter (rare, finished-ids.ts) is such an
  // update for a new id sent before its tool_call.
  lateForFinished(u: Record<string, unknown>): boolean {
    if (this.keepFinished || u.sessionUpdate !== 'tool_call_update') return false;
    const id = idText(u.toolCallId);
    return !this.entries.has(id) && this.finishedIds.has(id);
  }

  // apply, unless the store is past MAX_HELD_TOOLS (the turn is being stopped: RunObserver) and u updates a
  // call it does not hold: that makes nothing, where apply would start a blank state and count one more call.
  take(u: Record<string, unknown>): ToolEvent | undefined {
    if (this.entries.size <= MAX_HELD_TOOLS || u.sessionUpdate === 'tool_call') return this.apply(u);
    return this.entries.has(idText(u.toolCallId)) ? this.apply(u) : undefined;
  }

  // Merges one tool_call or tool_call_update and returns the whole state so far, as a snapshot: an event
  // once emitted never changes (a later update is a new snapshot).
  apply(u: Record<string, unknown>): ToolEvent {
    const id = idText(u.toolCallId);
    let held = this.entries.get(id);
    if (!held) {
      // Past the bound a new call is shown once but not held.
      const full = this.entries.size > MAX_HELD_TOOLS;
      const tool: ToolEvent = {
        type: 'tool',
        toolCallId: id,
        kind: 'other',
        title: '',
        // Stryker disable next-line StringLiteral: settleStatus below sets it from `reported`
        status: 'pending',
        input: {},
        output: null,
        locations: [],
      };
      const extra: Extra = {
        rawOutput: undefined,
        content: undefined,
        // Stryker disable next-line StringLiteral: a status not in STATUSES reads as pending
        reported: 'pending',
        verdict: this.verdicts.get(id),
      };
      held = { tool, extra };
      if (!full) this.entries.set(id, held);
      this.counts.calls++;
    }
    const { tool, extra } = held;
    // A request is judged by this kind: a later update or a second tool_call cannot change it.
    if (extra.announced === undefined && u.sessionUpdate !== 'tool_call_update')
      extra.announced = { kind: u.kind };
    // A field the event cannot carry (a title that is no string, locations that are none) is kept in `rest`,
    // as sent, for the event's `extra`; a null is nothing sent.
    let rest: Rest | undefined;
    if (typeof u.kind === 'string') tool.kind = u.kind;
    else if (sent(u.kind)) rest = keep(rest, 'kind', u.kind);
    if (typeof u.title === 'string') tool.title = u.title;
    else if (sent(u.title)) rest = keep(rest, 'title', u.title);
    if (isRecord(u.rawInput)) tool.input = mergeInput(tool.input, u.rawInput);
    else if (sent(u.rawInput)) rest = keep(rest, 'rawInput', u.rawInput);
    if (Array.isArray(u.locations)) {
      const locations = u.locations.filter(isLocation);
      if (locations.length < u.locations.length)
        rest = keep(
          rest,
          'locations',
          u.locations.filter((l) => !isLocation(l)),
        );
      tool.locations = locations;
    } else if (sent(u.locations)) rest = keep(rest, 'locations', u.locations);
    if (typeof u.status === 'string') {
      extra.reported = u.status;
      // A status ACP does not name reads as pending; its value is kept, as sent, in the event's `extra`
      // (found by review: `"status": "cancelled"` was shown pending and its value was lost).
      if (!STATUSES.has(u.status)) rest = keep(rest, 'status', u.status);
    } else if (sent(u.status)) rest = keep(rest, 'status', u.status);
    if (u.rawOutput !== undefined) extra.rawOutput = u.rawOutput;
    if (u.content !== undefined && u.content !== null) extra.content = u.content;
    const diffs = diffsOf(extra.content);
    tool.output = outputOf(tool.kind, extra.rawOutput, extra.content, diffs);
    if (sent(u.rawOutput) || sent(u.content))
      rest = outputRest(tool.kind, extra, u, diffs !== undefined, rest);
    this.settleStatus(tool, extra);
    this.retireIfFinished(held);
    // The snapshot, with what of this update it could not carry (the event's `extra`: updates.ts adds the
    // update's unnamed fields to it).
    const snapshot: ToolEvent = { ...tool };
    if (rest !== undefined) snapshot.extra = rest;
    return snapshot;
  }

  // Would the update change nothing of a tool already held (a field that is null, or one with the value the
  // tool has: its kind, title or status again, input keys it holds with those primitive values)? Such an
  // update makes no event: every event carries the whole state, so a stream of them after one large input
  // would write that input again each time (a hostile agent's 1 MB input and 4k bare updates: 4 GB). Any
  // field it does not know, an output, content or locations count as a change, and so does a field of a
  // type the event cannot carry (a title that is an object): its event carries it as `extra`.
  unchangedBy(u: Record<string, unknown>): boolean {
    const held = this.entries.get(idText(u.toolCallId));
    if (!held) return false;
    const { tool, extra } = held;
    for (const k in u) {
      const v = u[k];
      if (k === 'toolCallId' || k === 'sessionUpdate') continue;
      // A null field the event names is nothing sent (a null rawOutput clears the output); a value of
      // another type than the event's field is carried as `extra`, as is any field it does not name.
      if (!sent(v) && NULL_IS_NOTHING.has(k)) continue;
      if (k === 'kind' && v === tool.kind) continue;
      if (k === 'title' && v === tool.title) continue;
      if (k === 'status' && v === extra.reported) continue;
      if (k === 'rawInput' && isRecord(v) && sameInput(tool.input, v)) continue;
      if (k === 'rawOutput' && v === undefined) continue;
      return false;
    }
    return true;
  }

  // Records that the tool's permission request was rejected or cancelled, so its "completed" is corrected.
  markVerdict(toolCallId: string, verdict: 'rejected' | 'cancelled'): ToolEvent | undefined {
    this.verdicts.set(toolCallId, verdict);
    const held = this.entries.get(toolCallId);
    if (!held) return undefined;
    held.extra.verdict = verdict;
    this.settleStatus(held.tool, held.extra);
    this.retireIfFinished(held);
    return { ...held.tool };
  }

  // The turn is over: every tool still pending or in progress gets its final state, returned as snapshots.
  // One whose request rho-cursor rejected did not run: rejected. Any other was cancelled; when the run was not
  // stopped (the agent left it unfinished), the agent's last word is kept as reportedStatus.
  close(stopped: boolean): ToolEvent[] {
    const closed: ToolEvent[] = [];
    for (const { tool: t } of this.entries.values()) {
      if (t.status !== 'pending' && t.status !== 'in_progress') continue;
      const verdict = this.verdicts.get(t.toolCallId) === 'rejected' ? 'rejected' : 'cancelled';
      if (verdict === 'rejected' || !stopped) t.reportedStatus = t.status;
      t.status = verdict;
      closed.push({ ...t });
    }
    return closed;
  }

  // The answer rho-cursor gave the tool's permission request, if it rejected or cancelled it.
  verdictOf(toolCallId: string): 'rejected' | 'cancelled' | undefined {
    return this.verdicts.get(toolCallId);
  }

  /** How many tool calls the store has started (a new toolCallId each). */
  get calls(): number {
    return this.counts.calls;
  }

  // The kind the tool was announced with (its first tool_call), as sent; undefined when no tool_call announced it.
  announcedKind(toolCallId: string): { kind: unknown } | undefined {
    return this.entries.get(toolCallId)?.extra.announced;
  }

  get(toolCallId: string): Readonly<ToolEvent> | undefined {
    return this.entries.get(toolCallId)?.tool;
  }

  // Snapshots of the tools held (all of them with keepFinished; else those not yet finished).
  all(): ToolEvent[] {
    return [...this.entries.values()].map(({ tool }) => ({ ...tool }));
  }

  /** How many tools are held: without keepFinished, those not yet settled (pending, in progress, completed
   * with no output yet); with it (json), every one. */
  get held(): number {
    return this.entries.size;
  }

  todosOf(tool: ToolEvent): Todo[] | undefined {
    return tool.input._toolName === 'updateTodos' && Array.isArray(tool.input.todos)
      ? normalizeTodos(tool.input.todos)
      : undefined;
  }

  // The counts of every tool so far: kept as counts once tools are let go, else read from the held states.
  facts(): ToolFacts {
    const finished = { ...this.counts.finished };
    if (this.keepFinished)
      for (const { tool: t } of this.entries.values())
        if (FINAL.has(t.status)) finished[t.status as keyof ToolFacts['finished']]++;
    return { calls: this.counts.calls, finished };
  }

  // Counts a tool that reached a final status and, unless the json output needs it, lets it go. One that
  // Cursor reports completed with no output stays (small): a rejection may still arrive and correct it. So
  // does one only our verdict finished while the agent still reports it pending: its update may yet come.
  private retireIfFinished({ tool, extra }: Held): void {
    if (!FINAL.has(tool.status)) return;
    if (!FINAL.has(extra.reported)) return;
    if (tool.status === 'completed' && tool.output === null && !extra.verdict) return;
    this.finishedIds.add(tool.toolCallId);
    if (this.keepFinished) return;
    this.counts.finished[tool.status as keyof ToolFacts['finished']]++;
    this.entries.delete(tool.toolCallId);
    this.verdicts.delete(tool.toolCallId);
  }

  // A rejected tool that Cursor reports "completed" with no output did not run: say so. Nor does one still
  // pending, which an agent may never update again (the SDK's example agent does not).
  private settleStatus(tool: ToolEvent, extra: Extra): void {
    const reported = STATUSES.has(extra.reported) ? (extra.reported as ToolStatus) : 'pending';
    const didNotRun = reported === 'pending' || (reported === 'completed' && tool.output === null);
    if (extra.verdict && didNotRun) {
      tool.status = extra.verdict;
      tool.reportedStatus = reported;
    } else {
      tool.status = reported;
      delete tool.reportedStatus;
    }
  }
}
