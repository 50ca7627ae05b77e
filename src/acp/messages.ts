// JSON-RPC message shapes, told apart the way ACP requires: a message with a `method` is never a response.
import { cutEnd } from '../sanitize/cut.js';

export type Id = number | string;

export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

export interface Request {
  jsonrpc: '2.0';
  /** JSON-RPC allows a null id on a request; it is answered with a null id. */
  id: Id | null;
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
    // A request is a message with an id member, null included; only a message without one is a notification.
    if (hasId || m.id === null) return { kind: 'request', msg: m as unknown as Request };
    if (m.id !== undefined)
      return { kind: 'invalid', reason: `a request whose id is ${JSON.stringify(m.id)}` };
    return { kind: 'notification', msg: m as unknown as Notification };
  }
  if (hasId && 'error' in m && m.error !== undefined && m.error !== null) {
    return { kind: 'response', msg: { jsonrpc: '2.0', id: m.id as Id, error: rpcError(m.error) } };
  }
  if (hasId && 'result' in m) return { kind: 'response', msg: m as unknown as Response };
  return { kind: 'invalid', reason: 'neither a request, a notification nor a response' };
}

// An error member read leniently: a malformed one still fails its request, with what the agent wrote.
function rpcError(e: unknown): RpcError {
  if (isRecord(e) && typeof e.message === 'string') {
    return {
      code: Number.isFinite(e.code) ? (e.code as number) : -32603,
      message: e.message,
      ...(e.data === undefined ? {} : { data: e.data }),
    };
  }
  return { code: -32603, message: `a malformed error: ${cutEnd(JSON.stringify(e) ?? 'undefined', 200)}` };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

// A field read leniently: the string, or null for anything else.
export const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

// An id or a value the agent sent, as text: a string as it is, nothing as '', a number or a boolean as
// String gives it, an object or an array as its JSON, so two different ones never become the same
// "[object Object]".
export function idText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return v === undefined || v === null ? '' : (JSON.stringify(v) ?? '');
}
