import { describe, expect, it } from 'vitest';
import { RhoError } from '../../src/errors.js';
import {
  MAX_LIST_PAGES,
  MAX_SESSION_FIELD,
  MAX_SESSION_TITLE,
  MAX_SESSIONS_KEPT,
  TOO_MANY_SESSIONS,
  readSession,
  readSessionPage,
  replyReadsAsError,
  sessionsOf,
  workspaceSessions,
} from '../../src/session.js';

describe('readSession', () => {
  it('reads the resolved model, the modes and the agent info', () => {
    const facts = readSession(
      { agentInfo: { name: 'cursor-agent', version: '2026.10.01' } },
      {
        sessionId: 's-1',
        models: { currentModelId: 'composer-2.5[fast=true]' },
        modes: { currentModeId: 'agent', availableModes: [{ id: 'agent' }, { id: 'plan' }, 'junk'] },
      },
    );
    expect(facts).toEqual({
      sessionId: 's-1',
      model: 'composer-2.5[fast=true]',
      mode: 'agent',
      modes: ['agent', 'plan'],
      agent: { name: 'cursor-agent', title: null, version: '2026.10.01' },
    });
  });

  it('tolerates missing models, modes and agent info', () => {
    expect(readSession({}, { sessionId: 's' })).toEqual({
      sessionId: 's',
      model: null,
      mode: null,
      modes: [],
      agent: { name: null, title: null, version: null },
    });
  });

  it('reads the model and mode from configOptions where only they report them (Codex)', () => {
    const select = (id: string, currentValue: string, values: string[]) => ({
      type: 'select',
      id,
      name: id,
      category: id,
      currentValue,
      options: values.map((value) => ({ value, name: value })),
    });
    const facts = readSession(
      { agentInfo: { name: 'codex-acp', title: 'Codex', version: '0.16.0' } },
      {
        sessionId: 's',
        configOptions: [
          select('mode', 'auto', ['read-only', 'auto', 'full-access']),
          select('model', 'gpt-5-codex/medium', ['gpt-5-codex/low', 'gpt-5-codex/medium']),
        ],
      },
    );
    expect(facts).toEqual({
      sessionId: 's',
      model: 'gpt-5-codex/medium',
      mode: 'auto',
      modes: ['read-only', 'auto', 'full-access'],
      agent: { name: 'codex-acp', title: 'Codex', version: '0.16.0' },
    });
  });

  it.each([[{}], [{ sessionId: 7 }], [null]])(
    'a session/new result without a sessionId is a protocol error: %j',
    (r) => {
      expect(() => readSession({}, r)).toThrow(RhoError);
    },
  );
});

describe('replyReadsAsError', () => {
  it.each([
    ['Error: RetriableError: [unavailable] upstream\nmore', 'Error: RetriableError: [unavailable] upstream'],
    ['  Error: ConnectError: x', 'Error: ConnectError: x'],
    ['All done. Error: RetriableError', undefined],
    ['Error: the file is missing', undefined],
  ])('%j -> %j', (text, line) => {
    expect(replyReadsAsError(text)).toBe(line);
  });
});

describe('workspaceSessions reads every page, up to a bound it says it reached (found by review)', () => {
  // An agent whose pages are session s<n>, each a day newer, for `pages` pages (or without end).
  const agent = (pages: number) => {
    let asked = 0;
    const list = (params: Record<string, unknown>): Promise<unknown> => {
      const n = typeof params.cursor === 'string' ? Number(params.cursor) : 0;
      asked++;
      return Promise.resolve({
        sessions: [
          { sessionId: `s${n}`, cwd: '/ws', updatedAt: new Date(Date.UTC(2026, 0, 1 + n)).toISOString() },
        ],
        nextCursor: n + 1 < pages ? String(n + 1) : null,
      });
    };
    return { list, asked: () => asked };
  };

  it('every page when there are fewer than the bound: nothing said', async () => {
    const a = agent(3);
    let said = 0;
    const got = await workspaceSessions(a.list, sessionsOf('/ws'), () => said++);
    expect(got.map((x) => x.sessionId)).toEqual(['s2', 's1', 's0']);
    expect(said).toBe(0);
  });

  it('past the bound: the first pages only, and said once', async () => {
    const a = agent(MAX_LIST_PAGES + 10);
    let said = 0;
    const got = await workspaceSessions(a.list, sessionsOf('/ws'), () => said++);
    expect(a.asked()).toBe(MAX_LIST_PAGES);
    expect(got[0]!.sessionId).toBe(`s${MAX_LIST_PAGES - 1}`);
    expect(said).toBe(1);
  });

  // Found by review: one page of 130,000 sessions overflowed the stack (a spread push), `internal`; millions
  // over 50 pages ran the heap out. The newest MAX_SESSIONS_KEPT are kept, whatever the order they come in.
  it(`a page of 130,000 sessions: the newest ${MAX_SESSIONS_KEPT}, newest first, and said once`, async () => {
    const n = 130_000;
    const page = {
      sessions: Array.from({ length: n }, (_, i) => ({
        sessionId: `s${i}`,
        cwd: '/ws',
        // Listed oldest first, two with no time (kept after every dated one).
        updatedAt: i < 2 ? undefined : new Date(Date.UTC(2000, 0, 1) + i * 60_000).toISOString(),
      })),
    };
    const said: string[] = [];
    const got = await workspaceSessions(
      () => Promise.resolve(page),
      sessionsOf('/ws'),
      (w) => said.push(w),
    );
    expect(got).toHaveLength(MAX_SESSIONS_KEPT);
    expect(got[0]!.sessionId).toBe(`s${n - 1}`);
    expect(got.at(-1)!.sessionId).toBe(`s${n - MAX_SESSIONS_KEPT}`);
    expect(said).toEqual([TOO_MANY_SESSIONS]);
  });

  it('exactly the kept bound: nothing said', async () => {
    const page = {
      sessions: Array.from({ length: MAX_SESSIONS_KEPT }, (_, i) => ({ sessionId: `s${i}`, cwd: '/ws' })),
    };
    const said: string[] = [];
    const got = await workspaceSessions(
      () => Promise.resolve(page),
      sessionsOf('/ws'),
      (w) => said.push(w),
    );
    expect(got).toHaveLength(MAX_SESSIONS_KEPT);
    expect(said).toEqual([]);
  });

  it('a title is cut; an id or cwd no path could be is skipped; an updatedAt that is no time is none', () => {
    const long = 'x'.repeat(MAX_SESSION_FIELD + 1);
    const page = readSessionPage({
      sessions: [
        { sessionId: 'ok', title: 't'.repeat(MAX_SESSION_TITLE + 50), updatedAt: 'u'.repeat(65), cwd: '/ws' },
        { sessionId: long, cwd: '/ws' },
        { sessionId: 'far', cwd: long },
        { sessionId: 'x'.repeat(MAX_SESSION_FIELD), cwd: '/' + 'c'.repeat(MAX_SESSION_FIELD - 1) },
      ],
    });
    expect(page.sessions.map((s) => s.sessionId.length)).toEqual([2, MAX_SESSION_FIELD]);
    expect(page.sessions[0]!.title).toHaveLength(MAX_SESSION_TITLE);
    expect(page.sessions[0]!.title!.endsWith('…')).toBe(true);
    expect(page.sessions[0]!.updatedAt).toBeNull();
  });

  it('exactly the bound, the last page ending: nothing said', async () => {
    let said = 0;
    await workspaceSessions(agent(MAX_LIST_PAGES).list, sessionsOf('/ws'), () => said++);
    expect(said).toBe(0);
  });
});
