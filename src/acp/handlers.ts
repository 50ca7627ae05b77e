// The agent's requests to us as a handler registry (the MCP SDK's Protocol): one handler per method, one
// AbortController per request in flight, and the handler's result or error written once as the response.
import { isRecord, type Id, type Request, type RpcError } from './messages.js';

export const METHOD_NOT_FOUND = -32601;
export const INTERNAL_ERROR = -32603;

/** The abort reason of a request the agent withdrew with $/cancel_request: it is never answered. */
export const WITHDRAWN = 'withdrawn';

/** What a handler knows of its request besides the params: its id, and the signal that ends it early. */
export interface RequestExtra {
  id: Id | null;
  signal: AbortSignal;
}

/** Returns the result (or a promise of it), or throws an RpcFailure to answer with that error. */
export type RequestHandler = (params: unknown, extra: RequestExtra) => unknown;

/** Takes every request no handler is registered for, whole (the run keeps its method and params raw). */
export type FallbackHandler = (msg: Request, extra: RequestExtra) => unknown;

/** A JSON-RPC error a handler throws on purpose: the request is answered with it. */
export class RpcFailure extends Error implements RpcError {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

// The answer to a method nobody handles here (fs/*, terminal/*, anything not advertised).
export const methodNotFound = (method: string): RpcFailure =>
  new RpcFailure(METHOD_NOT_FOUND, `Method not found: ${method}`);

/** Where answers go: the connection's writer (which writes nothing once it is closed). */
export interface Responder {
  result(id: Id | null, result: unknown): void;
  error(id: Id | null, error: RpcError): void;
  /** A handler failed unexpectedly (a bug of ours): answered -32603, and said here. */
  failed?(method: string, error: unknown): void;
}

interface InFlight {
  id: Id | null;
  method: string;
  controller: AbortController;
  /** Answered, or withdrawn: nothing more is written for it. */
  done: boolean;
}

export class Handlers {
  private readonly byMethod = new Map<string, RequestHandler>();
  private readonly inFlight = new Set<InFlight>();
  private fallbackHandler: FallbackHandler = (msg) => {
    throw methodNotFound(msg.method);
  };

  constructor(private readonly out: Responder) {}

  // One handler per method: a later one for the same method replaces it.
  set(method: string, fn: RequestHandler): void {
    this.byMethod.set(method, fn);
  }

  // Replaces what answers the methods nobody registered (the default throws methodNotFound at once).
  fallback(fn: FallbackHandler): void {
    this.fallbackHandler = fn;
  }

  // Runs the request's handler with its own signal; a plain value is answered before this returns (so in wire
  // order with what follows in the same read), a promise when it settles.
  run(msg: Request): void {
    const req: InFlight = { id: msg.id, method: msg.method, controller: new AbortController(), done: false };
    this.inFlight.add(req);
    const extra: RequestExtra = { id: msg.id, signal: req.controller.signal };
    const fn = this.byMethod.get(msg.method);
    let out: unknown;
    try {
      out = fn ? fn(msg.params, extra) : this.fallbackHandler(msg, extra);
    } catch (e) {
      return this.fail(req, e);
    }
    if (out instanceof Promise)
      out.then(
        (result: unknown) => this.succeed(req, result),
        (e: unknown) => this.fail(req, e),
      );
    else this.succeed(req, out);
  }

  // $/cancel_request: the request's handler is aborted and the request never answered. False: no such
  // request is open (answered already, or never seen).
  withdraw(requestId: unknown): boolean {
    if (typeof requestId !== 'number' && typeof requestId !== 'string') return false;
    // Ids should be unique while open; an agent that reuses one withdraws every request holding it.
    const found = [...this.inFlight].filter((r) => r.id === requestId);
    for (const r of found) {
      this.finish(r);
      r.controller.abort(WITHDRAWN);
    }
    return found.length > 0;
  }

  // Aborts every open request with the reason; each handler still answers (or rethrows the reason to stay
  // unanswered), as ACP wants every pending permission answered `cancelled` on session/cancel.
  abortAll(reason?: unknown): void {
    for (const r of [...this.inFlight]) r.controller.abort(reason);
  }

  // How many requests are open: handlers still running (waiting on a person, in practice).
  get open(): number {
    return this.inFlight.size;
  }

  // A result is written once, unless the request was withdrawn first.
  private succeed(req: InFlight, result: unknown): void {
    if (req.done) return;
    this.finish(req);
    this.out.result(req.id, result === undefined ? null : result);
  }

  // An error is the answer: an RpcFailure (or any {code, message}) as it is, anything else -32603; a handler
  // that rethrows its own abort reason is not answered at all.
  private fail(req: InFlight, e: unknown): void {
    if (req.done) return;
    this.finish(req);
    const { signal } = req.controller;
    if (signal.aborted && e === signal.reason) return;
    if (isRpcError(e)) {
      const { code, message, data } = e;
      return this.out.error(req.id, data === undefined ? { code, message } : { code, message, data });
    }
    this.out.error(req.id, { code: INTERNAL_ERROR, message: 'Internal error' });
    this.out.failed?.(req.method, e);
  }

  // The request is over: it leaves the open set, and nothing more is written for it.
  private finish(req: InFlight): void {
    req.done = true;
    this.inFlight.delete(req);
  }
}

// Is this error meant as a JSON-RPC error (an integer code and a message)? Our own RhoError's code is a string.
function isRpcError(e: unknown): e is RpcError {
  return isRecord(e) && Number.isInteger(e.code) && typeof e.message === 'string';
}
