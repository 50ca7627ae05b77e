// Pure: the stdout a run owes when it fails before it starts (a usage error, stdin timing out), per format.
import { RunSummary } from '../events/collect.js';
import type { ResultEvent } from '../events/types.js';
import type { RhoError } from '../errors.js';
import type { Format } from '../options.js';
import { safeJson } from '../sanitize/json.js';
import { inertJson } from '../sanitize/workflow.js';
import { redacted } from '../sanitize/cut.js';

// The `result` event of a run that never spawned the agent.
export function resultBeforeRun(error: RhoError, durationMs: number): ResultEvent {
  return {
    type: 'result',
    stopReason: null,
    exitCode: error.exitCode,
    sessionId: null,
    model: null,
    mode: null,
    title: null,
    durationMs,
    timings: { initializeMs: null, sessionNewMs: null, promptMs: null },
    usage: null,
    structured: null,
    error: { code: error.code, message: error.hint ? `${error.message} (${error.hint})` : error.message },
  };
}

// What stdout carries for such a run: nothing in text mode, the result line or the json object otherwise.
// Under GitHub Actions (`github`), `##[` is written `##\u005b`, as in a run's own JSON: an option's value in
// the error's message (an issue title passed as the prompt) is not a runner command.
export function stdoutBeforeRun(
  format: Format | undefined,
  error: RhoError,
  durationMs: number,
  github = false,
): string {
  if (format === undefined || format === 'text') return '';
  const result = resultBeforeRun(error, durationMs);
  // The error may quote the command line, and the key with it: masked as any line rho-cursor writes.
  const json = redacted(
    safeJson(JSON.stringify(format === 'json' ? new RunSummary().output(result) : result)),
  );
  return (github ? inertJson(json) : json) + '\n';
}
