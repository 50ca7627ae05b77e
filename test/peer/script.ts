// The test peer's behaviour as data: what it answers to the handshake and what it sends during the turn.
import type { PermissionOption, SessionUpdate, ToolCallUpdate } from '@agentclientprotocol/sdk';

/** A JSON-RPC error the peer answers with. */
export interface PeerError {
  code: number;
  message: string;
  data?: unknown;
}

/** One thing the peer does during the turn, in order; requests wait for their answer. */
export type Step =
  | { update: SessionUpdate }
  /** An update as it is, where the SDK's types would refuse it (Claude's usage_update with `used: null`). */
  | { rawUpdate: Record<string, unknown> }
  /** An update sent with another sessionId. */
  | { foreignUpdate: SessionUpdate }
  /** A client request, e.g. one the client did not advertise; the answer (or a hang) is logged. */
  | { request: string; params?: unknown }
  /** A raw notification; no params means none at all on the wire. */
  | { notify: string; params?: unknown }
  /** Waits for the client's session/cancel (then the turn ends as `stop` says). */
  | { awaitCancel: true }
  /**
   * session/request_permission; `withdrawWhen` names a file whose creation makes the peer send $/cancel_request;
   * `abortOnReject`: a reject answer ends the turn at once, `cancelled` (Codex's only reject option aborts).
   */
  | {
      permission: { toolCall: ToolCallUpdate; options: PermissionOption[] };
      withdrawWhen?: string;
      abortOnReject?: boolean;
    };

/** A select config option as ACP v1 sends it in session/new's configOptions (Codex's model and mode). */
export interface PeerSelect {
  type: 'select';
  id: string;
  name: string;
  category?: string;
  currentValue: string;
  options: Array<{ value: string; name: string }>;
}

export interface Script {
  /** initialize: the result to answer (any value, a wrong protocolVersion included), or an error. */
  initialize?: { result: unknown } | { error: PeerError };
  /** session/new answered with this error instead of a session. */
  newSessionError?: PeerError;
  /** authMethods and agentInfo of a normal initialize (agentInfo default: rho-peer, no title). */
  authMethods?: Array<{ id: string; name: string; description?: string }>;
  agentInfo?: { name: string; title?: string; version: string };
  /** initialize is answered after this long (Gemini's took 2-10 s on a busy machine). */
  initializeDelayMs?: number;
  /** What session/new answers besides its sessionId (default: modes code and plan). */
  session?: { modes?: unknown; models?: unknown; configOptions?: PeerSelect[] };
  /** session/set_mode, session/set_model and session/set_config_option answer this error. */
  settingError?: PeerError;
  /** session/set_config_option answers every option as it was: the value asked for is not taken. */
  keepConfig?: boolean;
  turn: Step[];
  /** How session/prompt ends: a stopReason (any string), or an error. */
  stop: { stopReason: string } | { error: PeerError };
}

export const PEER_SESSION = 'peer-session-1';
export const OPTIONS: PermissionOption[] = [
  { optionId: 'allow-once', name: 'Allow once', kind: 'allow_once' },
  { optionId: 'allow-always', name: 'Always allow', kind: 'allow_always' },
  { optionId: 'reject-once', name: 'Reject', kind: 'reject_once' },
  { optionId: 'reject-always', name: 'Always reject', kind: 'reject_always' },
];

const TOOL_KINDS = [
  'read',
  'edit',
  'delete',
  'move',
  'search',
  'execute',
  'think',
  'fetch',
  'switch_mode',
  'other',
] as const;
const FINAL_STATUSES = ['completed', 'failed', 'in_progress', 'pending'] as const;

// Every tool kind, each through a tool_call and an update that ends in one of every status, with each
// kind of tool content (content, diff, terminal).
function everyTool(): Step[] {
  return TOOL_KINDS.flatMap((kind, i): Step[] => [
    {
      update: {
        sessionUpdate: 'tool_call',
        toolCallId: `tool-${kind}`,
        title: `a ${kind} tool`,
        kind,
        status: 'pending',
        rawInput: { n: i },
        locations: [{ path: `/w/${kind}.txt`, line: 1 }],
      },
    },
    {
      update: {
        sessionUpdate: 'tool_call_update',
        toolCallId: `tool-${kind}`,
        status: FINAL_STATUSES[i % FINAL_STATUSES.length],
        content:
          kind === 'edit'
            ? [{ type: 'diff', path: '/w/edit.txt', oldText: 'a\n', newText: 'b\n' }]
            : kind === 'execute'
              ? [{ type: 'terminal', terminalId: 'term-1' }]
              : [{ type: 'content', content: { type: 'text', text: `${kind} done` } }],
        rawOutput: kind === 'execute' ? { exitCode: 0, stdout: 'ok\n', stderr: '' } : undefined,
      },
    },
  ]);
}

