// The client side of JSON-RPC over lines: ids, pending requests with timeouts, and dispatch of what arrives.
import { RhoError } from '../errors.js';
import { cutEnd } from '../sanitize/cut.js';
import { MAX_DEPTH, tooDeep } from './depth.js';
import { Handlers, type FallbackHandler, type RequestHandler } from './handlers.js';
import { classify, isRecord, type Id, type Notification, type Request, type RpcError } from './messages.js';

/** JSON-RPC's (LSP's) "request cancelled", which ACP uses for a withdrawn request. */
export const REQUEST_CANCELLED = -32800;
/** The agent's requests whose answer can say `cancelled` itself, as ACP answers them after session/cancel. */
export const LATE_CANCELLED: ReadonlySet<string> = new Set([
  'session/request_permission',
  'cursor/ask_question',
  'cursor/create_plan',
]);

/** How a request the run will not decide is answered (after the turn, or during a session's replay): `cancelled`
 * where its answer can say so, else -32800 naming when it came. */
export type UndecidedAnswer = { result: unknown } | { code: number; message: string };
export function undecidedAnswer(method: string, when: string): UndecidedAnswer {
  return LATE_CANCELLED.has(method)
    ? { result: { outcome: { outcome: 'cancelled' } } }
    : { code: REQUEST_CANCELLED, message: `Request cancelled: ${method} came ${when}` };
}

// Is this a numeric id JSON.parse may have rounded: an integer past 2^53, or one past a double's range?
const inexactId = (id: unknown): boolean =>
  typeof id === 'number' && (!Number.isFinite(id) || (Number.isInteger(id) && !Number.isSafeInteger(id)));

export class RpcRequestError extends RhoError {
  constructor(
    readonly method: string,
    readonly rpc: RpcError,
  ) {
    super('rpc_error', `${method} failed: ${rpcErrorText(rpc)}`);
  }
}

// A JSON-RPC error as one line: its message, then its `data` (which often holds the real reason), then its code.
export function rpcErrorText(rpc: RpcError): string {
  const data = rpc.data === undefined || rpc.data === null ? '' : dataText(rpc.data);
  // The agent's message cut as its data is: every sink gets a bounded error (json and the CI outputs too).
  const message = cutEnd(String(rpc.message), 500);
  return `${message}${data && data !== message ? `: ${data}` : ''} (code ${String(rpc.code)})`;
}

// Error data as short text: a string as is, a {message} or {details} as that, anything else as JSON.
function dataText(data: unknown): string {
  const inner = isRecord(data) ? (data.message ?? data.details) : undefined;
  const text = typeof data === 'string' ? data : typeof inner === 'string' ? inner : JSON.stringify(data);
  const line = text.replace(/\s*\n\s*/g, ' ').trim();
  // The key is masked before the cut, so no part of it survives next to the ellipsis.
  return cutEnd(line, 500);
}

export interface ConnectionHandlers {
  /** Writes one serialised message line (without the newline) to the agent; `answer`: it answers one of
   * the agent's requests (not a request or notification of ours). */
  send(line: string, answer: boolean): void;
  /** Whether the agent's requests are taken now: when false one is answered cancelled at once (answerLate),
   * and its withdrawal ($/cancel_request) passes on to onNotification. Always, when not given. */
  accepting?(): boolean;
  /** Every notification but a $/cancel_request that withdrew an open request. */
  onNotification(msg: Notification): void;
  /** A request handler that failed unexpectedly (a bug of ours); the request was answered -32603. */
  onHandlerError?(method: string, error: unknown): void;
  /** A line that is not a JSON-RPC message; never answered into the agent's stdin. */
  onInvalid(line: string, reason: string): void;
  /** Every line crossing the wire, once, for the wire log; `json` says whether the line parsed as JSON. */
  onWire?(dir: 'c2a' | 'a2c', line: string, json: boolean): void;
}

interface Pending {
  method: string;
  resolve(result: unknown): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout | undefined;
  answered: ((result: unknown) => void) | undefined;
}

export class Connection {
  private nextId = 1;
  private readonly pending = new Map<Id, Pending>();
  private closedWith: Error | undefined;
  private readonly incoming: Handlers;

