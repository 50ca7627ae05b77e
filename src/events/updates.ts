// Pure: one session/update notification -> the contract's events, merging tool state in the store.
import { isRecord, str } from '../acp/messages.js';
import { selectOption } from '../session-choices.js';
import { contentRef } from './content.js';
import { keep } from './own-key.js';
import type { Event, ExtensionEvent, ResultEvent, Todo, TodosEvent, WarningEvent } from './types.js';
import type { ToolStore } from './tools.js';

export type Usage = NonNullable<ResultEvent['usage']>;

export interface UpdateContext {
  tools: ToolStore;
  /** The last todos emitted, to avoid repeating an unchanged list on every tool update. */
  lastTodos: string;
  title: string | null;
  /** The session's current mode; changed only by noteMode. */
  readonly mode: string | null;
  /** The model in use: the session's, the one --model set, then the one a config_option_update reports. */
  model?: string | null;
  /** This run's session once session/new answered (null before): an update for any other, or before, is not
   * this run's. Undefined: no session is tracked, and every update is taken as this run's. */
  sessionId?: string | null;
  /** The last usage_update, reported as result.usage. */
  usage?: Usage | null;
  /** Other sessions already warned about, so a chatty one warns once. */
  foreign?: Set<string>;
}

// The one writer of the session's mode, for its sources: the handshake's answer, a set_mode the agent
// confirmed, and the agent's own current_mode_update or config_option_update. Says whether the mode changed.
export function noteMode(ctx: UpdateContext, mode: string | null): boolean {
  if (ctx.mode === mode) return false;
  (ctx as { mode: string | null }).mode = mode;
  return true;
}

// Any agent message the contract does not name, kept whole; absent params become null (valid JSON-RPC).
export function extension(method: string, params: unknown): ExtensionEvent {
  return { type: 'extension', method, params: params ?? null };
}

// The fields each known update kind's event names (ACP v1); anything else the agent sent is kept as `extra`.
// Sets: each field of every update is looked up here.
const TOOL_FIELDS = [
  'toolCallId',
  'title',
  'kind',
  'status',
  'content',
  'locations',
  'rawInput',
  'rawOutput',
];
const NAMED: Record<string, ReadonlySet<string>> = {
  agent_message_chunk: new Set(['content']),
  agent_thought_chunk: new Set(['content']),
  tool_call: new Set(TOOL_FIELDS),
  tool_call_update: new Set(TOOL_FIELDS),
  plan: new Set(['entries']),
  current_mode_update: new Set(['currentModeId', 'modeId']),
  // Its configOptions are carried whole in the mode event's extra: they hold more than the mode.
  config_option_update: new Set(),
  notice: new Set(['severity', 'level', 'title', 'description']),
};
const NONE: ReadonlySet<string> = new Set();

// Pure: what an update (and its params) carried beyond the fields its event names; undefined when nothing.
export function extraFields(
  params: Record<string, unknown>,
  update: Record<string, unknown>,
): Record<string, unknown> | undefined {
  const kind = update.sessionUpdate;
  const named = typeof kind === 'string' && Object.hasOwn(NAMED, kind) ? NAMED[kind]! : NONE;
  let extra: Record<string, unknown> | undefined;
  // for-in, not Object.keys: no array made for every update (a turn of 100k tool updates: ~24 MB less to
  // collect). Both objects come from JSON.parse: plain, with no inherited key to enumerate.
  for (const k in update) {
    if (k === 'sessionUpdate' || named.has(k)) continue;
    // Defined, not assigned (own-key.ts): an own `__proto__` key stays a key.
    extra = keep(extra, k, update[k]);
  }
  return paramsExtra(params, extra);
}

// The params' own fields beyond the session and the update, as `params.<name>`, added to extra (undefined when
// there are none and no extra): a live update's and a replayed one's alike.
export function paramsExtra(
  params: Record<string, unknown>,
  extra?: Record<string, unknown>,
): Record<string, unknown> | undefined {
  for (const k in params) {
    if (k === 'sessionId' || k === 'update') continue;
    (extra ??= {})[`params.${k}`] = params[k];
  }
  return extra;
}

