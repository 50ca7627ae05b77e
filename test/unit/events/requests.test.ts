// The events the agent's requests show: read leniently from whatever params came, and the verdict's answer.
import { describe, expect, it } from 'vitest';
import {
  permissionEvent,
  questionAnswer,
  questionEvent,
  readPlan,
  readQuestions,
} from '../../../src/events/requests.js';
import type { PermissionRequest } from '../../../src/policy/decide.js';

const request = (over: Partial<PermissionRequest> = {}): PermissionRequest => ({
  toolCallId: 'tc-1',
  title: 'Which file?',
  kind: 'other',
  options: [
    { optionId: 'a', name: 'a.ts', kind: 'allow_once' },
    { optionId: 'skip', name: 'Skip', kind: 'reject_once' },
  ],
  agentReason: null,
  isQuestion: true,
  ...over,
});

describe('readQuestions (cursor/ask_question)', () => {
  it('reads each question, its prompt and its options', () => {
    const q = readQuestions({
      toolCallId: 'tc-9',
      title: 'Pick',
      questions: [
        { id: 'q1', prompt: 'Colour?', options: [{ id: 'r', label: 'Red' }, { id: 'g' }] },
        { id: 'q2', question: 'Size?' },
        { title: 'Shape?', options: 'not a list' },
        {},
      ],
    });
    expect(q).toEqual({
      type: 'question',
      source: 'cursor/ask_question',
      toolCallId: 'tc-9',
      title: 'Pick',
      questions: [
        {
          id: 'q1',
          prompt: 'Colour?',
          options: [
            { id: 'r', label: 'Red' },
            { id: 'g', label: 'g' },
          ],
        },
        { id: 'q2', prompt: 'Size?', options: [] },
        { id: null, prompt: 'Shape?', options: [] },
        { id: null, prompt: '', options: [] },
      ],
    });
  });

  it('prefers prompt over question over title, and skips entries that are not objects', () => {
    const q = readQuestions({
      questions: [{ prompt: 'p', question: 'q', title: 't' }, 'text', null, { question: 'q', title: 't' }],
    });
    expect(q.questions.map((x) => x.prompt)).toEqual(['p', 'q']);
    expect(q.questions).toHaveLength(2);
  });

  it('an option without an id or label is an empty one, not undefined; a non-object option is dropped', () => {
    const q = readQuestions({ questions: [{ options: [{}, 7, { id: 3 }] }] });
    expect(q.questions[0]!.options).toEqual([
      { id: '', label: '' },
      { id: '3', label: '3' },
    ]);
  });

  it.each([undefined, null, 'text', 42, [], { questions: 'many' }])('params %j: no questions, nulls', (p) => {
    expect(readQuestions(p)).toEqual({
      type: 'question',
      source: 'cursor/ask_question',
      toolCallId: null,
      title: null,
      questions: [],
    });
  });
});

describe('readPlan (cursor/create_plan)', () => {
  it('reads the name, overview, plan and todos', () => {
    expect(
      readPlan({
        toolCallId: 'tc-2',
        name: 'Tidy',
        title: 'ignored',
        overview: 'o',
        plan: '# steps',
        markdown: 'ignored',
        todos: [{ id: 1, content: 'c', status: 'TODO_STATUS_IN_PROGRESS' }],
      }),
    ).toEqual({
      type: 'plan',
      toolCallId: 'tc-2',
      name: 'Tidy',
      overview: 'o',
      plan: '# steps',
      todos: [{ id: '1', content: 'c', status: 'in_progress' }],
    });
  });

  it('falls back to title for the name and markdown for the plan', () => {
    const p = readPlan({ title: 'T', markdown: 'M' });
    expect([p.name, p.plan]).toEqual(['T', 'M']);
  });

  it.each([undefined, null, 'text', []])('params %j: an empty plan', (params) => {
    expect(readPlan(params)).toEqual({
      type: 'plan',
      toolCallId: null,
      name: null,
      overview: null,
      plan: '',
      todos: [],
    });
  });
});

describe('questionEvent (a permission request that is a question)', () => {
  it('asks the agent’s reason, offers the request’s options, carries the answer', () => {
    const answer = { outcome: 'answered' as const, optionId: 'a' };
    expect(questionEvent(request({ agentReason: 'Which one to edit?' }), answer)).toEqual({
      type: 'question',
      source: 'session/request_permission',
      toolCallId: 'tc-1',
      title: 'Which file?',
      questions: [
        {
          id: null,
          prompt: 'Which one to edit?',
          options: [
            { id: 'a', label: 'a.ts' },
            { id: 'skip', label: 'Skip' },
          ],
        },
      ],
      answer,
    });
  });

  it('without a reason the title is the prompt; an empty toolCallId is null', () => {
    const e = questionEvent(request({ toolCallId: '' }), { outcome: 'cancelled' });
    expect(e.questions[0]!.prompt).toBe('Which file?');
    expect(e.toolCallId).toBeNull();
  });
});

describe('questionAnswer', () => {
  it.each([
    [
      { optionId: 'a', kind: 'allow_once' },
      { outcome: 'answered', optionId: 'a' },
    ],
    [
      { optionId: 'skip', kind: 'reject_once' },
      { outcome: 'skipped', optionId: 'skip' },
    ],
    [
      { optionId: 'x', kind: 'reject_always' },
      { outcome: 'answered', optionId: 'x' },
    ],
    [{ outcome: 'cancelled' as const }, { outcome: 'cancelled' }],
  ])('%j -> %j', (decision, answer) => {
    expect(questionAnswer({ decision, reason: 'r', decidedBy: 'person' })).toEqual(answer);
  });
});

describe('permissionEvent', () => {
  it('is the request, the decision, its reason and who decided', () => {
    const req = request({ kind: 'execute', agentReason: 'run the tests', isQuestion: false });
    const decision = { optionId: 'a', kind: 'allow_once' };
    expect(permissionEvent(req, { decision, reason: 'rule: Shell(npm test)', decidedBy: 'rule' })).toEqual({
      type: 'permission',
      toolCallId: 'tc-1',
      title: 'Which file?',
      kind: 'execute',
      options: req.options,
      decision,
      reason: 'rule: Shell(npm test)',
      agentReason: 'run the tests',
      decidedBy: 'rule',
    });
  });
});
