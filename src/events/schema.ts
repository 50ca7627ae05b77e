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

const Todo = z
  .object({
    id: z.string(),
    content: z.string(),
    status: z.string().describe('pending, in_progress, completed or cancelled'),
    extra: z
      .record(z.string(), z.unknown())
      .optional()
      .describe(
        "the fields of an ACP plan entry or of a cursor/update_todos or cursor/create_plan todo this todo does not name (a todo's priority, dependencies), a content or a plan entry's priority that is no string, and a request's todo's status not shown as sent (TODO_STATUS_IN_PROGRESS, shown in_progress; one that is no string), as the agent sent them; absent when none, and always for source tool (the tool's input holds its todos whole)",
      ),
  })
  .loose()
  .meta({ title: 'todo' });

const PermissionOption = z
  .object({ optionId: z.string(), name: z.string().optional(), kind: z.string() })
  .loose();

const Decision = z
  .union([
    z.object({ optionId: z.string(), kind: z.string() }).describe('the option selected'),
    z.object({ outcome: z.literal('cancelled') }).describe('answered cancelled, or withdrawn by the agent'),
  ])
  .meta({ title: 'decision' });

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
    z.array(z.unknown()).describe('an array the agent sent as its rawOutput, carried as it came'),
    z
      .unknown()
      .describe(
        "any other JSON value the agent sent as rawOutput, carried as it came (a string is shaped by kind: {exitCode: null, stdout, stderr: ''} for execute, {content} otherwise)",
      ),
  ])
  .nullable();

export const SessionEvent = z.object({
  type: z.literal('session'),
  sessionId: z.string(),
  model: z.string().nullable(),
  mode: z.string().nullable(),
  modes: z.array(z.string()),
  configDir: z.string().describe("Cursor's config dir (yours, not the fence's); Cursor's alone"),
  configDirSource: z.enum(['CURSOR_CONFIG_DIR', 'XDG_CONFIG_HOME', 'home']),
  approvalMode: z
    .string()
    .describe(
      "Cursor's approvalMode from its cli-config.json, unrestricted when not set there; an agent that is not Cursor (agent.cursor false) does not read it",
    ),
  permissions: z.enum(['reject', 'allow', 'ask']),
  allow: z.array(z.string()),
  /** Every --allow and --deny value as read: bare kinds and rules (Shell(npm:test), Write(src/**), ...). */
  rules: z.object({ allow: z.array(z.string()), deny: z.array(z.string()) }),
  cwd: z.string(),
  agent: z.object({
    name: z.string().nullable(),
    title: z
      .string()
      .nullable()
      .describe("the agent's agentInfo.title, the name its lines are labelled with"),
    version: z.string().nullable(),
    cursor: z
      .boolean()
      .describe(
        "the agent is Cursor's (by its name at spawn, then its initialize answer): Cursor's behaviour applies",
      ),
  }),
  /** The run's --fence: the tool kinds it stops under any policy, and those it leaves to Cursor and the policy. */
  fence: z.object({
    name: z.enum(FENCES),
    blocked: z.array(z.string()),
    open: z.array(z.string()),
    by: z
      .string()
      .nullable()
      .describe(
        "what enforces it: Cursor's deny rules and permission answers, or for any other agent 'permission answers and the ledger'; null for none",
      ),
  }),
  resumed: z
    .boolean()
    .describe('true when the session was loaded (--resume, --continue) rather than created'),
  replayed: z.number().int().describe('how many history events the agent replayed while loading it'),
});

// A non-text content block of a message or thought chunk, named so text mode can list it.
const ContentRef = z
  .object({
    type: z.string().describe('image, audio, resource_link or resource'),
    name: z.string().nullable().describe("the block's name, or its uri, or null"),
    uri: z.string().nullable(),
    mimeType: z.string().nullable(),
  })
  .meta({ title: 'content', description: 'a non-text content block; its data is not copied' });

/** What a known update carried beyond what its event names: kept, so nothing the agent sent is lost. */
const Extra = z
  .record(z.string(), z.unknown())
  .optional()
  .describe(
    "fields of the session/update this event does not name (its params' own as `params.<name>`, e.g. `params._meta`), and under a named field's own name what of it the event does not carry: a tool's rawOutput keys and content blocks its output leaves out, a title, kind, status, rawInput or locations of another type (or the locations that are none), a plan's entries that are no object; as the agent sent them, absent when none",
  );

