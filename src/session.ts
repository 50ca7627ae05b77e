// Pure: what initialize and session/new answered, read leniently into the run's session facts.
import { isRecord, str } from './acp/messages.js';
import { RhoError } from './errors.js';
import { cutEnd } from './sanitize/cut.js';
import { offeredModes, readChoices } from './session-choices.js';

export interface SessionFacts {
  sessionId: string;
  model: string | null;
  mode: string | null;
  modes: string[];
  agent: { name: string | null; title: string | null; version: string | null };
}

// Reads the session id, the resolved model, the modes and the agent's name; no sessionId breaks the protocol.
export function readSession(initResult: unknown, session: unknown): SessionFacts {
  const s = isRecord(session) ? session : {};
  if (typeof s.sessionId !== 'string')
    throw new RhoError('protocol', 'session/new answered without a sessionId');
  const info = isRecord(initResult) && isRecord(initResult.agentInfo) ? initResult.agentInfo : {};
  // The model and mode may be reported in configOptions alone (Codex).
  const c = readChoices(s);
  return {
    sessionId: s.sessionId,
    model: c.currentModel,
    mode: c.currentMode,
    modes: offeredModes(c),
    agent: { name: str(info.name), title: str(info.title), version: str(info.version) },
  };
}

// Cursor reports some API failures as reply text and still ends the turn normally (the table is in acp/).
export { replyReadsAsError } from './acp/api-errors.js';

/** One of the workspace's sessions, as session/list gives it. */
export interface SessionInfo {
  sessionId: string;
  title: string | null;
  updatedAt: string | null;
  cwd: string | null;
}

// What the agent's initialize says it can do with sessions: load one (loadSession), list them.
export function sessionCaps(initResult: unknown): { load: boolean; list: boolean } {
  const caps =
    isRecord(initResult) && isRecord(initResult.agentCapabilities) ? initResult.agentCapabilities : {};
  const sessions = isRecord(caps.sessionCapabilities) ? caps.sessionCapabilities : {};
  return { load: caps.loadSession === true, list: sessions.list !== undefined && sessions.list !== null };
}

/** The longest session id or cwd taken: no path is longer (PATH_MAX), nor is an id anyone could type. */
export const MAX_SESSION_FIELD = 4096;
/** A title is kept to this many characters (text mode shows 240 of them); an updatedAt longer than this
 * is no time. */
export const MAX_SESSION_TITLE = 1000;
const MAX_UPDATED_AT = 64;

// One page of session/list: the sessions it names (entries without a usable sessionId or with a cwd no path
// could have skipped; titles cut) and the next cursor.
export function readSessionPage(result: unknown): { sessions: SessionInfo[]; nextCursor: string | null } {
  const r = isRecord(result) ? result : {};
  const sessions: SessionInfo[] = [];
  for (const x of Array.isArray(r.sessions) ? r.sessions : []) {
    if (!isRecord(x) || typeof x.sessionId !== 'string' || x.sessionId === '') continue;
    if (x.sessionId.length > MAX_SESSION_FIELD) continue;
    const cwd = str(x.cwd);
    if (cwd !== null && cwd.length > MAX_SESSION_FIELD) continue;
    const title = str(x.title);
    const updatedAt = str(x.updatedAt);
    sessions.push({
      sessionId: x.sessionId,
      title: title === null ? null : cutEnd(title, MAX_SESSION_TITLE),
      updatedAt: updatedAt !== null && updatedAt.length <= MAX_UPDATED_AT ? updatedAt : null,
      cwd,
    });
  }
  return {
    sessions,
    nextCursor: typeof r.nextCursor === 'string' && r.nextCursor !== '' ? r.nextCursor : null,
  };
}

/** session/list pages read at most: a guard against an agent whose cursor never ends. */
export const MAX_LIST_PAGES = 50;

/** What is said when the agent had more pages than that (a warning, `sessions-truncated`). */
export const TRUNCATED_SESSIONS = `the agent lists more than ${MAX_LIST_PAGES} pages of sessions: only the first ${MAX_LIST_PAGES} were read, and a newer session may be among the rest`;

/** The workspace's sessions kept at most, the newest: memory stays bounded however many the agent lists
 * (found by review: 130,000 in one page overflowed the stack, millions ran the heap out). */
export const MAX_SESSIONS_KEPT = 1000;

/** What is said when the workspace had more sessions than that (also `sessions-truncated`). */
export const TOO_MANY_SESSIONS = `the agent lists more than ${MAX_SESSIONS_KEPT} sessions for this workspace: only the newest ${MAX_SESSIONS_KEPT} are kept`;

/** Which sessions are the workspace's: `ask` is the cwd session/list is asked to filter by (none: every
 * session is listed), `belongs` judges each listed session's cwd. One that names none is taken only when
 * the agent was asked for this workspace's: listed unfiltered, it could be any project's. */
export interface SessionScope {
  ask: string | undefined;
  belongs(cwd: string): boolean;
}

/** The sessions of one directory. */
export const sessionsOf = (cwd: string): SessionScope => ({ ask: cwd, belongs: (c) => c === cwd });

// Every page of session/list for the workspace (sessions the agent places elsewhere left out), the newest
// MAX_SESSIONS_KEPT, newest first. `truncated` is told why when some were left unread (the agent still had
// pages after MAX_LIST_PAGES: the newest may be among them) or unkept (more than MAX_SESSIONS_KEPT).
export async function workspaceSessions(
  list: (params: Record<string, unknown>) => Promise<unknown>,
  scope: SessionScope,
  truncated: (why: string) => void = () => {},
): Promise<SessionInfo[]> {
  let kept: SessionInfo[] = [];
  let dropped = false;
  let cursor: string | null = null;
  // A session listed again (an agent whose pages repeat, or whose nextCursor never moves) is listed once, as
  // it came first (found by review: one session was listed 50 times).
  const seen = new Set<string>();
  const base = scope.ask === undefined ? {} : { cwd: scope.ask };
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const r = readSessionPage(await list(cursor === null ? base : { ...base, cursor }));
    for (const x of r.sessions) {
      if (x.cwd === null ? scope.ask === undefined : !scope.belongs(x.cwd)) continue;
      if (seen.has(x.sessionId)) continue;
      seen.add(x.sessionId);
      kept.push(x);
      // Sorted and cut once twice the bound is held: the newest stay, at a sort per MAX_SESSIONS_KEPT.
      if (kept.length === 2 * MAX_SESSIONS_KEPT) {
        kept = newestFirst(kept).slice(0, MAX_SESSIONS_KEPT);
        dropped = true;
      }
    }
    cursor = r.nextCursor;
    if (cursor === null) break;
  }
  if (cursor !== null) truncated(TRUNCATED_SESSIONS);
  const sorted = newestFirst(kept);
  if (dropped || sorted.length > MAX_SESSIONS_KEPT) truncated(TOO_MANY_SESSIONS);
  return sorted.slice(0, MAX_SESSIONS_KEPT);
}

// Newest first by updatedAt (ISO 8601 compares as text once parsed; unknown times last), else as listed.
export function newestFirst(sessions: readonly SessionInfo[]): SessionInfo[] {
  const time = (s: SessionInfo): number => {
    const t = s.updatedAt === null ? NaN : Date.parse(s.updatedAt);
    return Number.isNaN(t) ? -Infinity : t;
  };
  return sessions
    .map((s, i) => ({ s, i }))
    .sort((a, b) => time(b.s) - time(a.s) || a.i - b.i)
    .map(({ s }) => s);
}
