// The stream-json events as zod schemas: the single source of their TypeScript types and of `rho-cursor schema`.
// Loaded at run time only by `schema`; the hot path uses the inferred types alone.
import { z } from 'zod';
import { ERROR_CODES } from '../errors.js';
import { FENCES } from '../options.js';

export const TOOL_STATUSES = [
  'pending',
  'in_progress',
  'completed',
  'failed',
  'rejected',
  'cancelled',
] as const;

const Todo = z.object({ id: z.string(), content: z.string(), status: z.string() }).loose();

const PermissionOption = z
  .object({ optionId: z.string(), name: z.string().optional(), kind: z.string() })
  .loose();

const Decision = z.union([
  z.object({ optionId: z.string(), kind: z.string() }),
  z.object({ outcome: z.literal('cancelled') }),
]);

const Diff = z.object({ path: z.string(), oldText: z.string().nullable(), newText: z.string() });

const ToolOutput = z
  .union([
    z.object({ exitCode: z.number().nullable(), stdout: z.string(), stderr: z.string() }).describe('execute'),
    z.object({ content: z.string() }).describe('read'),
    z
      .object({
        totalMatches: z.number().optional(),
        totalFiles: z.number().optional(),
        truncated: z.boolean().optional(),
      })
      .loose()
      .describe('search'),
    z.object({ diffs: z.array(Diff) }).describe('edit'),
    z.unknown(),
  ])
  .nullable();

export const SessionEvent = z.object({
  type: z.literal('session'),
  sessionId: z.string(),
  model: z.string().nullable(),
  mode: z.string().nullable(),
  modes: z.array(z.string()),
  configDir: z.string(),
  configDirSource: z.enum(['CURSOR_CONFIG_DIR', 'XDG_CONFIG_HOME', 'home']),
  approvalMode: z.string(),
  permissions: z.enum(['reject', 'allow', 'ask']),
  allow: z.array(z.string()),
  cwd: z.string(),
  agent: z.object({ name: z.string().nullable(), version: z.string().nullable() }),
  /** The run's --fence: the tool kinds it stops under any policy, and those it leaves to Cursor and the policy. */
  fence: z.object({
    name: z.enum(FENCES),
    blocked: z.array(z.string()),
    open: z.array(z.string()),
  }),
});

export const MessageEvent = z.object({ type: z.literal('message'), text: z.string() });
export const ThoughtEvent = z.object({ type: z.literal('thought'), text: z.string() });

export const ToolEvent = z.object({
  type: z.literal('tool'),
  toolCallId: z.string(),
  kind: z.string(),
  title: z.string(),
  status: z.enum(TOOL_STATUSES),
  input: z.record(z.string(), z.unknown()),
  output: ToolOutput,
  locations: z.array(z.object({ path: z.string(), line: z.number().optional() }).loose()),
  /** What Cursor itself said the status was, where rho-cursor corrected it (a rejected tool Cursor calls completed). */
  reportedStatus: z.string().optional(),
});

export const PermissionEvent = z.object({
  type: z.literal('permission'),
  toolCallId: z.string(),
  title: z.string(),
  kind: z.string(),
  options: z.array(PermissionOption),
  decision: Decision,
  reason: z.string(),
  /** Why Cursor asked, when it said (e.g. "Shell allowlist is empty"). */
  agentReason: z.string().nullable(),
  decidedBy: z.enum(['policy', 'allow-flag', 'person', 'cancel', 'no-option']),
});

const Question = z.object({
  id: z.string().nullable(),
  prompt: z.string(),
  options: z.array(z.object({ id: z.string(), label: z.string() })),
});

export const QuestionEvent = z.object({
  type: z.literal('question'),
  source: z.enum(['cursor/ask_question', 'session/request_permission']),
  toolCallId: z.string().nullable(),
  title: z.string().nullable(),
  questions: z.array(Question),
  answer: z.object({ outcome: z.string() }).loose(),
});

export const PlanEvent = z.object({
  type: z.literal('plan'),
  toolCallId: z.string().nullable(),
  name: z.string().nullable(),
  overview: z.string().nullable(),
  plan: z.string(),
  todos: z.array(Todo),
  answer: z.object({ outcome: z.string(), reason: z.string().optional() }),
});

export const TodosEvent = z.object({
  type: z.literal('todos'),
  todos: z.array(Todo),
  source: z.enum(['cursor/update_todos', 'tool']),
});

export const ModeEvent = z.object({ type: z.literal('mode'), mode: z.string() });

export const WarningEvent = z.object({
  type: z.literal('warning'),
  code: z.string(),
  message: z.string(),
  /** The whole line, for a line from the agent that is not JSON-RPC. */
  line: z.string().optional(),
});

export const ExtensionEvent = z.object({
  type: z.literal('extension'),
  method: z.string(),
  params: z.unknown(),
});

export const Timings = z.object({
  initializeMs: z.number().nullable(),
  sessionNewMs: z.number().nullable(),
  promptMs: z.number().nullable(),
});

export const ResultEvent = z.object({
  type: z.literal('result'),
  stopReason: z.string().nullable(),
  exitCode: z.number().int(),
  sessionId: z.string().nullable(),
  model: z.string().nullable(),
  mode: z.string().nullable(),
  title: z.string().nullable(),
  durationMs: z.number(),
  timings: Timings,
  usage: z.null(),
  error: z.object({ code: z.enum(ERROR_CODES), message: z.string() }).optional(),
});

export const Event = z.discriminatedUnion('type', [
  SessionEvent,
  MessageEvent,
  ThoughtEvent,
  ToolEvent,
  PermissionEvent,
  QuestionEvent,
  PlanEvent,
  TodosEvent,
  ModeEvent,
  WarningEvent,
  ExtensionEvent,
  ResultEvent,
]);

export const JsonOutput = ResultEvent.extend({
  text: z.string(),
  tools: z.array(ToolEvent),
  permissions: z.array(PermissionEvent),
  questions: z.array(QuestionEvent),
  plans: z.array(PlanEvent),
  todos: z.array(Todo),
  warnings: z.array(WarningEvent),
});

// The JSON Schema documents `rho-cursor schema` prints: every stream-json line, and the json output.
export function jsonSchemas(): { event: unknown; json: unknown } {
  return {
    event: z.toJSONSchema(Event, { unrepresentable: 'any' }),
    json: z.toJSONSchema(JsonOutput, { unrepresentable: 'any' }),
  };
}
