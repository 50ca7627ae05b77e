// The fault matrix: one table of hostile agents and hostile surroundings, each run through the built CLI
// against the data-driven fixture (test/fixtures/scripted.mjs). Every case checks the same promises: the
// exit code the contract gives, exactly one `result` and it is the last line, its error code, no stack trace
// on stderr, every message chunk the agent sent before the failure written (the fixture logs what it sent),
// and no process left (the agent and any grandchild, by the pid files they write).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it, type ExpectStatic } from 'vitest';
import { BIN, FIXTURES, makeAgentDir } from '../helpers/agent-path.js';
import { tempDir } from '../helpers/cli.js';
import { waitForGone } from '../helpers/processes.js';
import { chunk, FIXTURE_SESSION } from '../helpers/lines.js';
import { SHORT_GRACE, testTiming } from '../helpers/timing.js';

const SESSION = FIXTURE_SESSION;
const agentPath = makeAgentDir(join(FIXTURES, 'scripted.mjs')).then((d) => join(d, 'cursor-agent'));
const full = existsSync('/dev/full');

type Script = Record<string, unknown>;
type Format = 'stream-json' | 'json' | 'text';

const request = (id: number | string, method: string, params: unknown = {}): object => ({
  jsonrpc: '2.0',
  id,
  method,
  params,
});
const FLOOD = 100_000;
const floodText = (n: number): string => Array.from({ length: n }, (_, i) => `${i} `).join('');

/** What a case's drive and check see of one run. */
interface Run {
  dir: string;
  /** A file the fixture writes in the run's directory. */
  file(name: string): string;
  child: ChildProcess;
  /** Resolves once stdout has shown the text (only where stdout is read). */
  stdoutShows(text: string): Promise<void>;
  /** Notes the time of a move, for the check. */
  stamps: Record<string, number>;
}

interface Outcome {
  dir: string;
  exitCode: number | null;
  stdout: string;
  stderr: string;
  events: Array<Record<string, unknown>>;
  result: Record<string, unknown> & { error?: { code: string; message: string } };
  /** The lines the agent received from rho-cursor. */
  received: Array<Record<string, unknown>>;
  /** When the run ended, and when the drive's moves were made (Date.now()). */
  endedAt: number;
  stamps: Record<string, number>;
}

interface Case {
  name: string;
  /** The fixture's script; pidFile, recvLog and sentLog are added. `dir` holds the other pid files. */
  script: Script | ((dir: string) => Script);
  /** Options before the prompt. */
  args?: string[];
  format?: Format;
  /** How stdout is treated: read to the end (default), a pipe nobody reads, closed early, or /dev/full. */
  stdout?: 'read' | 'unread' | 'closed' | 'full';
  exit: number;
  /** The result's error code; omitted means no error. */
  error?: string;
  stopReason?: string | null;
  /** The whole message text expected, from the text the agent logged as sent (default: exactly that). */
  text?: (sent: string) => string;
  /** Signals and other moves while the run is going. */
  drive?: (r: Run) => Promise<void>;
  check?: (o: Outcome, expect: ExpectStatic) => void;
  /** Short graces (RHO_CURSOR_TEST_TIMING) where the agent sits them out and only their running matters. */
  shortGrace?: true;
}