/** What a request of the agent carried beyond what its event names: kept, so nothing the agent sent is lost. */
const RequestExtra = z
  .record(z.string(), z.unknown())
  .optional()
  .describe(
    "the request's params this event does not carry, as `params.<name>` (e.g. `params._meta`): fields it does not name, a named field of another type than the event's (or the second of two it shows one of: a plan's title beside its name, its markdown beside its plan), and of a list of objects its entries that are no object (or the value that is no list); params that are no object, whole as `params`; as the agent sent them, absent when none",
  );

/** What of a question or option of cursor/ask_question its object does not carry. */
const ItemExtra = z.record(z.string(), z.unknown()).optional();

export const MessageEvent = z
  .object({
    type: z.literal('message'),
    text: z
      .string()
      .describe(
        "a chunk of the agent's reply (an embedded resource's text included); empty for a chunk written only for its extra (an empty chunk, one whose one character waits for the rest of its surrogate pair, or one whose text all waits as what could be part of the key)",
      ),
    content: ContentRef.optional(),
    extra: Extra,
  })
  .meta({ title: 'message', description: "a chunk of the agent's reply" });
export const ThoughtEvent = z
  .object({
    type: z.literal('thought'),
    text: z.string(),
    content: ContentRef.optional(),
    extra: Extra,
  })
  .meta({ title: 'thought', description: "a chunk of the agent's reasoning" });

export const ToolEvent = z
  .object({
    type: z.literal('tool'),
    toolCallId: z.string(),
    kind: z
      .string()
      .describe('read, edit, delete, move, search, execute, think, fetch, switch_mode or other'),
    title: z.string(),
    status: z.enum(TOOL_STATUSES),
    input: z.record(z.string(), z.unknown()).describe("the tool's rawInput, merged over its updates"),
    output: ToolOutput.describe('normalised per kind: execute, read, search, edit; else what the agent sent'),
    locations: z.array(z.object({ path: z.string(), line: z.number().optional() }).loose()),
    /** What Cursor itself said the status was, where rho-cursor corrected it (a rejected tool Cursor calls completed). */
    reportedStatus: z
      .string()
      .optional()
      .describe('what the agent said the status was, where rho-cursor corrected it'),
    extra: Extra,
  })
  .meta({ title: 'tool', description: 'the whole merged state of one tool call so far' });

export const PermissionEvent = z
  .object({
    type: z.literal('permission'),
    toolCallId: z.string(),
    title: z.string(),
    kind: z.string(),
    options: z.array(PermissionOption),
    decision: Decision,
    reason: z.string().describe('why rho-cursor answered as it did'),
    /** Why Cursor asked, when it said (e.g. "Shell allowlist is empty"). */
    agentReason: z.string().nullable().describe('why the agent asked, when it said'),
    decidedBy: z
      .enum(['policy', 'allow-flag', 'rule', 'person', 'cancel', 'no-option', 'withdrawn'])
      .describe(
        'rule: an --allow or --deny rule (Shell(...), Write(...), ...); withdrawn: the agent sent $/cancel_request and the request was never answered',
      ),
    extra: RequestExtra.describe(
      "the request's params beyond sessionId, toolCall and options, as `params.<name>` (e.g. `params._meta`), a toolCall that is no object, and the options that are none; of the toolCall what the event does not show, as `params.toolCall.<name>` (rawInput, locations, content that is more than text, a kind judged otherwise, a status other than pending); of each option its fields beyond optionId, name and kind, as `params.options.<index>.<name>`; as the agent sent them, absent when none",
    ),
  })
  .meta({ title: 'permission', description: 'a session/request_permission and how it was answered' });

const Question = z.object({
  id: z.string().nullable(),
  prompt: z.string(),
  options: z.array(
    z.object({
      id: z.string(),
      label: z.string(),
      extra: ItemExtra.describe(
        "the option's own fields the event does not name (a description), and a label that is no string; as the agent sent them, absent when none",
      ),
    }),
  ),
  extra: ItemExtra.describe(
    "the question's own fields the event does not name (allowMultiple), an id that is no string, of its prompt, question and title those it does not show, and its options that are no object (or a value that is no list); as the agent sent them, absent when none",
  ),
});

export const QuestionEvent = z
  .object({
    type: z.literal('question'),
    source: z.enum(['cursor/ask_question', 'session/request_permission']),
    toolCallId: z.string().nullable(),
    title: z.string().nullable(),
    questions: z.array(Question),
    answer: z.object({ outcome: z.string() }).loose(),
    extra: RequestExtra,
  })
  .meta({ title: 'question', description: 'what the agent asked and what was answered' });

