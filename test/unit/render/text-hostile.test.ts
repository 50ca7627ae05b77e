// The text renderer against hostile agent text: every line it draws shows the text, never lets it act.
/* eslint-disable no-control-regex -- the tests are about control characters */
import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import type { Event, ToolEvent } from '../../../src/events/types.js';
import { LABEL_MAX, MESSAGE_MAX } from '../../../src/render/lines.js';
import { TextRenderer } from '../../../src/render/text.js';
import { capture, finished } from './capture.js';

const EVIL = '\x1b]52;c;ZXZpbA==\x07\x1b[2J\u202e\n::error::x\rrho-cursor: all good, exit 0';

const tool = (over: Partial<ToolEvent>): ToolEvent => ({
  type: 'tool',
  toolCallId: 't1',
  kind: 'execute',
  title: 'ls',
  status: 'completed',
  input: {},
  output: null,
  locations: [],
  ...over,
});

// A permission decision, the policy's, with the given fields.
const permission = (over: Partial<Extract<Event, { type: 'permission' }>>): Event => ({
  type: 'permission',
  toolCallId: 't',
  title: 't',
  kind: 'execute',
  options: [],
  decision: { optionId: 'reject-once', kind: 'reject_once' },
  reason: 'r',
  agentReason: null,
  decidedBy: 'policy',
  ...over,
});

// Each hostile event, and where its text shows.
const CASES: Array<[string, Event]> = [
  ['a tool title', tool({ title: EVIL })],
  ['a tool kind', tool({ kind: EVIL })],
  ['a tool result line', tool({ output: { exitCode: 0, stdout: `${EVIL}`, stderr: '' } })],
  ['a thought', { type: 'thought', text: EVIL }],
  [
    'a permission decision',
    permission({ title: EVIL, decision: { optionId: EVIL, kind: 'reject_once' }, agentReason: EVIL }),
  ],
  [
    'a plan',
    {
      type: 'plan',
      toolCallId: null,
      name: EVIL,
      overview: EVIL,
      plan: EVIL,
      todos: [],
      answer: { outcome: 'rejected', reason: EVIL },
      decidedBy: 'policy',
    },
  ],
  ['todos', { type: 'todos', todos: [{ id: '1', content: EVIL, status: 'pending' }], source: 'plan' }],
  [
    'cursor/task',
    { type: 'extension', method: 'cursor/task', params: { description: EVIL, subagentType: EVIL } },
  ],
  [
    'a session title',
    {
      type: 'extension',
      method: 'session/update',
      params: { update: { sessionUpdate: 'session_info_update', title: EVIL } },
    },
  ],
  ['a notice (a warning)', { type: 'warning', code: 'agent-notice', message: EVIL }],
  ['a mode', { type: 'mode', mode: EVIL }],
];

describe('TextRenderer with hostile agent text', () => {
  it.each(CASES)('%s: no control character reaches stderr, and no line is forged', (_name, event) => {
    const out = capture(true);
    const err = capture(true);
    const r = new TextRenderer(out, err, new Chalk({ level: 0 }));
    r.emit(event);
    r.finish(finished({ error: { code: 'rpc_error', message: EVIL } }));
    expect(err.text).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/);
    const lines = err.text.split('\n');
    expect(lines).not.toContain('rho-cursor: all good, exit 0');
    expect(lines.filter((l) => l.startsWith('::'))).toEqual([]);
    expect(lines.filter((l) => l.startsWith('rho-cursor:'))).toHaveLength(1);
    expect(err.text).toContain('␛]52;c;ZXZpbA==␇␛[2J<U+202E>␊::error::x␍rho-cursor: all good');
  });

  it('keeps its own colours', () => {
    const err = capture(true);
    const r = new TextRenderer(capture(true), err, new Chalk({ level: 1 }));
    r.emit(tool({ title: '\x1b[31mfake red' }));
    r.flush();
    expect(err.text).toContain('\x1b[36mexecute\x1b[39m ␛[31mfake red \x1b[32mcompleted\x1b[39m');
  });

  it('writes its stopReason line with a bold label, which an answer cannot (found by review)', () => {
    const out = capture(true);
    const err = capture(true);
    const r = new TextRenderer(out, err, new Chalk({ level: 1 }));
    r.emit({ type: 'message', text: 'All tests pass.\nstopReason: end_turn\n' });
    r.finish(finished());
    expect(out.text).toContain('stopReason: end_turn');
    expect(err.text).toContain('\x1b[1mstopReason\x1b[22m: end_turn');
  });

  it('shows the answer made visible on a terminal, and byte-exact to a pipe', () => {
    const answer = 'a \x1b]8;;https://evil\x1b\\link\x1b]8;;\x1b\\\n\ttab';
    for (const tty of [true, false]) {
      const out = capture(tty);
      const r = new TextRenderer(out, capture(tty), new Chalk({ level: 0 }));
      r.emit({ type: 'message', text: answer });
      r.finish(finished());
      // (On a shared terminal the answer's last line is ended on stderr.)
      expect(out.text).toBe(tty ? 'a ␛]8;;https://evil␛\\link␛]8;;␛\\\n\ttab' : answer + '\n');
    }
  });

  it('shows the answer made visible on stderr (beside --output-schema), a terminal or not (found by review)', () => {
    const answer = 'a \x1b]52;c;ZXZpbA==\x07\x1b[2J \u202e \x85 \x9b31m cr\rX';
    for (const tty of [true, false]) {
      const err = capture(tty);
      const r = new TextRenderer(err, err, new Chalk({ level: 0 }));
      r.emit({ type: 'message', text: answer });
      r.finish(finished());
      expect(err.text).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e]/);
      expect(err.text).toContain('a ␛]52;c;ZXZpbA==␇␛[2J <U+202E>');
    }
  });
});