// Polls a file until it holds the text: a readiness marker, never a fixed sleep.
async function fileShows(path: string, text: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (existsSync(path) && readFileSync(path, 'utf8').includes(text)) return;
    if (Date.now() > deadline) throw new Error(`${path} never showed ${text}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const readLines = (path: string): Array<Record<string, unknown>> =>
  existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>)
    : [];

// The message text of the chunks the agent logged as sent before its answer (or before it failed).
function sentText(sentLog: string): string {
  let text = '';
  for (const entry of readLines(sentLog) as Array<{ line: string; after: boolean }>) {
    if (entry.after) continue;
    let msg: { method?: string; params?: { sessionId?: string; update?: Record<string, unknown> } };
    try {
      msg = JSON.parse(entry.line) as typeof msg;
    } catch {
      continue;
    }
    const u = msg?.params?.update;
    const content = u?.content as { type?: string; text?: string } | undefined;
    if (
      msg?.method === 'session/update' &&
      msg.params?.sessionId === SESSION &&
      u?.sessionUpdate === 'agent_message_chunk' &&
      content?.type === 'text'
    )
      text += content.text;
  }
  return text;
}

const signalAt = (signal: NodeJS.Signals, marker: string) => async (r: Run) => {
  if (marker.startsWith('"method"')) await fileShows(r.file('recv.log'), marker);
  else await r.stdoutShows(marker);
  r.child.kill(signal);
};
const METHOD = (m: string): string => `"method":"${m}"`;
const warnings = (o: Outcome, code: string) =>
  o.events.filter((e) => e.type === 'warning' && e.code === code) as Array<{
    message: string;
    line?: string;
  }>;
const sentCancel = (o: Outcome): boolean => o.received.some((m) => m.method === 'session/cancel');
const prompted = (o: Outcome): boolean => o.received.some((m) => m.method === 'session/prompt');
const answerTo = (o: Outcome, id: number | string) =>
  o.received.find((m) => m.id === id && m.method === undefined);

// ---------------------------------------------------------------------------------------------------------
// The cases.

const EXITS = [
  { how: 'exits with code 1', exitAt: { code: 1 }, says: /exited with code 1/ },
  { how: 'is killed by SIGKILL', exitAt: { signal: 'SIGKILL' }, says: /was killed by SIGKILL/ },
  { how: 'is killed by SIGSEGV', exitAt: { signal: 'SIGSEGV' }, says: /was killed by SIGSEGV/ },
];
const STEPS = [
  { step: 'initialize', phase: 'initialize' },
  { step: 'session/new', phase: 'session/new' },
  { step: 'session/prompt', phase: 'prompt' },
  { step: 'after-answer', phase: undefined },
];

const exitCases: Case[] = EXITS.flatMap(({ how, exitAt, says }) =>
  STEPS.map(({ step, phase }): Case => {
    const where = step === 'session/prompt' ? 'mid-turn, after a chunk' : step;
    return {
      name: `agent ${how} at ${where}`,
      script: (dir) => ({
        before: [chunk('working')],
        after: [chunk('LATE')],
        exitAt: { step, ...exitAt },
        groupChild: join(dir, 'group.pid'),
      }),
      ...(phase
        ? {
            exit: 1,
            error: 'agent_exited',
            stopReason: null,
            check: (o, expect) => {
              expect(o.result.error!.message).toMatch(says);
              expect(o.result.error!.message).toContain(`during ${phase}`);
            },
          }
        : // The turn had ended: what the agent does next is no failure of the run.
          { exit: 0, stopReason: 'end_turn' }),
    };
  }),
);

const hangCases: Case[] = [
  {
    name: 'agent hangs at initialize: --step-timeout 500ms',
    script: { hangAt: 'initialize' },
    args: ['--step-timeout', '500ms'],
    exit: 124,
    error: 'step_timeout',
    stopReason: null,
    check: (o, expect) => expect(o.result.error!.message).toMatch(/^initialize got no answer within 500ms/),
  },
  {
    name: 'agent hangs at session/new: --step-timeout 500ms',
    script: { hangAt: 'session/new' },
    args: ['--step-timeout', '500ms'],
    exit: 124,
    error: 'step_timeout',
    stopReason: null,
    check: (o, expect) => {
      // The step named is the one left unanswered: on a slow machine initialize itself may time out, even
      // before the agent has read it (its own start-up took longer than 500ms), so nothing was received yet.
      const methods = o.received.map((m) => m.method).filter((m): m is string => typeof m === 'string');
      const last = methods.at(-1) ?? 'initialize';
      expect(o.result.error!.message).toMatch(new RegExp(`^${last} got no answer within 500ms`));
    },
  },
  {
    name: 'agent hangs at session/new: --timeout 1s',
    script: { hangAt: 'session/new' },
    args: ['--timeout', '1s'],
    exit: 124,
    error: 'run_timeout',
    stopReason: null,
  },
  {
    name: 'agent hangs at initialize: --idle-timeout 500ms',
    script: { hangAt: 'initialize' },
    args: ['--idle-timeout', '500ms'],
    exit: 124,
    error: 'idle_timeout',
    stopReason: null,
  },
  {
    name: 'agent hangs mid-turn and ignores the cancel: --timeout 1s',
    script: { before: [chunk('working')], hangAt: 'session/prompt' },
    args: ['--timeout', '1s'],
    shortGrace: true,
    exit: 124,
    error: 'run_timeout',
    stopReason: null,
    // (On a machine slow enough for the handshake to take 1 s, the turn never started: no cancel is owed.)
    check: (o, expect) => expect(sentCancel(o)).toBe(prompted(o)),
  },
  {
    name: 'agent hangs mid-turn and answers the cancel: --timeout 1s',
    script: {
      before: [chunk('working')],
      hangAt: 'session/prompt',
      onCancel: { lines: [chunk(' wound down')] },
    },
    args: ['--timeout', '1s'],
    exit: 124,
    error: 'run_timeout',
    check: (o, expect) => expect(o.result.stopReason).toBe(prompted(o) ? 'cancelled' : null),
  },
  {
    name: 'agent hangs mid-turn: --idle-timeout 500ms',
    script: { before: [chunk('working')], hangAt: 'session/prompt' },
    args: ['--idle-timeout', '500ms'],
    exit: 124,
    error: 'idle_timeout',
    stopReason: null,
  },
];

const NOT_JSON = ['garbage 1', '{not json', '   ', '\u001b[31mred\u001b[0m', 'Loading…', '{"half":'];
const NOT_RPC = [
  '[1,2,3]',
  '42',
  'null',
  '"text"',
  '{"hello":"world"}',
  '{"jsonrpc":"2.0"}',
  '{"jsonrpc":"2.0","id":7}',
  '{"jsonrpc":"2.0","id":true,"result":{}}',
  '{"jsonrpc":"2.0","id":{"x":1},"method":"cursor/x"}',
];

const protocolCases: Case[] = [
  {
    name: 'non-JSON lines mid-turn: each a warning event, a few on stderr, the turn goes on',
    script: { before: [chunk('a'), ...NOT_JSON, chunk('b')] },
    exit: 0,
    stopReason: 'end_turn',
    check: (o, expect) => {
      expect(warnings(o, 'agent-non-json').map((w) => w.line)).toEqual(NOT_JSON);
      expect(o.stderr.match(/warning: the agent wrote a line/g)?.length).toBeLessThanOrEqual(3);
    },
  },
  {
    name: 'non-JSON lines during the handshake are warnings, not a failure',
    script: { at: { initialize: ['Loading cursor-agent…'], 'session/new': ['npm WARN deprecated x'] } },
    exit: 0,
    stopReason: 'end_turn',
    check: (o, expect) =>
      expect(warnings(o, 'agent-non-json').map((w) => w.line)).toEqual([
        'Loading cursor-agent…',
        'npm WARN deprecated x',
      ]),
  },
  {
    name: 'a last chunk without its newline, then exit 0 mid-turn: kept, and exit 1',
    script: {
      before: [chunk('a ')],
      exitAt: { step: 'session/prompt', code: 0, partial: chunk('last words') },
    },
    exit: 1,
    error: 'agent_exited',
    stopReason: null,
    check: (o, expect) => expect(o.result.error!.message).toMatch(/exited with code 0 during prompt/),
  },
  {
    name: 'a last non-JSON line without its newline, then exit 2: kept as a warning',
    script: { exitAt: { step: 'session/prompt', code: 2, partial: 'fatal: out of memory' } },
    exit: 1,
    error: 'agent_exited',
    stopReason: null,
    check: (o, expect) =>
      expect(warnings(o, 'agent-non-json').map((w) => w.line)).toEqual(['fatal: out of memory']),
  },
  {
    name: "initialize's answer without its newline, then exit: read, and the run fails at session/new",
    script: {
      exitAt: {
        step: 'initialize',
        code: 0,
        partial: {
          jsonrpc: '2.0',
          id: 1,
          result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] },
        },
      },
    },
    exit: 1,
    error: 'agent_exited',
    stopReason: null,
    check: (o, expect) => expect(o.result.error!.message).toMatch(/during (session\/new|initialize)/),
  },
  {
    name: 'JSON that is not JSON-RPC mid-turn: a warning each, the turn goes on',
    script: { before: [chunk('a'), ...NOT_RPC, chunk('b')] },
    exit: 0,
    stopReason: 'end_turn',
    // A batch (contract v3) is taken apart: each message it holds is a warning of its own.
    check: (o, expect) =>
      expect(warnings(o, 'agent-non-json').map((w) => w.line)).toEqual(
        NOT_RPC.flatMap((l) =>
          l.startsWith('[') ? (JSON.parse(l) as unknown[]).map((v) => JSON.stringify(v)) : [l],
        ),
      ),
  },
  {
    name: 'JSON that is not JSON-RPC during the handshake',
    script: { at: { 'session/new': ['{}', '[]', '{"jsonrpc":"2.0","id":null}'] } },
    exit: 0,
    stopReason: 'end_turn',
    check: (o, expect) => expect(warnings(o, 'agent-non-json')).toHaveLength(3),
  },
  {
    name: 'responses to unknown ids: warnings, the pending prompt unharmed',
    script: {
      before: [
        chunk('a'),
        { jsonrpc: '2.0', id: 999, result: { stopReason: 'end_turn' } },
        { jsonrpc: '2.0', id: 'nope', error: { code: -1, message: 'x' } },
        chunk('b'),
      ],
    },
    exit: 0,
    stopReason: 'end_turn',
    check: (o, expect) => {
      const w = warnings(o, 'agent-non-json').map((x) => x.message);
      expect(w).toHaveLength(2);
      expect(w[0]).toMatch(/unknown request id 999/);
      expect(w[1]).toMatch(/unknown request id nope/);
    },
  },
  {
    name: 'the prompt answered twice: one result, nothing after it',
    script: { before: [chunk('once')], duplicate: ['session/prompt'], after: [chunk('LATE')] },
    exit: 0,
    stopReason: 'end_turn',
    check: (o, expect) => expect(warnings(o, 'agent-non-json')).toHaveLength(0),
  },
  {
    name: 'initialize answered twice: the second is a warning',
    script: { duplicate: ['initialize'] },
    exit: 0,
    stopReason: 'end_turn',
    check: (o, expect) =>
      expect(warnings(o, 'agent-non-json').map((w) => w.message)).toEqual([
        expect.stringMatching(/unknown request id 1\b/),
      ]),
  },
  {
    name: 'session/new answered twice: the second is a warning',
    script: { duplicate: ['session/new'], before: [chunk('fine')] },
    exit: 0,
    stopReason: 'end_turn',
    check: (o, expect) =>
      expect(warnings(o, 'agent-non-json').map((w) => w.message)).toEqual([
        expect.stringMatching(/unknown request id 2\b/),
      ]),
  },
  {
    name: 'an unknown method requested mid-turn is answered -32601 and kept',
    script: { before: [chunk('a'), request(41, 'cursor/teleport', { to: 'mars' })], waitAnswers: 1 },
    exit: 0,
    stopReason: 'end_turn',
    check: (o, expect) => {
      expect(answerTo(o, 41)).toMatchObject({ id: 41, error: { code: -32601 } });
      expect(o.events).toContainEqual({
        type: 'extension',
        method: 'cursor/teleport',
        params: { to: 'mars' },
      });
    },
  },
  {
    name: 'an unadvertised fs request during initialize is answered -32601',
    script: {
      at: { initialize: [request('q-1', 'fs/read_text_file', { path: '/etc/passwd' })] },
      waitAnswers: 1,
    },
    exit: 0,
    stopReason: 'end_turn',
    check: (o, expect) => expect(answerTo(o, 'q-1')).toMatchObject({ id: 'q-1', error: { code: -32601 } }),
  },
  {
    name: 'unknown notifications mid-turn are kept as extension events',
    script: {
      before: [
        { jsonrpc: '2.0', method: 'cursor/heartbeat', params: { n: 1 } },
        chunk('a'),
        { jsonrpc: '2.0', method: 'cursor/ping' },
      ],
    },
    exit: 0,
    stopReason: 'end_turn',
    check: (o, expect) => {
      const ext = o.events.filter((e) => e.type === 'extension');
      expect(ext).toEqual([
        { type: 'extension', method: 'cursor/heartbeat', params: { n: 1 } },
        { type: 'extension', method: 'cursor/ping', params: null },
      ]);
      // Nothing is answered to a notification.
      expect(o.received.filter((m) => m.method === undefined)).toHaveLength(0);
    },
  },
  {
    name: 'an unknown notification before the session exists is kept',
    script: { at: { initialize: [{ jsonrpc: '2.0', method: 'cursor/boot', params: { v: 1 } }] } },
    exit: 0,
    stopReason: 'end_turn',
    check: (o, expect) =>
      expect(o.events).toContainEqual({ type: 'extension', method: 'cursor/boot', params: { v: 1 } }),
  },
];

const volumeCases: Case[] = [
  {
    name: `a flood of ${FLOOD} chunks: every character arrives`,
    script: { before: [chunk('start ')], flood: FLOOD },
    exit: 0,
    stopReason: 'end_turn',
    text: (sent) => sent + floodText(FLOOD),
  },
  {
    name: 'a 16 MiB line: one chunk, whole',
    script: { before: [chunk('big: ')], hugeMiB: 16 },
    exit: 0,
    stopReason: 'end_turn',
    text: (sent) => sent + 'x'.repeat(16 * 1024 * 1024),
  },
  {
    name: '20 MiB of stderr: drained, the turn ends, little of it shown',
    script: { before: [chunk('fine')], stderrMiB: 20 },
    exit: 0,
    stopReason: 'end_turn',
    check: (o, expect) => expect(o.stderr.length).toBeLessThan(4096),
  },
  {
    name: '20 MiB of stderr, then a crash: the message, not the noise',
    script: { before: [chunk('working')], stderrMiB: 20, crash: 'disk on fire' },
    exit: 1,
    error: 'agent_exited',
    stopReason: null,
    check: (o, expect) => {
      expect(o.result.error!.message).toMatch(/disk on fire/);
      expect(o.result.error!.message.length).toBeLessThan(1000);
      expect(o.stderr.length).toBeLessThan(4096);
    },
  },
];

// A turn the agent is in the middle of; on session/cancel it sends one more chunk, then `cancelled`.
const cooperative = {
  before: [chunk('working')],
  hangAt: 'session/prompt',
  onCancel: { lines: [chunk(' late')] },
};
// A turn that never ends: the cancel is ignored, so is SIGTERM, also by a grandchild in the agent's group.
const hostile = (dir: string): Script => ({
  before: [chunk('working')],
  hangAt: 'session/prompt',
  ignoreTerm: true,
  groupChild: join(dir, 'group.pid'),
  groupChildIgnoresTerm: true,
});

const signalCases: Case[] = [
  {
    name: 'agent and a grandchild in its group ignore SIGTERM: a normal turn leaves nothing',
    script: (dir) => ({ ...hostile(dir), hangAt: undefined }),
    shortGrace: true,
    exit: 0,
    stopReason: 'end_turn',
  },
  {
    name: 'agent ends on SIGTERM, a grandchild left in its group ignores it: ended too',
    script: (dir) => ({
      before: [chunk('hi')],
      groupChild: join(dir, 'group.pid'),
      groupChildIgnoresTerm: true,
    }),
    shortGrace: true,
    exit: 0,
    stopReason: 'end_turn',
  },
  {
    name: 'agent exits 1 mid-turn, leaving a setsid escapee that ignores SIGTERM: exit 1, escapee ended',
    script: (dir) => ({
      before: [chunk('working')],
      escapee: join(dir, 'escapee.pid'),
      exitAt: { step: 'session/prompt', code: 1 },
    }),
    shortGrace: true,
    exit: 1,
    error: 'agent_exited',
    stopReason: null,
  },
  {
    name: 'SIGINT mid-turn: session/cancel, what comes before `cancelled` is kept, 130',
    script: cooperative,
    drive: signalAt('SIGINT', 'working'),
    exit: 130,
    error: 'cancelled',
    stopReason: 'cancelled',
    check: (o, expect) => expect(sentCancel(o)).toBe(true),
  },
  {
    name: 'SIGINT mid-turn, agent ignores the cancel and SIGTERM: 130 after the graces',
    script: hostile,
    shortGrace: true,
    drive: signalAt('SIGINT', 'working'),
    exit: 130,
    error: 'cancelled',
    stopReason: null,
  },
  {
    name: 'SIGINT twice mid-turn, agent ignores the cancel: ends at once',
    script: hostile,
    drive: async (r) => {
      await signalAt('SIGINT', 'working')(r);
      await fileShows(r.file('recv.log'), METHOD('session/cancel'));
      r.stamps.second = Date.now();
      r.child.kill('SIGINT');
    },
    exit: 130,
    error: 'cancelled',
    stopReason: null,
    // The cancel grace and then the kill grace would take about 4 s more: the second SIGINT skips both.
    check: (o, expect) => expect(o.endedAt - o.stamps.second!).toBeLessThan(3000),
  },
  {
    name: 'SIGINT during initialize: 130',
    script: { hangAt: 'initialize' },
    drive: signalAt('SIGINT', METHOD('initialize')),
    exit: 130,
    error: 'cancelled',
    stopReason: null,
  },
  {
    name: 'SIGINT during session/new: 130',
    script: { hangAt: 'session/new' },
    drive: signalAt('SIGINT', METHOD('session/new')),
    exit: 130,
    error: 'cancelled',
    stopReason: null,
  },
  {
    name: 'SIGTERM mid-turn: cancelled, 143',
    script: cooperative,
    drive: signalAt('SIGTERM', 'working'),
    exit: 143,
    error: 'cancelled',
    stopReason: 'cancelled',
  },
  {
    name: 'SIGHUP mid-turn: cancelled, 129',
    script: cooperative,
    drive: signalAt('SIGHUP', 'working'),
    exit: 129,
    error: 'cancelled',
    stopReason: 'cancelled',
  },
  {
    name: 'SIGQUIT mid-turn: ended at once without a cancel, 131',
    script: cooperative,
    drive: signalAt('SIGQUIT', 'working'),
    exit: 131,
    error: 'cancelled',
    stopReason: null,
    check: (o, expect) => expect(sentCancel(o)).toBe(false),
  },
  {
    name: 'SIGTERM during initialize: 143',
    script: { hangAt: 'initialize' },
    drive: signalAt('SIGTERM', METHOD('initialize')),
    exit: 143,
    error: 'cancelled',
    stopReason: null,
  },
  {
    name: 'SIGHUP during session/new: 129',
    script: { hangAt: 'session/new' },
    drive: signalAt('SIGHUP', METHOD('session/new')),
    exit: 129,
    error: 'cancelled',
    stopReason: null,
  },
  {
    name: 'SIGQUIT during session/new: 131',
    script: { hangAt: 'session/new' },
    drive: signalAt('SIGQUIT', METHOD('session/new')),
    exit: 131,
    error: 'cancelled',
    stopReason: null,
  },
];

const flooding = { before: [chunk('start ')], flood: FLOOD, hangAt: 'session/prompt' };

const stdoutCases: Case[] = [
  {
    name: 'stream-json to a pipe nobody reads while the agent floods: --timeout 1s still ends it, 124',
    script: flooding,
    args: ['--timeout', '1s'],
    shortGrace: true,
    stdout: 'unread',
    exit: 124,
    check: (o, expect) => expect(o.stderr).toMatch(/the run exceeded --timeout 1s/),
  },
  {
    name: 'text to a pipe nobody reads while the agent floods: --timeout 1s still ends it, 124',
    script: flooding,
    args: ['--timeout', '1s'],
    shortGrace: true,
    format: 'text',
    stdout: 'unread',
    exit: 124,
  },
  {
    name: 'text to a reader that closes early: a quiet 141',
    script: { ...flooding, onCancel: {} },
    format: 'text',
    stdout: 'closed',
    exit: 141,
    check: (o, expect) => expect(o.stderr).not.toMatch(/^rho-cursor: (?!warning)/m),
  },
  {
    name: 'stream-json to a reader that closes early, agent answers the cancel: a quiet 141',
    script: { ...flooding, onCancel: {} },
    stdout: 'closed',
    exit: 141,
    check: (o, expect) => expect(o.stderr).not.toMatch(/^rho-cursor: (?!warning)/m),
  },
  {
    name: 'stream-json to /dev/full while the agent floods: exit 1, one line',
    script: flooding,
    shortGrace: true,
    stdout: 'full',
    exit: 1,
    check: (o, expect) => expect(o.stderr).toMatch(/^rho-cursor: cannot write to stdout: ENOSPC/m),
  },
  {
    name: 'text to /dev/full mid-turn: the turn is stopped, exit 1',
    script: { before: [chunk('working')], hangAt: 'session/prompt' },
    shortGrace: true,
    format: 'text',
    stdout: 'full',
    exit: 1,
    check: (o, expect) => expect(o.stderr).toMatch(/^rho-cursor: cannot write to stdout: ENOSPC/m),
  },
];

const wireLogCases: Case[] = [
  {
    name: '--wire-log /dev/full in stream-json: one warning event, the answer whole, exit 1',
    script: { before: [chunk('start ')], flood: 1000 },
    args: ['--wire-log', '/dev/full'],
    exit: 1,
    error: 'write_failed',
    stopReason: 'end_turn',
    text: (sent) => sent + floodText(1000),
    check: (o, expect) => expect(warnings(o, 'wire-log-failed')).toHaveLength(1),
  },
  {
    name: '--wire-log /dev/full in json: exit 1, write_failed',
    script: { before: [chunk('hello')] },
    args: ['--wire-log', '/dev/full'],
    format: 'json',
    exit: 1,
    error: 'write_failed',
    stopReason: 'end_turn',
  },
];

const CASES: Case[] = [
  ...exitCases,
  ...hangCases,
  ...protocolCases,
  ...volumeCases,
  ...signalCases,
  ...stdoutCases.filter((c) => full || c.stdout !== 'full'),
  ...wireLogCases.filter(() => full),
];

// ---------------------------------------------------------------------------------------------------------
// Running a case.

// Spawns the CLI with stdout as the case says; resolves with how it ended.
function spawnCli(
  args: string[],
  env: Record<string, string>,
  how: NonNullable<Case['stdout']>,
): { child: ChildProcess; done: Promise<{ code: number | null; stdout: string; stderr: string }> } {
  const child =
    how === 'full'
      ? spawn('sh', ['-c', 'exec "$0" "$@" >/dev/full', BIN, ...args], {
          env,
          stdio: ['ignore', 'ignore', 'pipe'],
        })
      : spawn(BIN, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  if (how === 'read')
    child.stdout!.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
  if (how === 'closed') {
    // Like `| head -c 4096`: take a little, then close the pipe while the agent is still writing.
    child.stdout!.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (stdout.length >= 4096) child.stdout!.destroy();
    });
  }
  // how === 'unread': a pipe nobody reads (never a 'data' listener).
  const watchdog = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => {
      clearTimeout(watchdog);
      if (how === 'unread') child.stdout!.destroy();
      resolve({ code, stdout, stderr });
    }),
  );
  return { child, done };
}

async function play(c: Case, expect: ExpectStatic): Promise<void> {
  const dir = tempDir('rho-matrix-');
  const file = (name: string): string => join(dir, name);
  const script: Script = {
    pidFile: file('agent.pid'),
    recvLog: file('recv.log'),
    sentLog: file('sent.log'),
    ...(typeof c.script === 'function' ? c.script(dir) : c.script),
  };
  const format = c.format ?? 'stream-json';
  const how = c.stdout ?? 'read';
  const args = ['run', '--output-format', format, ...(c.args ?? []), '--agent', await agentPath, 'go'];
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    HOME: dir,
    CURSOR_CONFIG_DIR: dir,
    NO_COLOR: '1',
    CI: 'true',
    RHO_SCRIPT: JSON.stringify(script),
    ...(c.shortGrace ? testTiming(SHORT_GRACE) : {}),
  };
  const { child, done } = spawnCli(args, env, how);
  const stamps: Record<string, number> = {};
  const run: Run = {
    dir,
    file,
    child,
    stdoutShows: (text) =>
      new Promise((resolve, reject) => {
        let seen = '';
        child.stdout!.on('data', (d: Buffer) => {
          seen += d.toString();
          if (seen.includes(text)) resolve();
        });
        child.once('close', () => reject(new Error(`the run ended before stdout showed ${text}`)));
      }),
    stamps,
  };
  // A drive that fails still lets the run end (and release its agent) before the case fails.
  const driveError: unknown = await c.drive?.(run).then(
    () => undefined,
    (e: unknown) => (child.kill('SIGTERM'), e),
  );
  const { code, stdout, stderr } = await done;
  const endedAt = Date.now();

  // No process left: the agent and every grandchild that wrote a pid file. Whatever is left is killed, so a
  // failing case leaves nothing behind either.
  const left: string[] = [];
  for (const name of ['agent.pid', 'group.pid', 'escapee.pid']) {
    if (!existsSync(file(name))) continue;
    const pid = Number(readFileSync(file(name), 'utf8'));
    if (await waitForGone(pid, 3000)) continue;
    left.push(`${name} (${pid})`);
    process.kill(pid, 'SIGKILL');
  }
  if (driveError) throw driveError;
  expect(left, 'processes still running after the run').toEqual([]);

  expect(code, stderr.slice(-2000)).toBe(c.exit);
  expect(stderr, 'a stack trace on stderr').not.toMatch(/\n\s+at /);

  let events: Array<Record<string, unknown>> = [];
  let result = {} as Outcome['result'];
  if (how === 'read') {
    const lines = stdout.split('\n').filter((l) => l !== '');
    events = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    if (format === 'json') expect(events, 'json is one object').toHaveLength(1);
    const results = events.filter((e) => e.type === 'result');
    expect(results, 'exactly one result').toHaveLength(1);
    expect(events.at(-1), 'result is last').toBe(results[0]);
    result = results[0] as Outcome['result'];
    expect(result.exitCode).toBe(c.exit);
    if (c.error === undefined) expect(result.error).toBeUndefined();
    else expect(result.error?.code).toBe(c.error);
    if ('stopReason' in c) expect(result.stopReason).toBe(c.stopReason);
    // Nothing the agent sent before the failure (or before its answer) is lost, nothing after it is shown.
    const text =
      format === 'json'
        ? String(result.text)
        : events
            .filter((e) => e.type === 'message')
            .map((e) => e.text)
            .join('');
    const want = (c.text ?? ((s: string) => s))(sentText(file('sent.log')));
    if (text !== want)
      expect(text.slice(0, 2000), `message text (${text.length} chars)`).toBe(want.slice(0, 2000));
    expect(text.length).toBe(want.length);
  }

  c.check?.(
    {
      dir,
      exitCode: code,
      stdout,
      stderr,
      events,
      result,
      received: readLines(file('recv.log')),
      endedAt,
      stamps,
    },
    expect,
  );
}

describe.concurrent('fault matrix', () => {
  it('has the cases it promises', ({ expect }) => {
    expect(CASES.length).toBeGreaterThanOrEqual(50);
    expect(new Set(CASES.map((c) => c.name)).size).toBe(CASES.length);
  });

  it.for(CASES)('$name', { timeout: 40_000 }, async (c, { expect }) => {
    await play(c, expect);
  });
});
