import { describe, expect, it } from 'vitest';
import { MAX_KEPT, RunSummary } from '../../../src/events/collect.js';
import { ANSWER_KEPT_MAX } from '../../../src/events/facts.js';
import { MAX_INPUT_KEYS } from '../../../src/events/tools.js';
import type { PermissionEvent, ResultEvent, ToolEvent } from '../../../src/events/types.js';

const result: ResultEvent = {
  type: 'result',
  stopReason: 'end_turn',
  exitCode: 0,
  sessionId: 's1',
  model: 'composer-2.5[fast=true]',
  mode: 'agent',
  title: 'Tidy Up',
  durationMs: 1234,
  timings: { initializeMs: 476, sessionNewMs: 2810, promptMs: 900 },
  usage: null,
  structured: null,
};

const tool = (status: ToolEvent['status']): ToolEvent => ({
  type: 'tool',
  toolCallId: 'sh',
  kind: 'execute',
  title: '`ls`',
  status,
  input: { command: 'ls' },
  output: null,
  locations: [],
});

const permission: PermissionEvent = {
  type: 'permission',
  toolCallId: 'sh',
  title: '`ls`',
  kind: 'execute',
  options: [{ optionId: 'reject-once', name: 'Reject', kind: 'reject_once' }],
  decision: { optionId: 'reject-once', kind: 'reject_once' },
  reason: '--permissions reject',
  agentReason: 'Shell allowlist is empty',
  decidedBy: 'policy',
};

