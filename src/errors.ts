// One error type for every failure a run can report, carrying the exit code it maps to.
export const EXIT = {
  ok: 0,
  agentFailed: 1,
  usage: 2,
  auth: 3,
  maxTokens: 4,
  refusal: 5,
  schemaMismatch: 6,
  denied: 7,
  breach: 8,
  timeout: 124,
  notFound: 127,
  sighup: 129,
  sigint: 130,
  sigquit: 131,
  sigpipe: 141,
  sigterm: 143,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

// Every error code a run can report, its exit code and what it means: the one list behind the schema's
// enum, `--help` and the README.
export const ERRORS = {
  usage: [EXIT.usage, 'a bad option, value, prompt or attachment'],
  config_invalid: [
    EXIT.usage,
    "Cursor's cli-config.json or the workspace's .cursor/cli.json is unusable, and the agent is Cursor",
  ],
  agent_not_found: [EXIT.notFound, 'the agent executable is missing or not executable'],
  agent_exited: [EXIT.agentFailed, 'the agent exited or was killed before the turn ended'],
  agent_closed: [EXIT.agentFailed, 'the agent closed its output before the turn ended'],
  protocol: [
    EXIT.agentFailed,
    'the agent broke the protocol: a malformed answer, an unknown stopReason, or cancelled unasked',
  ],
  protocol_version: [
    EXIT.agentFailed,
    'initialize answered a protocol version other than 1, or refused 1 (-32022)',
  ],
  rpc_error: [EXIT.agentFailed, 'the agent answered a request with a JSON-RPC error'],
  auth_required: [EXIT.auth, 'the agent needs authentication'],
  plan_refused: [EXIT.agentFailed, 'the agent has no plan mode or refused it'],
  capability_missing: [EXIT.usage, 'the agent does not advertise a capability the run needs'],
  fence_failed: [EXIT.agentFailed, 'the private config dir for --fence could not be prepared'],
  step_timeout: [EXIT.timeout, 'a handshake step got no answer within --step-timeout'],
  run_timeout: [EXIT.timeout, 'the run exceeded --timeout'],
  idle_timeout: [EXIT.timeout, 'the agent sent nothing for --idle-timeout'],
  cancelled: [EXIT.sigint, 'cancelled by a signal (exit 129, 130, 131, 143, or 128+n for another)'],
  stdout_closed: [EXIT.sigpipe, 'stdout was closed by its reader (EPIPE)'],
  write_failed: [
    EXIT.agentFailed,
    'rho-cursor could not write its output (a full disk, say, or a report path the agent replaced)',
  ],
  max_tokens: [EXIT.maxTokens, 'stopReason max_tokens or max_turn_requests'],
  max_tool_calls: [EXIT.maxTokens, 'the turn reached --max-tool-calls'],
  refusal: [EXIT.refusal, 'stopReason refusal'],
  schema_mismatch: [EXIT.schemaMismatch, 'the answer did not match --output-schema after the retries'],
  reply_error: [EXIT.agentFailed, '--strict, or --retries ran out: the answer reads as an API error'],
  denied: [
    EXIT.denied,
    '--strict: a permission rejected or a tool blocked; or a turn cancelled after a rejection',
  ],
  fence_breached: [
    EXIT.breach,
    'the workspace changed where the run promised it could not (a fence, a Write(...) rule, a tool shown rejected that ran)',
  ],
  os_limit: [
    EXIT.agentFailed,
    'the operating system ran out of something (open files, processes, memory): EMFILE, ENFILE, EAGAIN, ENOMEM',
  ],
  internal: [EXIT.agentFailed, 'a bug in rho-cursor'],
} as const satisfies Record<string, readonly [ExitCode, string]>;

export type ErrorCode = keyof typeof ERRORS;
export const ERROR_CODES = Object.keys(ERRORS) as ErrorCode[];

export class RhoError extends Error {
  readonly code: ErrorCode;
  readonly exitCode: ExitCode;
  readonly hint: string | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    opts: { cause?: unknown; hint?: string; exitCode?: ExitCode } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'RhoError';
    this.code = code;
    this.exitCode = opts.exitCode ?? ERRORS[code][0];
    this.hint = opts.hint;
  }
}

// Maps anything thrown to the error the user sees; unknown throws are internal failures.
export function toRhoError(err: unknown): RhoError {
  if (err instanceof RhoError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new RhoError('internal', message, { cause: err });
}

// Maps an ACP stopReason to the run's exit code.
export function exitForStopReason(stopReason: string): ExitCode {
  switch (stopReason) {
    case 'end_turn':
      return EXIT.ok;
    case 'max_tokens':
    case 'max_turn_requests':
      return EXIT.maxTokens;
    case 'refusal':
      return EXIT.refusal;
    case 'cancelled':
      return EXIT.sigint;
    default:
      return EXIT.agentFailed;
  }
}

// The error of a turn that ended without its answer done: refusal, max_tokens, max_turn_requests.
export function stopReasonError(stopReason: string | null): RhoError | undefined {
  switch (stopReason) {
    case 'refusal':
      return new RhoError('refusal', 'the agent refused to go on (stopReason refusal)');
    case 'max_tokens':
      return new RhoError('max_tokens', "the turn ended at the model's token limit (stopReason max_tokens)");
    case 'max_turn_requests':
      return new RhoError(
        'max_tokens',
        'the turn ended at its limit of model requests (stopReason max_turn_requests)',
      );
    default:
      return undefined;
  }
}
