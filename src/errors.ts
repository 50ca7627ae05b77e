// One error type for every failure a run can report, carrying the exit code it maps to.
export const EXIT = {
  ok: 0,
  agentFailed: 1,
  usage: 2,
  auth: 3,
  maxTokens: 4,
  refusal: 5,
  timeout: 124,
  notFound: 127,
  sigint: 130,
  sigpipe: 141,
  sigterm: 143,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export const ERROR_CODES = [
  'usage',
  'config_invalid',
  'agent_not_found',
  'agent_exited',
  'agent_closed',
  'protocol',
  'rpc_error',
  'auth_required',
  'plan_refused',
  'step_timeout',
  'run_timeout',
  'cancelled',
  'internal',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

const EXIT_BY_CODE: Record<ErrorCode, ExitCode> = {
  usage: EXIT.usage,
  config_invalid: EXIT.usage,
  agent_not_found: EXIT.notFound,
  agent_exited: EXIT.agentFailed,
  agent_closed: EXIT.agentFailed,
  protocol: EXIT.agentFailed,
  rpc_error: EXIT.agentFailed,
  auth_required: EXIT.auth,
  plan_refused: EXIT.agentFailed,
  step_timeout: EXIT.timeout,
  run_timeout: EXIT.timeout,
  cancelled: EXIT.sigint,
  internal: EXIT.agentFailed,
};

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
    this.exitCode = opts.exitCode ?? EXIT_BY_CODE[code];
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
