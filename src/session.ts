// Pure: what initialize and session/new answered, read leniently into the run's session facts.
import { isRecord, str } from './acp/messages.js';
import { RhoError } from './errors.js';
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

// One page of session/list: the sessions it names (entries without a sessionId skipped) and the next cursor.
export function readSessionPage(result: unknown): { sessions: SessionInfo[]; nextCursor: string | null } {
  const r = isRecord(result) ? result : {};
  const sessions = (Array.isArray(r.sessions) ? r.sessions : [])
    .filter(isRecord)
    .filter((x) => typeof x.sessionId === 'string' && x.sessionId !== '')
    .map((x) => ({
      sessionId: x.sessionId as string,
      title: str(x.title),
      updatedAt: str(x.updatedAt),
      cwd: str(x.cwd),
    }));
  return {
    sessions,
    nextCursor: typeof r.nextCursor === 'string' && r.nextCursor !== '' ? r.nextCursor : null,
  };
}

/** session/list pages read at most: a guard against an agent whose cursor never ends. */
export const MAX_LIST_PAGES = 50;

/** What is said when the agent had more pages than that (a warning, `sessions-truncated`). */
export const TRUNCATED_SESSIONS = `the agent lists more than ${MAX_LIST_PAGES} pages of sessions: only the first ${MAX_LIST_PAGES} were read, and a newer session may be among the rest`;

/** Which sessions are the workspace's: `ask` is the cwd session/list is asked to filter by (none: every
 * session is listed), `belongs` judges each listed session's cwd. One that names none is taken only when
 * the agent was asked for this workspace's: listed unfiltered, it could be any project's. */
export interface SessionScope {
  ask: string | undefined;
  belongs(cwd: string): boolean;
}

/** The sessions of one directory. */
export const sessionsOf = (cwd: string): SessionScope => ({ ask: cwd, belongs: (c) => c === cwd });

// Every page of session/list for the workspace (sessions the agent places elsewhere left out), newest first.
// `truncated`: told when the agent still had pages after MAX_LIST_PAGES (the newest may be among them).
export async function workspaceSessions(
  list: (params: Record<string, unknown>) => Promise<unknown>,
  scope: SessionScope,
  truncated: () => void = () => {},
): Promise<SessionInfo[]> {
  const all: SessionInfo[] = [];
  let cursor: string | null = null;
  const base = scope.ask === undefined ? {} : { cwd: scope.ask };
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const r = readSessionPage(await list(cursor === null ? base : { ...base, cursor }));
    all.push(...r.sessions.filter((x) => (x.cwd === null ? scope.ask !== undefined : scope.belongs(x.cwd))));
    cursor = r.nextCursor;
    if (cursor === null) break;
  }
  if (cursor !== null) truncated();
  return newestFirst(all);
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