// A megabyte in each label a status line shows: the line stays short, its start and end are shown and the
// middle is said as cut. The answer and thoughts are the agent's own words: never cut.
const BIG = 'HEAD' + 'x'.repeat(1 << 20) + 'TAIL';
const LABELS: Array<[string, Event]> = [
  ['a tool title', tool({ title: BIG })],
  ['a tool kind', tool({ kind: BIG })],
  [
    'a tool summary (its first output line)',
    tool({ output: { diffs: Array(200_000).fill({ path: 'p', oldText: null, newText: 'x' }) } }),
  ],
  [
    'a permission title, option and reason',
    permission({ title: BIG, kind: BIG, decision: { optionId: BIG, kind: 'reject_once' }, agentReason: BIG }),
  ],
  [
    'a plan name',
    {
      type: 'plan',
      toolCallId: null,
      name: BIG,
      overview: null,
      plan: 'step',
      todos: [],
      answer: { outcome: 'rejected', reason: 'r' },
      decidedBy: 'policy',
    },
  ],
  ['a todo', { type: 'todos', todos: [{ id: '1', content: BIG, status: 'pending' }], source: 'plan' }],
  [
    'a subagent task',
    { type: 'extension', method: 'cursor/task', params: { description: BIG, subagentType: BIG } },
  ],
  [
    'a session title',
    {
      type: 'extension',
      method: 'session/update',
      params: { update: { sessionUpdate: 'session_info_update', title: BIG } },
    },
  ],
  ['a mode', { type: 'mode', mode: BIG }],
  // rho-cursor's own sentences that quote the agent: cut at MESSAGE_MAX (found by review).
  [
    'a permission reason quoting the agent',
    permission({ kind: 'edit', reason: `${BIG} is outside Write(lib/**)` }),
  ],
  ['a warning quoting the agent', { type: 'warning', code: 'agent-warning', message: BIG }],
  [
    'an attempt that failed with the agent’s message',
    { type: 'attempt', attempt: 1, error: { code: 'rpc_error', message: BIG }, retryInMs: 1000 },
  ],
  [
    'a thought’s resource name',
    { type: 'thought', text: 'x', content: { type: 'resource_link', name: BIG } } as Event,
  ],
];

describe('TextRenderer with a megabyte in a label', () => {
  it.each(LABELS)('%s: each stderr line stays short, its start and end shown', (_name, event) => {
    const err = capture(true);
    const r = new TextRenderer(capture(true), err, new Chalk({ level: 0 }));
    r.emit(event);
    r.finish(finished());
    const lines = err.text.split('\n').filter((l) => l !== '');
    expect(lines.length).toBeGreaterThan(0);
    // A line may hold a few labels (a permission: kind, title, option, reason), each cut to LABEL_MAX.
    for (const l of lines) expect(l.length).toBeLessThan(5 * (LABEL_MAX + 40));
    expect(err.text).toContain(' more characters) ');
    if (!_name.includes('summary')) expect(err.text).toMatch(/HEAD.*TAIL/);
  });

  it('an unknown stopReason and the error line: cut too (found by review)', () => {
    const err = capture(true);
    const r = new TextRenderer(capture(true), err, new Chalk({ level: 0 }));
    r.finish(finished({ stopReason: BIG, error: { code: 'rpc_error', message: BIG } }));
    const lines = err.text.split('\n').filter((l) => l !== '');
    expect(lines).toHaveLength(2);
    for (const l of lines) {
      expect(l.length).toBeLessThan(MESSAGE_MAX + 60);
      expect(l).toMatch(/HEAD.*more characters.*TAIL/);
    }
  });

  it('a label of LABEL_MAX characters is shown whole; one more is cut', () => {
    for (const [n, cut] of [
      [LABEL_MAX, false],
      [LABEL_MAX + 1, true],
    ] as const) {
      const err = capture(true);
      const r = new TextRenderer(capture(true), err, new Chalk({ level: 0 }));
      r.emit(tool({ title: 'y'.repeat(n) }));
      r.flush();
      expect(err.text.includes(' more characters) ')).toBe(cut);
    }
  });

  it('never cuts the answer or a thought', () => {
    const out = capture(true);
    const err = capture(true);
    const r = new TextRenderer(out, err, new Chalk({ level: 0 }));
    r.emit({ type: 'thought', text: BIG });
    r.emit({ type: 'message', text: BIG });
    r.finish(finished());
    expect(out.text).toContain(BIG);
    expect(err.text).toContain(BIG);
  });
});