// Do the params carry nothing but the session and the update?
function onlyUpdate(params: Record<string, unknown>): boolean {
  for (const k in params) if (k !== 'sessionId' && k !== 'update') return false;
  return true;
}

// Converts a session/update's params into events (usually one); unknown kinds pass through as `extension`.
// A known kind's fields the event does not name ride along as `extra` on its first event (the event of the
// update itself: a tool's, not the todos after it), beside what that event already holds in `extra` (what of
// a named field it could not carry). An update whose fields make no change makes no event only when it
// carries nothing else.
export function eventsFromUpdate(params: unknown, ctx: UpdateContext): Event[] {
  const events = eventsOf(params, ctx);
  if (!isRecord(params) || !isRecord(params.update)) return events;
  const first = events[0];
  const kind = params.update.sessionUpdate;
  const named = typeof kind === 'string' && Object.hasOwn(NAMED, kind);
  if (!named || first === undefined) return events;
  for (const e of events) if (e.type === 'extension') return events;
  const extra = extraFields(params, params.update);
  if (extra === undefined) return events;
  // A copy: a tool event is the store's live state, and its extras belong to this update alone.
  const held = (first as { extra?: Record<string, unknown> }).extra;
  events[0] = { ...first, extra: held === undefined ? extra : { ...extra, ...held } } as Event;
  return events;
}

function eventsOf(params: unknown, ctx: UpdateContext): Event[] {
  const raw = (): Event[] => [extension('session/update', params)];
  if (!isRecord(params) || !isRecord(params.update)) return raw();
  const update = params.update;
  const foreign = foreignSession(params, ctx);
  if (foreign !== undefined) return foreign;
  switch (update.sessionUpdate) {
    case 'agent_message_chunk':
    case 'agent_thought_chunk': {
      const type = update.sessionUpdate === 'agent_message_chunk' ? 'message' : 'thought';
      const content = update.content;
      // What of the block the event does not carry (annotations, _meta, an image's data, a blob, a size) is
      // in extra.content, the block as sent (found by review: it was dropped).
      if (isRecord(content) && content.type === 'text' && typeof content.text === 'string') {
        return [
          withExtra({ type, text: content.text }, onlyKeys(content, TEXT_KEYS) ? undefined : { content }),
        ];
      }
      const ref = contentRef(content);
      if (!ref) return raw();
      return [
        withExtra(
          { type, text: ref.text, content: ref.content },
          refHoldsAll(content) ? undefined : { content },
        ),
      ];
    }
    case 'tool_call':
    case 'tool_call_update': {
      // An update of a tool already finished and let go is kept as it came, an extension event: it starts no
      // new call (tools.ts lateForFinished).
      if (ctx.tools.lateForFinished(update)) return raw();
      // An update that changes nothing makes no event (tools.ts), unless its params carry more than the update.
      if (ctx.tools.unchangedBy(update) && onlyUpdate(params)) return [];
      const tool = ctx.tools.take(update);
      if (tool === undefined) return [];
      const events: Event[] = [tool];
      const todos = ctx.tools.todosOf(tool);
      if (todos && todos.length > 0) {
        const key = JSON.stringify(todos);
        if (key !== ctx.lastTodos) {
          ctx.lastTodos = key;
          events.push({ type: 'todos', todos, source: 'tool' });
        }
      }
      return events;
    }
    case 'plan':
      return planTodos(params, update, ctx) ?? raw();
    case 'current_mode_update': {
      const mode = str(update.currentModeId) ?? str(update.modeId);
      if (mode === null) return raw();
      noteMode(ctx, mode);
      // The one of the two the event does not carry, when sent (found by review: it was dropped).
      return [withExtra({ type: 'mode', mode }, uncarried(update, ['currentModeId', 'modeId']))];
    }
    case 'config_option_update':
      return configOptionMode(update, ctx) ?? raw();
    case 'session_info_update':
      if (typeof update.title === 'string') ctx.title = update.title;
      return raw();
    case 'usage_update':
      ctx.usage = readUsage(update) ?? ctx.usage ?? null;
      return raw();
    case 'notice':
      return noticeWarning(update) ?? raw();
    default:
      return raw();
  }
}