export const PlanEvent = z
  .object({
    type: z.literal('plan'),
    toolCallId: z.string().nullable(),
    name: z.string().nullable(),
    overview: z.string().nullable(),
    plan: z.string(),
    todos: z.array(Todo),
    answer: z.object({ outcome: z.string(), reason: z.string().optional() }),
    decidedBy: z
      .enum(['policy', 'person', 'cancel', 'withdrawn'])
      .optional()
      .describe(
        'who answered: the policy, the person at the terminal (who saw the plan in full), a cancel, or the agent withdrew it',
      ),
    extra: RequestExtra,
  })
  .meta({ title: 'plan', description: 'a cursor/create_plan request (markdown, todos) and its answer' });

export const TodosEvent = z
  .object({
    type: z.literal('todos'),
    todos: z.array(Todo),
    source: z
      .enum(['cursor/update_todos', 'tool', 'plan'])
      .describe("plan: an ACP plan update, whose entries' ids are their positions"),
    extra: Extra.describe(
      "source plan: as for every update's event (the update's fields it does not name, its params' as `params.<name>`, its entries that are no object as `entries`); source cursor/update_todos: the request's params beyond todos as `params.<name>` (Cursor sends `params.toolCallId` and `params.merge`), its todos that are no object as `params.todos`; as the agent sent them, absent when none",
    ),
  })
  .meta({ title: 'todos', description: "the agent's todo list, whole, each time it changes" });

export const ModeEvent = z
  .object({ type: z.literal('mode'), mode: z.string(), extra: Extra })
  .meta({ title: 'mode', description: 'the session mode changed (current_mode_update)' });

export const WarningEvent = z
  .object({
    type: z.literal('warning'),
    code: z.string().describe('a stable kebab-case code (the README lists them)'),
    message: z.string(),
    /** The whole line, for a line from the agent that is not JSON-RPC. */
    line: z
      .string()
      .optional()
      .describe(
        'the line, for a line from the agent that is not JSON-RPC: whole up to 4096 characters, past it its first 3071 and last 1023 with the middle said as cut (`… (N more characters) …`)',
      ),
    extra: Extra,
  })
  .meta({ title: 'warning', description: 'something the user should know; the run goes on' });

export const ExtensionEvent = z
  .object({
    type: z.literal('extension'),
    method: z.string(),
    params: z
      .unknown()
      .refine((v): boolean => v !== undefined, 'params is required: null when the message had none')
      .describe('the message params as sent; null when it had none'),
  })
  .meta({
    title: 'extension',
    description: 'an agent message the contract does not name, so nothing is lost',
  });

export const Timings = z
  .object({
    initializeMs: z.number().nullable(),
    sessionNewMs: z.number().nullable(),
    promptMs: z.number().nullable(),
  })
  .meta({ title: 'timings', description: 'how long each step took, in ms; null for a step not reached' });

export const Usage = z
  .object({
    used: z.number().optional().describe('context tokens in use'),
    size: z.number().optional().describe('the context window, in tokens'),
    cost: z.object({ amount: z.number(), currency: z.string() }).optional(),
  })
  .meta({
    title: 'usage',
    description: 'the last usage_update the agent sent; a field it sent as null (or not at all) is left out',
  });

export const Changes = z
  .object({
    added: z.array(z.string()),
    modified: z.array(z.string()),
    deleted: z.array(z.string()),
    unaccounted: z
      .array(z.string())
      .describe('changed paths no completed edit, delete or move tool call of the run names'),
    truncated: z
      .boolean()
      .describe('the ledger reached its cap (files or hashed bytes): more may have changed'),
  })
  .meta({
    title: 'changes',
    description:
      'what changed in the workspace during the run, measured: file paths relative to the workspace (a .git or node_modules folder the ledger does not enter is named itself, ending in /)',
  });

