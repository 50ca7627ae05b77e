// Every message the client sends, checked against the SDK's own generated zod schemas of ACP v1.
// The SDK does not export its validators, so its generated module is imported by path.
import * as acp from '../../node_modules/@agentclientprotocol/sdk/dist/v1/schema/zod.gen.js';

type Schema = { safeParse(v: unknown): { success: boolean; error?: { message: string } } };

/** What a client may send an agent in ACP v1, by method. */
const REQUESTS: Record<string, Schema> = {
  initialize: acp.zInitializeRequest,
  authenticate: acp.zAuthenticateRequest,
  'session/new': acp.zNewSessionRequest,
  'session/load': acp.zLoadSessionRequest,
  'session/list': acp.zListSessionsRequest,
  'session/resume': acp.zResumeSessionRequest,
  'session/close': acp.zCloseSessionRequest,
  'session/set_mode': acp.zSetSessionModeRequest,
  'session/set_config_option': acp.zSetSessionConfigOptionRequest,
  // Unstable in ACP v1 and dropped from the SDK's schemas, but Claude's and Gemini's adapters take it.
  'session/set_model': acp.zSetSessionModeRequest
    .omit({ modeId: true })
    .extend({ modelId: acp.zSessionModeId }),
  'session/prompt': acp.zPromptRequest,
};
const NOTIFICATIONS: Record<string, Schema> = {
  'session/cancel': acp.zCancelNotification,
  '$/cancel_request': acp.zCancelRequestNotification,
};
/** The client's answers to the agent's requests, by the request's method. */
const RESULTS: Record<string, Schema> = {
  'session/request_permission': acp.zRequestPermissionResponse,
  'fs/read_text_file': acp.zReadTextFileResponse,
  'fs/write_text_file': acp.zWriteTextFileResponse,
  'terminal/create': acp.zCreateTerminalResponse,
  'terminal/output': acp.zTerminalOutputResponse,
  'elicitation/create': acp.zCreateElicitationResponse,
};

// The problems of one message the client sent, given the methods of the peer's own requests by id; [] if valid.
export function checkClientMessage(msg: unknown, sentMethods: Map<string, string>): string[] {
  if (typeof msg !== 'object' || msg === null || Array.isArray(msg)) return ['not a JSON-RPC object'];
  const m = msg as Record<string, unknown>;
  const problems: string[] = [];
  if (m.jsonrpc !== '2.0') problems.push('jsonrpc is not "2.0"');
  const parse = (what: string, schema: Schema, value: unknown): void => {
    const r = schema.safeParse(value);
    if (!r.success) problems.push(`${what}: ${r.error?.message ?? 'invalid'}`);
  };
  if (typeof m.method === 'string') {
    const table = 'id' in m ? REQUESTS : NOTIFICATIONS;
    const schema = table[m.method];
    if (!schema)
      problems.push(`${m.method} is not an ACP v1 ${'id' in m ? 'request' : 'notification'} a client sends`);
    else parse(m.method, schema, m.params);
    if ('id' in m) parse('id', acp.zRequestId, m.id);
    return problems;
  }
  parse('response', acp.zClientResponse, m);
  const method = sentMethods.get(JSON.stringify(m.id));
  if (method === undefined) problems.push(`a response to ${JSON.stringify(m.id)}, which the peer never sent`);
  else if ('result' in m) {
    const schema = RESULTS[method];
    if (schema) parse(`${method} result`, schema, m.result);
  } else parse(`${method} error`, acp.zError, m.error);
  return problems;
}
