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
