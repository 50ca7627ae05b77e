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
  /** An update sent with another sessionId. */
  | { foreignUpdate: SessionUpdate }
  /** A client request, e.g. one the client did not advertise; the answer (or a hang) is logged. */
  | { request: string; params?: unknown }
  /** A raw notification; no params means none at all on the wire. */
  | { notify: string; params?: unknown }
  /** Waits for the client's session/cancel (then the turn ends as `stop` says). */
  | { awaitCancel: true }
  /** session/request_permission; `withdrawWhen` names a file whose creation makes the peer send $/cancel_request. */
  | { permission: { toolCall: ToolCallUpdate; options: PermissionOption[] }; withdrawWhen?: string };

export interface Script {
  /** initialize: the result to answer (any value, a wrong protocolVersion included), or an error. */
  initialize?: { result: unknown } | { error: PeerError };
  /** session/new answered with this error instead of a session. */
  newSessionError?: PeerError;
  /** authMethods and agentInfo of a normal initialize. */
  authMethods?: Array<{ id: string; name: string; description?: string }>;
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
