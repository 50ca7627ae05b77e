// Pure: the events the agent's requests show, read leniently from their params and the verdict on them. What
// a request carries that its event does not is the event's `extra` (uncarried.ts), as an update's is.
import { idText, isRecord, str } from '../acp/messages.js';
import type { PermissionRequest, Verdict } from '../policy/decide.js';
import { normalizeTodos } from './tools.js';
import type { PermissionEvent, PlanEvent, QuestionEvent, TodosEvent } from './types.js';
import {
  anyValue,
  firstString,
  objects,
  paramsRest,
  text,
  uncarried,
  withExtra,
  type Carried,
} from './uncarried.js';

export type QuestionBase = Omit<QuestionEvent, 'answer'>;
export type PlanBase = Omit<PlanEvent, 'answer' | 'decidedBy'>;

// The fields each request's event names, and how much of each it carries; any other is its `extra`.
const TODOS_PARAMS: Readonly<Record<string, Carried>> = { todos: objects };
const PROMPT = firstString('prompt', 'question', 'title');
const QUESTION_PARAMS: Readonly<Record<string, Carried>> = {
  toolCallId: text,
  title: text,
  questions: objects,
};
const QUESTION_FIELDS: Readonly<Record<string, Carried>> = {
  id: text,
  prompt: PROMPT,
  question: PROMPT,
  title: PROMPT,
  options: objects,
};
const OPTION_FIELDS: Readonly<Record<string, Carried>> = { id: anyValue, label: text };
const NAME = firstString('name', 'title');
const PLAN = firstString('plan', 'markdown');
const PLAN_PARAMS: Readonly<Record<string, Carried>> = {
  toolCallId: text,
  name: NAME,
  title: NAME,
  overview: text,
  plan: PLAN,
  markdown: PLAN,
  todos: objects,
};

// cursor/update_todos's params as the todos event: Cursor sends a toolCallId and `merge` beside the todos.
export function readTodos(params: unknown): TodosEvent {
  const todos = normalizeTodos(isRecord(params) ? params.todos : undefined, true);
  return withExtra({ type: 'todos', todos, source: 'cursor/update_todos' }, paramsRest(params, TODOS_PARAMS));
}

// cursor/ask_question's params as the question event, without its answer.
export function readQuestions(params: unknown): QuestionBase {
  const p = isRecord(params) ? params : {};
  const questions: QuestionEvent['questions'] = (Array.isArray(p.questions) ? p.questions : [])
    .filter(isRecord)
    .map((q) => {
      const options = (Array.isArray(q.options) ? q.options : [])
        .filter(isRecord)
        .map((o) =>
          withExtra({ id: idText(o.id), label: str(o.label) ?? idText(o.id) }, uncarried(o, OPTION_FIELDS)),
        );
      const question = {
        id: str(q.id),
        prompt: str(q.prompt) ?? str(q.question) ?? str(q.title) ?? '',
        options,
      };
      return withExtra(question, uncarried(q, QUESTION_FIELDS));
    });
  return withExtra(
    {
      type: 'question',
      source: 'cursor/ask_question',
      toolCallId: str(p.toolCallId),
      title: str(p.title),
      questions,
    },
    paramsRest(params, QUESTION_PARAMS),
  );
}

// cursor/create_plan's params as the plan event, without its answer.
export function readPlan(params: unknown): PlanBase {
  const p = isRecord(params) ? params : {};
  return withExtra(
    {
      type: 'plan',
      toolCallId: str(p.toolCallId),
      name: str(p.name) ?? str(p.title),
      overview: str(p.overview),
      plan: str(p.plan) ?? str(p.markdown) ?? '',
      todos: normalizeTodos(p.todos, true),
    },
    paramsRest(params, PLAN_PARAMS),
  );
}

// The question event of a permission request that is really a question (it offers the skip option).
export function questionEvent(req: PermissionRequest, answer: QuestionEvent['answer']): QuestionEvent {
  const questions = [
    {
      id: null,
      prompt: req.agentReason ?? req.title,
      options: req.options.map((o) => ({ id: o.optionId, label: o.name })),
    },
  ];
  return withExtra(
    {
      type: 'question',
      source: 'session/request_permission',
      toolCallId: req.toolCallId || null,
      title: req.title,
      questions,
      answer,
    },
    req.extra,
  );
}

// What a verdict on a permission request that is really a question shows as its answer.
export function questionAnswer(v: Verdict): QuestionEvent['answer'] {
  if (!('optionId' in v.decision)) return { outcome: 'cancelled' };
  return {
    outcome: v.decision.kind === 'reject_once' ? 'skipped' : 'answered',
    optionId: v.decision.optionId,
  };
}

// The permission event: the request, the decision, and who made it.
export function permissionEvent(
  req: PermissionRequest,
  v: Omit<Verdict, 'decidedBy'> & { decidedBy: PermissionEvent['decidedBy'] },
): PermissionEvent {
  return withExtra(
    {
      type: 'permission',
      toolCallId: req.toolCallId,
      title: req.title,
      kind: req.kind,
      options: req.options,
      decision: v.decision,
      reason: v.reason,
      agentReason: req.agentReason,
      decidedBy: v.decidedBy,
    },
    req.extra,
  );
}