// The whole v1 schema in one turn: every update kind, content type, tool kind and status, permission
// requests with each option kind, client requests nobody advertised, and messages without params.
export function everything(): Script {
  return {
    turn: [
      {
        update: {
          sessionUpdate: 'available_commands_update',
          availableCommands: [{ name: 'review', description: 'Review' }],
        },
      },
      { update: { sessionUpdate: 'session_info_update', title: 'Peer session' } },
      { update: { sessionUpdate: 'current_mode_update', currentModeId: 'code' } },
      {
        update: {
          sessionUpdate: 'config_option_update',
          configOptions: [
            {
              type: 'select',
              id: 'model',
              name: 'Model',
              currentValue: 'm1',
              options: [{ value: 'm1', name: 'M1' }],
            },
          ],
        },
      },
      {
        update: {
          sessionUpdate: 'user_message_chunk',
          content: { type: 'text', text: 'the prompt, echoed' },
        },
      },
      {
        update: {
          sessionUpdate: 'agent_thought_chunk',
          content: { type: 'text', text: 'Thinking it over.' },
        },
      },
      {
        update: {
          sessionUpdate: 'agent_message_chunk',
          content: { type: 'text', text: 'Here is the answer. ' },
        },
      },
      {
        update: {
          sessionUpdate: 'agent_message_chunk',
          content: { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
        },
      },
      {
        update: {
          sessionUpdate: 'agent_message_chunk',
          content: { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
        },
      },
      {
        update: {
          sessionUpdate: 'agent_message_chunk',
          content: {
            type: 'resource_link',
            name: 'notes.md',
            uri: 'file:///w/notes.md',
            mimeType: 'text/markdown',
          },
        },
      },
      {
        update: {
          sessionUpdate: 'agent_message_chunk',
          content: {
            type: 'resource',
            resource: { uri: 'file:///w/embedded.txt', mimeType: 'text/plain', text: 'EMBEDDED TEXT' },
          },
        },
      },
      {
        update: {
          sessionUpdate: 'agent_message_chunk',
          content: { type: 'resource', resource: { uri: 'file:///w/blob.bin', blob: 'AAAA' } },
        },
      },
      {
        update: {
          sessionUpdate: 'plan',
          entries: [
            { content: 'Read the code', priority: 'high', status: 'completed' },
            { content: 'Write the fix', priority: 'medium', status: 'in_progress' },
            { content: 'Run the tests', priority: 'low', status: 'pending' },
          ],
        },
      },
      ...everyTool(),
      { update: { sessionUpdate: 'usage_update', used: 1000, size: 200000 } },
      {
        update: {
          sessionUpdate: 'usage_update',
          used: 5400,
          size: 200000,
          cost: { amount: 0.12, currency: 'USD' },
        },
      },
      { update: { sessionUpdate: 'notice', severity: 'info', title: 'Indexed the workspace' } },
      {
        update: {
          sessionUpdate: 'notice',
          severity: 'warning',
          title: 'Rate limited',
          description: 'slowing down',
        },
      },
      { update: { sessionUpdate: 'notice', severity: 'error', title: 'Backend hiccup' } },
      { update: { sessionUpdate: 'compaction_update', compactionId: 'c1', status: 'in_progress' } },
      {
        update: {
          sessionUpdate: 'compaction_summary_chunk',
          compactionId: 'c1',
          content: { type: 'text', text: 'summary so far' },
        },
      },
      // A tool announced, then asked about; the peer never updates it again (as the SDK's example agent does).
      {
        update: {
          sessionUpdate: 'tool_call',
          toolCallId: 'asked-shell',
          title: 'rm -rf build',
          kind: 'execute',
          status: 'pending',
          rawInput: { command: 'rm -rf build' },
        },
      },
      { permission: { toolCall: { toolCallId: 'asked-shell' }, options: OPTIONS } },
      // A permission for a tool no tool_call announced.
      {
        permission: {
          toolCall: {
            toolCallId: 'unannounced',
            title: 'Fetch example.com',
            kind: 'fetch',
            status: 'pending',
          },
          options: OPTIONS,
        },
      },
      // Only the persistent options: the client must answer cancelled rather than pick one.
      {
        permission: {
          toolCall: { toolCallId: 'always-only', title: 'Edit config', kind: 'edit', status: 'pending' },
          options: OPTIONS.filter((o) => o.kind.endsWith('_always')),
        },
      },
      { request: 'fs/read_text_file', params: { sessionId: PEER_SESSION, path: '/w/a.txt' } },
      { request: 'fs/write_text_file', params: { sessionId: PEER_SESSION, path: '/w/a.txt', content: 'x' } },
      { request: 'terminal/create', params: { sessionId: PEER_SESSION, command: 'ls' } },
      { request: 'terminal/output', params: { sessionId: PEER_SESSION, terminalId: 't' } },
      {
        request: 'elicitation/create',
        params: {
          sessionId: PEER_SESSION,
          mode: 'form',
          message: 'Your name?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
        },
      },
      { request: 'peer/no_params' },
      { notify: 'peer/ping' },
      { notify: 'elicitation/complete', params: { elicitationId: 'e1' } },
      { update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Done.' } } },
    ],
    stop: { stopReason: 'end_turn' },
  };
}

// A turn that says one thing and ends as given.
export function simple(stop: Script['stop'], more: Partial<Script> = {}): Script {
  return {
    turn: [{ update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'ok' } } }],
    stop,
    ...more,
  };
}

// A select config option whose values are also their names.
export function select(id: string, currentValue: string, values: string[]): PeerSelect {
  return {
    type: 'select',
    id,
    name: id,
    category: id,
    currentValue,
    options: values.map((v) => ({ value: v, name: v })),
  };
}

/** Claude's adapter: option ids that differ from their kinds, as @zed-industries/claude-agent-acp 0.23 sends. */
export const CLAUDE_OPTIONS: PermissionOption[] = [
  { optionId: 'allow_always', name: 'Always Allow', kind: 'allow_always' },
  { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
  { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
];

/** Codex's adapter: its only reject option aborts the turn (@zed-industries/codex-acp 0.16). */
export const CODEX_OPTIONS: PermissionOption[] = [
  { optionId: 'approved', name: 'Yes', kind: 'allow_once' },
  { optionId: 'approved-for-session', name: 'Yes, always', kind: 'allow_always' },
  { optionId: 'abort', name: 'No, and tell Codex what to do differently', kind: 'reject_once' },
];

/** The agentInfo each adapter sends (Cursor's recorded build sends none). */
export const CLAUDE_INFO = {
  name: '@zed-industries/claude-agent-acp',
  title: 'Claude Code',
  version: '0.23.1',
};
export const CODEX_INFO = { name: 'codex-acp', title: 'Codex', version: '0.16.0' };
export const GEMINI_INFO = { name: 'gemini-cli', title: 'Gemini CLI', version: '0.61.0' };

const text = (t: string): Step => ({
  update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: t } },
});

// Claude's adapter: models in session/new's `models`, modes also a config option, string rawOutput for Read
// and Bash, an empty chunk, a shell command it asks about, and usage_update with `used: null`.
export function claudeLike(more: Partial<Script> = {}): Script {
  return {
    agentInfo: CLAUDE_INFO,
    authMethods: [{ id: 'claude-login', name: 'Log in with Claude Code' }],
    session: {
      models: {
        currentModelId: 'default',
        availableModels: [
          { modelId: 'default', name: 'Default' },
          { modelId: 'opus', name: 'Opus' },
          { modelId: 'sonnet', name: 'Sonnet' },
        ],
      },
      modes: {
        currentModeId: 'default',
        availableModes: ['default', 'acceptEdits', 'plan', 'dontAsk', 'bypassPermissions'].map((id) => ({
          id,
          name: id,
        })),
      },
    },
    turn: [
      {
        update: {
          sessionUpdate: 'tool_call',
          toolCallId: 'toolu_read',
          title: 'Read README.md',
          kind: 'read',
          status: 'pending',
          rawInput: { file_path: '/w/README.md' },
        },
      },
      {
        update: {
          sessionUpdate: 'tool_call_update',
          toolCallId: 'toolu_read',
          status: 'completed',
          rawOutput: '# Title\nsecond line\n',
        },
      },
      {
        update: {
          sessionUpdate: 'tool_call',
          toolCallId: 'toolu_bash',
          title: 'rm -rf build',
          kind: 'execute',
          status: 'pending',
          rawInput: { command: 'rm -rf build' },
        },
      },
      {
        permission: {
          toolCall: {
            toolCallId: 'toolu_bash',
            content: [{ type: 'content', content: { type: 'text', text: 'Claude wants to run a command' } }],
          },
          options: CLAUDE_OPTIONS,
        },
      },
      text(''),
      text('the answer'),
      {
        rawUpdate: {
          sessionUpdate: 'usage_update',
          used: null,
          size: 200000,
          cost: { amount: 0.0123, currency: 'USD' },
        },
      },
    ],
    stop: { stopReason: 'end_turn' },
    ...more,
  };
}

// Codex's adapter: model and mode only as configOptions, and its one reject option aborts the turn; `kind`
// picks what it asks about: an edit it reports in progress, or a shell command still pending.
export function codexLike(kind: 'edit' | 'execute', more: Partial<Script> = {}): Script {
  const id = kind === 'edit' ? 'call_edit' : 'call_shell';
  return {
    agentInfo: CODEX_INFO,
    authMethods: [{ id: 'chatgpt', name: 'Login with ChatGPT' }],
    session: {
      configOptions: [
        select('mode', 'auto', ['read-only', 'auto', 'full-access']),
        select('model', 'gpt-5-codex/medium', ['gpt-5-codex/low', 'gpt-5-codex/medium', 'gpt-5-codex/high']),
      ],
    },
    turn: [
      text('Let me do that.'),
      {
        update: {
          sessionUpdate: 'tool_call',
          toolCallId: id,
          title: kind === 'edit' ? 'Edit src/a.ts' : 'rm -rf build',
          kind,
          status: kind === 'edit' ? 'in_progress' : 'pending',
          rawInput: kind === 'edit' ? { path: '/w/src/a.ts' } : { command: ['rm', '-rf', 'build'] },
        },
      },
      { permission: { toolCall: { toolCallId: id }, options: CODEX_OPTIONS }, abortOnReject: true },
      text(' Done.'),
    ],
    stop: { stopReason: 'end_turn' },
    ...more,
  };
}