// Another session's name, when a message's sessionId is not this run's (`mine`: undefined before the run
// knows of sessions, null before session/new answered); undefined when it is this run's. Only this run's own
// id is ours: another id, a sessionId that is no string or none, and anything before session/new answered
// are not (found by review: 42, null and none rendered as the answer). `was`: how the notice says it.
export function foreignSessionOf(
  mine: string | null | undefined,
  theirs: unknown,
): { named: string; was: string } | undefined {
  if (mine === undefined || (typeof mine === 'string' && theirs === mine)) return undefined;
  return {
    named: typeof theirs === 'string' ? theirs : (JSON.stringify(theirs) ?? 'none'),
    was: mine === null ? "before this run's session was known" : `not ${mine}`,
  };
}

// An update that is not for this run's session: a warning (once per session) and the update kept raw, never
// rendered as ours.
function foreignSession(params: Record<string, unknown>, ctx: UpdateContext): Event[] | undefined {
  const foreign = foreignSessionOf(ctx.sessionId, params.sessionId);
  if (!foreign) return undefined;
  const seen = (ctx.foreign ??= new Set());
  const events: Event[] = [];
  if (!seen.has(foreign.named)) {
    seen.add(foreign.named);
    events.push({
      type: 'warning',
      code: 'foreign-session-update',
      message: `the agent sent updates for another session (${foreign.named}, ${foreign.was}): kept as extension events, not shown as this run's answer`,
    });
  }
  events.push(extension('session/update', params));
  return events;
}

// ACP `plan` entries become the todo list; an entry's id is its position, as ACP plans have none. An
// entry's fields its todo does not name (or a content, status or priority of another type) are the todo's
// `extra`; entries that are no object, the event's `extra.entries`. The same list again makes no event,
// unless the update carries more than its entries (its `extra` then has a place to go).
function planTodos(
  params: Record<string, unknown>,
  update: Record<string, unknown>,
  ctx: UpdateContext,
): Event[] | undefined {
  const entries = update.entries;
  if (!Array.isArray(entries)) return undefined;
  const todos: Todo[] = [];
  let others: unknown[] | undefined;
  for (const e of entries) {
    if (!isRecord(e)) {
      (others ??= []).push(e);
      continue;
    }
    const todo: Todo = {
      id: String(todos.length + 1),
      content: str(e.content) ?? '',
      status: str(e.status) ?? 'pending',
      ...(typeof e.priority === 'string' ? { priority: e.priority } : {}),
    };
    const extra = entryExtra(e);
    if (extra !== undefined) todo.extra = extra;
    todos.push(todo);
  }
  const key = JSON.stringify(todos);
  if (key === ctx.lastTodos && others === undefined && onlyEntries(update) && onlyUpdate(params)) return [];
  ctx.lastTodos = key;
  const event: TodosEvent = { type: 'todos', todos, source: 'plan' };
  if (others !== undefined) event.extra = { entries: others };
  return [event];
}

// A plan entry's fields its todo does not carry, as sent; undefined when it carries them all.
function entryExtra(e: Record<string, unknown>): Record<string, unknown> | undefined {
  let extra: Record<string, unknown> | undefined;
  for (const k in e) {
    const v = e[k];
    const named = k === 'content' || k === 'status' || k === 'priority';
    if (named && (typeof v === 'string' || v === null)) continue;
    extra = keep(extra, k, v);
  }
  return extra;
}

// Does a plan update carry nothing but its entries?
function onlyEntries(update: Record<string, unknown>): boolean {
  for (const k in update) if (k !== 'sessionUpdate' && k !== 'entries') return false;
  return true;
}

// usage_update {used, size, cost}: the fields the result reports. A null or absent field is left out and the
// others kept (Claude's adapter sends `used: null` beside size and cost); a field of another type makes the
// update malformed, and it is ignored, as is one that carries nothing. A number JSON cannot write back
// (1e400 parses as Infinity, and would be written null where the schema says number) is of another type.
export function readUsage(update: Record<string, unknown>): Usage | undefined {
  const usage: Usage = {};
  for (const k of ['used', 'size'] as const) {
    const v = update[k];
    if (Number.isFinite(v)) usage[k] = v as number;
    else if (v !== null && v !== undefined) return undefined;
  }
  const c = update.cost;
  if (isRecord(c) && Number.isFinite(c.amount) && typeof c.currency === 'string')
    usage.cost = { amount: c.amount as number, currency: c.currency };
  else if (c !== null && c !== undefined) return undefined;
  return Object.keys(usage).length > 0 ? usage : undefined;
}