export const ResultEvent = z
  .object({
    type: z.literal('result'),
    stopReason: z.string().nullable().describe("session/prompt's stopReason; null when no turn ended"),
    exitCode: z.number().int(),
    sessionId: z.string().nullable(),
    model: z.string().nullable(),
    mode: z.string().nullable(),
    title: z.string().nullable().describe('the session title the agent gave (session_info_update)'),
    durationMs: z.number(),
    timings: Timings,
    usage: Usage.nullable().describe(
      'the last usage_update; null when the agent sent none (Cursor sends none)',
    ),
    structured: z.unknown().describe('with --output-schema: the validated value; otherwise null'),
    changes: Changes.nullable()
      .optional()
      .describe(
        'what changed in the workspace (in the worktree with --worktree); null with --no-changes or when no prompt was sent; absent only for a usage error before the run',
      ),
    patch: z
      .string()
      .nullable()
      .optional()
      .describe(
        'with --worktree --patch: the patch file written; otherwise null (absent for a usage error before the run)',
      ),
    worktree: z
      .object({ path: z.string(), kept: z.boolean() })
      .optional()
      .describe('with --worktree: where the agent worked, and whether it was kept (--keep-worktree)'),
    error: z
      .object({
        code: z.enum(ERROR_CODES).describe('one of the documented error codes (README, "Error codes")'),
        message: z.string(),
      })
      .optional()
      .describe('present when the run failed'),
  })
  .meta({ title: 'result', description: 'the last line of every run, also when it fails' });

export const ValidationEvent = z
  .object({
    type: z.literal('validation'),
    attempt: z.number().int().describe('1 for the first answer, then one more per follow-up prompt'),
    valid: z.boolean(),
    errors: z.array(z.string()).describe("the schema's complaints; empty when valid"),
  })
  .meta({ title: 'validation', description: 'one answer checked against --output-schema' });

export const AttemptEvent = z
  .object({
    type: z.literal('attempt'),
    attempt: z.number().int().describe('the try that failed: 1 for the first'),
    error: z.object({
      code: z.enum(ERROR_CODES),
      message: z.string(),
    }),
    retryInMs: z.number().int().describe('the wait before the next try, with a fresh agent'),
  })
  .meta({
    title: 'attempt',
    description: 'a try that failed before any tool started and is retried (--retries)',
  });

export const HistoryEvent = z
  .object({
    type: z.literal('history'),
    update: z
      .unknown()
      .describe('the session/update payload as the agent replayed it; null for a request (see request)'),
    request: z
      .object({ method: z.string(), params: z.unknown() })
      .optional()
      .describe(
        'a request the agent sent while replaying, as it came: answered cancelled (-32800 for a method whose answer cannot say so), never decided; absent for an update',
      ),
    extra: Extra,
  })
  .meta({
    title: 'history',
    description:
      "a session/update the agent replayed while resuming (--resume, --continue); never part of this run's answer",
  });

// The session event's title and description are kept here, apart from its fields, which other features extend.
const SessionEventDoc = SessionEvent.meta({
  title: 'session',
  description: 'the session is ready: its id, resolved model and mode, the config and policy the run uses',
});

export const Event = z
  .discriminatedUnion('type', [
    SessionEventDoc,
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
    ValidationEvent,
    HistoryEvent,
    AttemptEvent,
    ResultEvent,
  ])
  .meta({
    title: 'rho-cursor stream-json event',
    description: 'one line of `rho-cursor run --output-format stream-json`; the last line is always `result`',
  });

export const JsonOutput = ResultEvent.extend({
  text: z.string().describe("the whole reply: every message chunk's text, in order"),
  tools: z.array(ToolEvent).describe('the final state of every tool'),
  permissions: z.array(PermissionEvent),
  questions: z.array(QuestionEvent),
  plans: z.array(PlanEvent),
  todos: z.array(Todo).describe('the last todo list'),
  warnings: z.array(WarningEvent),
  omitted: z
    .object({
      permissions: z.number().int().min(0),
      questions: z.number().int().min(0),
      plans: z.number().int().min(0),
      warnings: z.number().int().min(0),
    })
    .optional()
    .describe(
      'present only when some were not kept: how many permissions, questions and plans came after the first 10,000 of each, and warnings after the first 10,000 of their code (those are kept, in order)',
    ),
}).meta({
  title: 'rho-cursor json output',
  description:
    'the one object `rho-cursor run --output-format json` writes: the result event and the whole run',
});

// The JSON Schema documents `rho-cursor schema` prints: every stream-json line, and the json output.
export function jsonSchemas(): { event: unknown; json: unknown } {
  return {
    event: z.toJSONSchema(Event, { unrepresentable: 'any' }),
    json: z.toJSONSchema(JsonOutput, { unrepresentable: 'any' }),
  };
}
