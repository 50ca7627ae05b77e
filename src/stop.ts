// Pure: why a run was stopped before its turn ended, and the error (and exit code) each cause maps to.
import { EXIT, RhoError } from './errors.js';

export type StopCause = 'SIGINT' | 'SIGTERM' | 'timeout' | 'epipe';

// Formats milliseconds the way the options take them.
export const fmtMs = (ms: number): string => (ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`);

export function stopError(cause: StopCause, timeoutMs: number | undefined): RhoError {
  switch (cause) {
    case 'timeout':
      return new RhoError('run_timeout', `the run exceeded --timeout ${fmtMs(timeoutMs ?? 0)}`, {
        exitCode: EXIT.timeout,
      });
    case 'epipe':
      return new RhoError('stdout_closed', 'stdout was closed');
    case 'SIGINT':
      return new RhoError('cancelled', 'cancelled by SIGINT', { exitCode: EXIT.sigint });
    case 'SIGTERM':
      return new RhoError('cancelled', 'cancelled by SIGTERM', { exitCode: EXIT.sigterm });
  }
}
