// JSON-RPC message shapes, told apart the way ACP requires: a message with a `method` is never a response.
export type Id = number | string;

export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

export interface Request {
  jsonrpc: '2.0';
  id: Id;
  method: string;
  params?: unknown;
}

export interface Notification {
  jsonrpc: '2.0';
  method: string;
  params?: unknown;
}

export interface Response {
  jsonrpc: '2.0';
  id: Id;
  result?: unknown;
  error?: RpcError;
}

export type Incoming =
  | { kind: 'request'; msg: Request }
  | { kind: 'notification'; msg: Notification }
  | { kind: 'response'; msg: Response }
  | { kind: 'invalid'; reason: string };

// Classifies a parsed value once, at the boundary; everything past here trusts the kind.
export function classify(value: unknown): Incoming {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { kind: 'invalid', reason: 'not a JSON-RPC object' };
  }
  const m = value as Record<string, unknown>;
  const hasId = typeof m.id === 'number' || typeof m.id === 'string';
  if (typeof m.method === 'string') {
    return hasId
      ? { kind: 'request', msg: m as unknown as Request }
      : { kind: 'notification', msg: m as unknown as Notification };
  }
  if (hasId && ('result' in m || 'error' in m)) return { kind: 'response', msg: m as unknown as Response };
  return { kind: 'invalid', reason: 'neither a request, a notification nor a response' };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

// A field read leniently: the string, or null for anything else.
export const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
