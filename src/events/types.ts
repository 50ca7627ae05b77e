// Event types inferred from the zod schemas; a type-only import keeps zod off the run's start-up path.
import type { z } from 'zod';
import type * as S from './schema.js';

export type SessionEvent = z.infer<typeof S.SessionEvent>;
export type MessageEvent = z.infer<typeof S.MessageEvent>;
export type ThoughtEvent = z.infer<typeof S.ThoughtEvent>;
export type ToolEvent = z.infer<typeof S.ToolEvent>;
export type PermissionEvent = z.infer<typeof S.PermissionEvent>;
export type QuestionEvent = z.infer<typeof S.QuestionEvent>;
export type PlanEvent = z.infer<typeof S.PlanEvent>;
export type TodosEvent = z.infer<typeof S.TodosEvent>;
export type ModeEvent = z.infer<typeof S.ModeEvent>;
export type WarningEvent = z.infer<typeof S.WarningEvent>;
export type ExtensionEvent = z.infer<typeof S.ExtensionEvent>;
export type ResultEvent = z.infer<typeof S.ResultEvent>;
export type ChangesField = z.infer<typeof S.Changes>;
export type ValidationEvent = z.infer<typeof S.ValidationEvent>;
export type HistoryEvent = z.infer<typeof S.HistoryEvent>;
export type AttemptEvent = z.infer<typeof S.AttemptEvent>;
export type Event = z.infer<typeof S.Event>;
export type JsonOutput = z.infer<typeof S.JsonOutput>;
export type ToolStatus = ToolEvent['status'];
export type Todo = TodosEvent['todos'][number];
