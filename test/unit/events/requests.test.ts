// The events the agent's requests show: read leniently from whatever params came, and the verdict's answer.
import { describe, expect, it } from 'vitest';
import {
  permissionEvent,
  questionAnswer,
  questionEvent,
  readPlan,
  readQuestions,
  readTodos,
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
        // Options that are no list are none, and kept as sent.
        { id: null, prompt: 'Shape?', options: [], extra: { options: 'not a list' } },
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

  // What is not read is kept as sent: params that are no object whole, questions that are no list.
  it.each<[unknown, object]>([
    [undefined, {}],
    [null, {}],
    ['text', { extra: { params: 'text' } }],
    [42, { extra: { params: 42 } }],
    [[], { extra: { params: [] } }],
    [{ questions: 'many' }, { extra: { 'params.questions': 'many' } }],
  ])('params %j: no questions, nulls', (p, kept) => {
    expect(readQuestions(p)).toEqual({
      type: 'question',
      source: 'cursor/ask_question',
      toolCallId: null,
      title: null,
      questions: [],
      ...kept,
    });
  });
});

describe('readPlan (cursor/create_plan)', () => {
  it('reads the name, overview, plan and todos; the title and markdown not shown are kept', () => {
    expect(
      readPlan({
        toolCallId: 'tc-2',
        name: 'Tidy',
        title: 'not shown',
        overview: 'o',
        plan: '# steps',
        markdown: 'not shown',
        todos: [{ id: 1, content: 'c', status: 'TODO_STATUS_IN_PROGRESS' }],
      }),
    ).toEqual({
      type: 'plan',
      toolCallId: 'tc-2',
      name: 'Tidy',
      overview: 'o',
      plan: '# steps',
      todos: [{ id: '1', content: 'c', status: 'in_progress', extra: { status: 'TODO_STATUS_IN_PROGRESS' } }],
      extra: { 'params.title': 'not shown', 'params.markdown': 'not shown' },
    });
  });

  it('falls back to title for the name and markdown for the plan', () => {
    const p = readPlan({ title: 'T', markdown: 'M' });
    expect([p.name, p.plan]).toEqual(['T', 'M']);
  });

  it.each<[unknown, object]>([
    [undefined, {}],
    [null, {}],
    ['text', { extra: { params: 'text' } }],
    [[], { extra: { params: [] } }],
  ])('params %j: an empty plan', (params, kept) => {
    expect(readPlan(params)).toEqual({
      type: 'plan',
      toolCallId: null,
      name: null,
      overview: null,
      plan: '',
      todos: [],
      ...kept,
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

// The project's rule: nothing the agent sent is lost. What of a request its event does not name rides along as
// `extra`, as an update's does (updates.ts): the params' own fields as `params.<name>`, a question's, option's
// or todo's under their own names.
describe('what a request carries beyond its event is its extra', () => {
  it('cursor/update_todos: the params beyond todos, and each todo beyond id, content and status', () => {
    expect(
      readTodos({
        toolCallId: 'tc-4',
        merge: true,
        todos: [
          { id: 'a', content: 'A', status: 'TODO_STATUS_IN_PROGRESS', priority: 'high', dependencies: ['b'] },
          { id: 'b', content: 'B', status: 'pending' },
          'not a todo',
        ],
      }),
    ).toEqual({
      type: 'todos',
      todos: [
        {
          id: 'a',
          content: 'A',
          status: 'in_progress',
          extra: { status: 'TODO_STATUS_IN_PROGRESS', priority: 'high', dependencies: ['b'] },
        },
        { id: 'b', content: 'B', status: 'pending' },
      ],
      source: 'cursor/update_todos',
      extra: { 'params.toolCallId': 'tc-4', 'params.merge': true, 'params.todos': ['not a todo'] },
    });
  });

  it('cursor/update_todos with nothing more: no extra; params that are no object are extra.params', () => {
    expect(readTodos({ todos: [{ id: 'a', content: 'A', status: 'pending' }] })).toEqual({
      type: 'todos',
      todos: [{ id: 'a', content: 'A', status: 'pending' }],
      source: 'cursor/update_todos',
    });
    expect(readTodos(['x'])).toEqual({
      type: 'todos',
      todos: [],
      source: 'cursor/update_todos',
      extra: { params: ['x'] },
    });
  });

  it('cursor/ask_question: the params, each question and each option beyond what the event names', () => {
    const q = readQuestions({
      toolCallId: 'tc-9',
      title: 'Pick',
      _meta: { trace: 't' },
      questions: [
        {
          id: 'q1',
          prompt: 'Colour?',
          question: 'also sent',
          allowMultiple: false,
          options: [{ id: 'r', label: 'Red', description: 'warm' }, { id: 'g' }, 'blue'],
        },
        { id: 7, question: 'Size?' },
        'not a question',
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
            { id: 'r', label: 'Red', extra: { description: 'warm' } },
            { id: 'g', label: 'g' },
          ],
          extra: { question: 'also sent', allowMultiple: false, options: ['blue'] },
        },
        // A number id is none of the event's (a string or null): kept as sent.
        { id: null, prompt: 'Size?', options: [], extra: { id: 7 } },
      ],
      extra: { 'params._meta': { trace: 't' }, 'params.questions': ['not a question'] },
    });
  });

  it('cursor/ask_question: a title or toolCallId of another type is kept, a null one is nothing sent', () => {
    const q = readQuestions({ toolCallId: 5, title: null, questions: [] });
    expect(q.extra).toEqual({ 'params.toolCallId': 5 });
  });

  it('cursor/create_plan: the params beyond those it names, the second of two names, and its todos', () => {
    expect(
      readPlan({
        toolCallId: 'tc-2',
        name: 'Tidy',
        title: 'also a name',
        overview: 'o',
        plan: '# steps',
        markdown: '# also steps',
        isProject: false,
        todos: [{ id: 1, content: 'c', status: 'pending', priority: 'low' }, 3],
      }),
    ).toEqual({
      type: 'plan',
      toolCallId: 'tc-2',
      name: 'Tidy',
      overview: 'o',
      plan: '# steps',
      todos: [{ id: '1', content: 'c', status: 'pending', extra: { priority: 'low' } }],
      extra: {
        'params.title': 'also a name',
        'params.markdown': '# also steps',
        'params.isProject': false,
        'params.todos': [3],
      },
    });
  });

  it('cursor/create_plan: the fallbacks it shows are carried, not kept again', () => {
    expect(readPlan({ name: 4, title: 'T', markdown: 'M' }).extra).toEqual({ 'params.name': 4 });
  });

  it('an own __proto__ key stays a key, never a prototype', () => {
    const q = readQuestions(JSON.parse('{"questions":[{"prompt":"p","__proto__":{"x":1}}]}'));
    const extra = q.questions[0]!.extra!;
    expect(Object.getPrototypeOf(extra)).toBe(Object.prototype);
    expect(Object.hasOwn(extra, '__proto__')).toBe(true);
    expect(JSON.stringify(extra)).toBe('{"__proto__":{"x":1}}');
  });

  it("the permission and question events carry the request's extra", () => {
    const extra = { 'params._meta': { trace: 't' } };
    const decision = { optionId: 'a', kind: 'allow_once' };
    const v = { decision, reason: 'r', decidedBy: 'policy' as const };
    expect(permissionEvent(request({ isQuestion: false, extra }), v).extra).toEqual(extra);
    expect(questionEvent(request({ extra }), { outcome: 'cancelled' }).extra).toEqual(extra);
    expect(permissionEvent(request({ isQuestion: false }), v)).not.toHaveProperty('extra');
    expect(questionEvent(request(), { outcome: 'cancelled' })).not.toHaveProperty('extra');
  });
});
