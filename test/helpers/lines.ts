// What the fault fixtures send, as JSON-RPC objects: the session they announce and a text chunk in it.
export const FIXTURE_SESSION = 'fixture-session-0001';

/** An agent_message_chunk notification carrying `text`, for the fixture's session. */
export const chunk = (text: string): object => ({
  jsonrpc: '2.0',
  method: 'session/update',
  params: {
    sessionId: FIXTURE_SESSION,
    update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } },
  },
});

/** A tool_call (first) or tool_call_update (later) notification for the fixture's session. */
export const toolUpdate = (
  toolCallId: string,
  kind: string,
  status: string,
  more: Record<string, unknown> = {},
  first = true,
): object => ({
  jsonrpc: '2.0',
  method: 'session/update',
  params: {
    sessionId: FIXTURE_SESSION,
    update: { sessionUpdate: first ? 'tool_call' : 'tool_call_update', toolCallId, kind, status, ...more },
  },
});

/** A session/request_permission request from the agent for a tool it announced. */
export const permissionRequest = (id: number, toolCallId: string, kind: string, title: string): object => ({
  jsonrpc: '2.0',
  id,
  method: 'session/request_permission',
  params: {
    sessionId: FIXTURE_SESSION,
    toolCall: { toolCallId, title, kind, status: 'pending' },
    options: [
      { optionId: 'allow-once', name: 'Allow', kind: 'allow_once' },
      { optionId: 'reject-once', name: 'Reject', kind: 'reject_once' },
    ],
  },
});

/** A line of scripted.mjs's `before` that is not sent but done in the agent's cwd (a file written, a shell run). */
export const effect = (e: { write?: string; text?: string; delete?: string; sh?: string }): object => ({
  effect: e,
});