// config_option_update: the agent's options as they now stand (Codex switching mode or model), read as the
// handshake reads session/new's configOptions. The model is the result's; a mode that changed is a `mode`
// event, the options whole in its extra (eventsFromUpdate); with no new mode the update stays an extension.
function configOptionMode(update: Record<string, unknown>, ctx: UpdateContext): Event[] | undefined {
  const model = selectOption(update.configOptions, 'model')?.current ?? null;
  if (model !== null) ctx.model = model;
  const mode = selectOption(update.configOptions, 'mode')?.current ?? null;
  if (mode === null || !noteMode(ctx, mode)) return undefined;
  return [{ type: 'mode', mode }];
}

// A notice of severity warning or error is something the person must see: a warning event.
function noticeWarning(update: Record<string, unknown>): Event[] | undefined {
  const severity = str(update.severity) ?? str(update.level);
  if (severity !== 'warning' && severity !== 'error') return undefined;
  const title = str(update.title) ?? '';
  const description = str(update.description);
  const warning: WarningEvent = {
    type: 'warning',
    code: severity === 'error' ? 'agent-error' : 'agent-warning',
    message: `the agent reports ${severity === 'error' ? 'an error' : 'a warning'}: ${title}${description ? ` (${description})` : ''}`,
  };
  // What the message does not carry: the second of severity and level, a title or description that is no
  // string (found by review: they were dropped).
  const extra: Record<string, unknown> = { ...uncarried(update, ['severity', 'level']) };
  for (const k of ['title', 'description'])
    if (update[k] !== undefined && update[k] !== null && typeof update[k] !== 'string') extra[k] = update[k];
  return [withExtra(warning, Object.keys(extra).length > 0 ? extra : undefined)];
}

// Of two fields where the first string wins, those sent that are not it (a later one, or one that is no
// string), as sent; undefined when none.
function uncarried(
  update: Record<string, unknown>,
  fields: readonly string[],
): Record<string, unknown> | undefined {
  let extra: Record<string, unknown> | undefined;
  let taken = false;
  for (const k of fields) {
    const v = update[k];
    if (v === undefined || v === null) continue;
    if (!taken && typeof v === 'string') taken = true;
    else (extra ??= {})[k] = v;
  }
  return extra;
}

// An event with its extra, when there is one.
function withExtra<E extends Event>(e: E, extra: Record<string, unknown> | undefined): E {
  return extra === undefined ? e : { ...e, extra };
}

const TEXT_KEYS: ReadonlySet<string> = new Set(['type', 'text']);
const REF_KEYS: ReadonlySet<string> = new Set(['type', 'name', 'title', 'uri', 'mimeType', 'resource']);
const RESOURCE_KEYS: ReadonlySet<string> = new Set(['uri', 'mimeType', 'text']);

// Has the object no keys but these?
function onlyKeys(o: Record<string, unknown>, keys: ReadonlySet<string>): boolean {
  for (const k in o) if (!keys.has(k)) return false;
  return true;
}

// Does contentRef's event hold all of a non-text block: its kind, name, uri, mime type and a resource's text?
function refHoldsAll(block: unknown): boolean {
  if (!isRecord(block) || !onlyKeys(block, REF_KEYS)) return false;
  const strings = (o: Record<string, unknown>, keys: readonly string[]): boolean =>
    keys.every((k) => o[k] === undefined || typeof o[k] === 'string');
  if (!strings(block, ['type', 'name', 'title', 'uri', 'mimeType'])) return false;
  // title is carried as the name only when there is no name.
  if (block.name !== undefined && block.title !== undefined) return false;
  if (block.type !== 'resource') return block.resource === undefined;
  // A resource's uri and mime type are read from its resource, never from the block.
  if (block.uri !== undefined || block.mimeType !== undefined) return false;
  const r = block.resource;
  return isRecord(r) && onlyKeys(r, RESOURCE_KEYS) && strings(r, ['uri', 'mimeType', 'text']);
}
