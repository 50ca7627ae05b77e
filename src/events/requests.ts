// Pure: the events the agent's requests show, read leniently from their params and the verdict on them.
import { idText, isRecord, str } from '../acp/messages.js';
import type { PermissionRequest, Verdict } from '../policy/decide.js';
import { normalizeTodos } from './tools.js';
import type { PermissionEvent, PlanEvent, QuestionEvent } from './types.js';

export type QuestionBase = Omit<QuestionEvent, 'answer'>;
export type PlanBase = Omit<PlanEvent, 'answer' | 'decidedBy'>;

// cursor/ask_question's params as the question event, without its answer.
export function readQuestions(params: unknown): QuestionBase {
  const p = isRecord(params) ? params : {};
  const questions: QuestionEvent['questions'] = (Array.isArray(p.questions) ? p.questions : [])
    .filter(isRecord)
    .map((q) => ({
      id: str(q.id),
      prompt: str(q.prompt) ?? str(q.question) ?? str(q.title) ?? '',
      options: (Array.isArray(q.options) ? q.options : [])
        .filter(isRecord)
        .map((o) => ({ id: idText(o.id), label: str(o.label) ?? idText(o.id) })),
    }));
  return {
    type: 'question',
    source: 'cursor/ask_question',
    toolCallId: str(p.toolCallId),
    title: str(p.title),
    questions,
  };
}

// cursor/create_plan's params as the plan event, without its answer.
export function readPlan(params: unknown): PlanBase {
  const p = isRecord(params) ? params : {};
  return {
    type: 'plan',
    toolCallId: str(p.toolCallId),
    name: str(p.name) ?? str(p.title),
    overview: str(p.overview),
    plan: str(p.plan) ?? str(p.markdown) ?? '',
    todos: normalizeTodos(p.todos),
  };
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
  return {
    type: 'question',
    source: 'session/request_permission',
    toolCallId: req.toolCallId || null,
    title: req.title,
    questions,
    answer,
  };
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
  return {
    type: 'permission',
    toolCallId: req.toolCallId,
    title: req.title,
    kind: req.kind,
    options: req.options,
    decision: v.decision,
    reason: v.reason,
    agentReason: req.agentReason,
    decidedBy: v.decidedBy,
  };
}