  constructor(private readonly h: ConnectionHandlers) {
    this.incoming = new Handlers({
      result: (id, result) => this.respond(id, result),
      error: (id, error) => this.write({ jsonrpc: '2.0', id, error }, true),
      failed: (method, error) => this.h.onHandlerError?.(method, error),
    });
  }

  // Registers the handler that answers the agent's requests for one method.
  handle(method: string, fn: RequestHandler): void {
    this.incoming.set(method, fn);
  }

  // Registers what answers every other method (by default: -32601 at once).
  fallback(fn: FallbackHandler): void {
    this.incoming.fallback(fn);
  }

  // Aborts every request of the agent's still open; their handlers answer them (`cancelled`, for ACP).
  cancelIncoming(reason?: unknown): void {
    this.incoming.abortAll(reason);
  }

  /** How many of the agent's requests are still open (their handlers have not answered yet). */
  get openIncoming(): number {
    return this.incoming.open;
  }

  // Sends a request and resolves with its result; a timeout rejects with the given error. `answered` runs
  // synchronously when the answer is read (with its result; undefined for an error), before any later line
  // of the same chunk is dispatched (the promise settles only a microtask later).
  request<T = unknown>(
    method: string,
    params: unknown,
    timeout?: { ms: number; error: () => Error },
    answered?: (result: unknown) => void,
  ): Promise<T> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = timeout
        ? setTimeout(() => {
            this.pending.delete(id);
            reject(timeout.error());
          }, timeout.ms)
        : undefined;
      this.pending.set(id, { method, resolve, reject, timer, answered });
      this.write({ jsonrpc: '2.0', id, method, params });
    });
  }

  notify(method: string, params: unknown): void {
    this.write({ jsonrpc: '2.0', method, params });
  }

  respond(id: Id | null, result: unknown): void {
    this.write({ jsonrpc: '2.0', id, result }, true);
  }

  respondError(id: Id | null, code: number, message: string): void {
    this.write({ jsonrpc: '2.0', id, error: { code, message } }, true);
  }

  // Parses one line from the agent and routes it; responses settle their pending request.
  handleLine(line: string): void {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.h.onWire?.('a2c', line, false);
      this.h.onInvalid(line, 'not JSON');
      return;
    }
    this.h.onWire?.('a2c', line, true);
    // A batch (an array) is answered per request it holds, never dropped.
    if (Array.isArray(value)) {
      if (value.length === 0) return this.h.onInvalid(line, 'an empty JSON-RPC batch');
      // Each message is reported as itself (once its depth is known to be safe to serialise).
      for (const item of value)
        this.dispatch(item, tooDeep(item, line.length) ? line : (JSON.stringify(item) ?? 'null'));
      return;
    }
    this.dispatch(value, line);
  }

  // Routes one parsed message: a request, a notification, or the response to one of ours.
  private dispatch(value: unknown, line: string): void {
    if (tooDeep(value, line.length)) return this.refuseDeep(value, line);
    const msg = classify(value);
    switch (msg.kind) {
      case 'request':
        if (inexactId(msg.msg.id)) return this.refuseId(msg.msg.method, line);
        if (this.h.accepting?.() ?? true) this.incoming.run(msg.msg);
        else this.answerLate(msg.msg);
        return;
      case 'notification':
        if (!this.withdrew(msg.msg)) this.h.onNotification(msg.msg);
        return;
      case 'invalid':
        return this.refuseInvalid(value, line, msg.reason);
      case 'response': {
        const p = this.settle(msg.msg.id, msg.msg.error ? undefined : msg.msg.result);
        if (!p) {
          this.h.onInvalid(line, `a response to unknown request id ${String(msg.msg.id)}`);
          return;
        }
        if (msg.msg.error) p.reject(new RpcRequestError(p.method, msg.msg.error));
        else p.resolve(msg.msg.result);
      }
    }
  }

  // A request that comes while the agent's requests are not taken (after the turn's answer, even in the same
  // read; from an earlier try's agent) is answered at once, never left unanswered (found by review): it is
  // not this turn's, so it is cancelled: `cancelled` for a permission, a question or a plan (as after
  // session/cancel), -32800 for any other method. Nothing of it is shown.
  private answerLate(msg: Request): void {
    const a = undecidedAnswer(msg.method, 'after the turn ended');
    if ('result' in a) return this.respond(msg.id, a.result);
    this.respondError(msg.id, a.code, a.message);
  }

  // A request whose id is a number JSON.parse could not keep exactly (past 2^53, or past a double's range:
  // 1e400) cannot be answered under its own id (found by review: it was answered under a rounded one). As
  // JSON-RPC says when the id cannot be read, it is answered -32600 with a null id, and never handled.
  private refuseId(method: string, line: string): void {
    this.respondError(null, -32600, `Invalid Request: an id that is no exact number (${method})`);
    this.h.onInvalid(
      cutEnd(line, 200),
      'a request whose id is a number past 2^53, answered -32600 with id null',
    );
  }

  // An invalid message is answered where it can be (found by review): one with a method and an id member is an
  // invalid request, answered -32600 (with its id when that can be read, else null, as JSON-RPC 2.0 says); one that
  // carries the id of a request of ours and neither a result nor an error fails that request (it waited for
  // ever: `{"id":3,"error":null}`); anything else is a protocol warning only.
  private refuseInvalid(value: unknown, line: string, reason: string): void {
    const m = isRecord(value) ? value : {};
    const id = typeof m.id === 'number' || typeof m.id === 'string' ? m.id : undefined;
    if ('method' in m && 'id' in m) {
      this.respondError(id === undefined || inexactId(id) ? null : id, -32600, `Invalid Request: ${reason}`);
      return this.h.onInvalid(cutEnd(line, 200), `${reason}, answered -32600`);
    }
    const p = id === undefined ? undefined : this.settle(id, undefined);
    if (p)
      return p.reject(
        new RhoError('protocol', `the agent answered ${p.method} with neither a result nor an error`),
      );
    this.h.onInvalid(line, reason);
  }

  // The request of ours a message answers, taken out of those waiting (its timer stopped, told what came);
  // undefined when none waits under that id.
  private settle(id: unknown, result: unknown): Pending | undefined {
    const p = this.pending.get(id as Id);
    if (!p) return undefined;
    this.pending.delete(id as Id);
    clearTimeout(p.timer);
    p.answered?.(result);
    return p;
  }

  // $/cancel_request for a request still open aborts its handler, and it is never answered.
  private withdrew(msg: Notification): boolean {
    if (msg.method !== '$/cancel_request' || !(this.h.accepting?.() ?? true)) return false;
    return this.incoming.withdraw(isRecord(msg.params) ? msg.params.requestId : undefined);
  }

  // A message nested deeper than MAX_DEPTH is a protocol warning: a request is answered -32600, a response
  // fails the request it answers, and nothing of it goes further.
  private refuseDeep(value: unknown, line: string): void {
    const why = `nested deeper than ${MAX_DEPTH} levels`;
    const m = isRecord(value) ? value : {};
    const id = typeof m.id === 'number' || typeof m.id === 'string' ? m.id : m.id === null ? null : undefined;
    if (typeof m.method === 'string' && id !== undefined) {
      this.respondError(id, -32600, `Invalid Request: ${why}`);
      return this.h.onInvalid(cutEnd(line, 200), `a request ${why}, answered -32600`);
    }
    // What is left with one of our ids is a response (a request with an id was answered above); a lookup of
    // any other id (null, an object, none) finds nothing.
    const p = this.settle(m.id, undefined);
    if (p) return p.reject(new RhoError('protocol', `the agent answered ${p.method} with a message ${why}`));
    this.h.onInvalid(cutEnd(line, 200), `a message ${why}`);
  }

  // Fails every pending request, as when the agent exits; later requests fail at once.
  close(err: Error): void {
    if (this.closedWith) return;
    this.closedWith = err;
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(err);
    }
    this.pending.clear();
  }

  get isClosed(): boolean {
    return this.closedWith !== undefined;
  }

  private write(msg: object, answer = false): void {
    if (this.closedWith) return;
    const line = JSON.stringify(msg);
    this.h.onWire?.('c2a', line, true);
    this.h.send(line, answer);
  }
}