describe('RunSummary', () => {
  it('gathers the text, the final tool states, decisions, todos and warnings', () => {
    const summary = new RunSummary();
    summary.add({ type: 'message', text: 'Hello' });
    summary.add({ type: 'thought', text: 'hmm' });
    summary.add(tool('pending'));
    summary.add({ type: 'message', text: ', world' });
    summary.add(permission);
    summary.add(tool('rejected'));
    summary.add({ type: 'todos', source: 'tool', todos: [{ id: 'a', content: 'A', status: 'pending' }] });
    summary.add({ type: 'todos', source: 'tool', todos: [{ id: 'a', content: 'A', status: 'completed' }] });
    summary.add({ type: 'warning', code: 'policy-fences-nothing', message: 'nothing fenced' });
    summary.add({ type: 'mode', mode: 'plan' });
    summary.add({ type: 'extension', method: 'session/update', params: {} });

    expect(summary.output(result)).toEqual({
      ...result,
      text: 'Hello, world',
      tools: [tool('rejected')],
      permissions: [permission],
      questions: [],
      plans: [],
      todos: [{ id: 'a', content: 'A', status: 'completed' }],
      warnings: [{ type: 'warning', code: 'policy-fences-nothing', message: 'nothing fenced' }],
    });
  });

  it("keeps what every update of a tool carried as extra, each field's latest, with its final state (found by review)", () => {
    const summary = new RunSummary();
    summary.add({ ...tool('pending'), extra: { _meta: { startedAt: 1 }, status: 'queued' } });
    summary.add(tool('in_progress'));
    summary.add({ ...tool('completed'), extra: { status: 'done', rawOutput: { durationMs: 5 } } });
    expect(summary.output(result).tools).toEqual([
      {
        ...tool('completed'),
        extra: { _meta: { startedAt: 1 }, status: 'done', rawOutput: { durationMs: 5 } },
      },
    ]);
    // An update with none keeps what came before.
    const later = new RunSummary();
    later.add({ ...tool('pending'), extra: { _meta: 1 } });
    later.add(tool('completed'));
    expect(later.output(result).tools).toEqual([{ ...tool('completed'), extra: { _meta: 1 } }]);
    // A tool with no extra at all carries none.
    const plain = new RunSummary();
    plain.add(tool('pending'));
    plain.add(tool('completed'));
    expect(plain.output(result).tools).toEqual([tool('completed')]);
  });

  it(`holds at most MAX_INPUT_KEYS (${MAX_INPUT_KEYS}) fields of earlier extras, the latest update's whole, __proto__ a key`, () => {
    const summary = new RunSummary();
    // A new field name in each of 1,500 updates.
    for (let i = 0; i < 1500; i++) summary.add({ ...tool('in_progress'), extra: { [`k${i}`]: i } });
    const own = JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>;
    summary.add({ ...tool('in_progress'), extra: own });
    summary.add({ ...tool('completed'), extra: { last: 1 } });
    const extra = summary.output(result).tools[0]!.extra!;
    expect(Object.keys(extra)).toHaveLength(MAX_INPUT_KEYS);
    expect(extra.last).toBe(1);
    expect(Object.hasOwn(extra, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(extra)).toBe(Object.prototype);
    expect(extra.k1499).toBe(1499);
  });

  it('keeps questions and plans in order', () => {
    const summary = new RunSummary();
    const question = {
      type: 'question' as const,
      source: 'cursor/ask_question' as const,
      toolCallId: null,
      title: 'Tone',
      questions: [],
      answer: { outcome: 'skipped' },
    };
    const plan = {
      type: 'plan' as const,
      toolCallId: 'p',
      name: 'Greeting',
      overview: null,
      plan: '# Plan',
      todos: [],
      answer: { outcome: 'accepted' },
    };
    summary.add(question);
    summary.add(plan);
    expect(summary.output(result)).toMatchObject({ questions: [question], plans: [plan] });
  });

  it('gives empty lists and empty text for a run with no events', () => {
    expect(new RunSummary().output(result)).toEqual({
      ...result,
      text: '',
      tools: [],
      permissions: [],
      questions: [],
      plans: [],
      todos: [],
      warnings: [],
    });
  });

  it('answers with the last try alone after a retried attempt, keeping what else happened', () => {
    const summary = new RunSummary();
    summary.add({ type: 'message', text: 'half an ans' });
    summary.add({ type: 'warning', code: 'w', message: 'first try failed' });
    summary.add({
      type: 'attempt',
      attempt: 1,
      error: { code: 'agent_exited', message: 'exited' },
      retryInMs: 1000,
    });
    summary.add({ type: 'message', text: 'the answer' });
    expect(summary.output(result)).toMatchObject({
      text: 'the answer',
      warnings: [{ type: 'warning', code: 'w', message: 'first try failed' }],
    });
  });

  it('keeps one final state per tool, in the order the tools started', () => {
    const summary = new RunSummary();
    summary.add({ ...tool('pending'), toolCallId: 'a' });
    summary.add({ ...tool('pending'), toolCallId: 'b' });
    summary.add({ ...tool('completed'), toolCallId: 'a' });
    expect(summary.output(result).tools.map((t) => [t.toolCallId, t.status])).toEqual([
      ['a', 'completed'],
      ['b', 'pending'],
    ]);
  });
});

describe('what the json output keeps is bounded', () => {
  it('the first MAX_KEPT permissions, questions and plans, and warnings of each code; the rest counted in omitted', () => {
    const s = new RunSummary();
    for (let i = 0; i < MAX_KEPT + 3; i++) {
      s.add(permission);
      s.add({ type: 'question', toolCallId: `q${i}`, title: 'pick', options: [], decision: null } as never);
      s.add({ type: 'plan', name: `p${i}` } as never);
      s.add({ type: 'warning', code: 'agent-non-json', message: `line ${i}` });
    }
    // A warning of another code, after the flood: kept, not pushed out by it.
    s.add({ type: 'warning', code: 'unaccounted-change', message: 'src/a.ts changed' });
    const out = s.output(result);
    expect(out.permissions).toHaveLength(MAX_KEPT);
    expect(out.questions).toHaveLength(MAX_KEPT);
    expect(out.plans).toHaveLength(MAX_KEPT);
    expect(out.warnings).toHaveLength(MAX_KEPT + 1);
    expect(out.warnings.at(-1)).toMatchObject({ code: 'unaccounted-change' });
    expect(out.warnings[MAX_KEPT - 1]).toMatchObject({ message: `line ${MAX_KEPT - 1}` });
    expect(out.omitted).toEqual({ permissions: 3, questions: 3, plans: 3, warnings: 3 });
  });

  it('no omitted field when everything was kept', () => {
    const s = new RunSummary();
    s.add(permission);
    expect(s.output(result)).not.toHaveProperty('omitted');
  });
});

describe('RunSummary: json text is bounded as the answer kept for -o is', () => {
  it('keeps ANSWER_KEPT_MAX characters of the text; a new try starts again', () => {
    const summary = new RunSummary();
    summary.add({ type: 'message', text: 'x'.repeat(ANSWER_KEPT_MAX - 1) });
    summary.add({ type: 'message', text: 'yz' });
    summary.add({ type: 'message', text: 'more' });
    const text = summary.output(result).text;
    expect(text.length).toBe(ANSWER_KEPT_MAX);
    expect(text.endsWith('xy')).toBe(true);
    summary.add({
      type: 'attempt',
      attempt: 2,
      of: 2,
      error: { code: 'agent_exited', message: 'x' },
      delayMs: 0,
    } as never);
    summary.add({ type: 'message', text: 'again' });
    expect(summary.output(result).text).toBe('again');
  });
});
