// A capture writer for renderer tests, and a finished run's output to hand to finish().
import type { JsonOutput } from '../../../src/events/types.js';
import type { Writer } from '../../../src/render/writer.js';

export interface Capture extends Writer {
  /** Everything written, joined. */
  readonly text: string;
  /** Each write call's text, in order. */
  readonly writes: string[];
}

export function capture(isTTY = false, accept = true): Capture {
  const writes: string[] = [];
  return {
    isTTY,
    writes,
    get text() {
      return writes.join('');
    },
    write(s) {
      writes.push(s);
      return accept;
    },
  };
}

export function finished(over: Partial<JsonOutput> = {}): JsonOutput {
  return {
    type: 'result',
    stopReason: 'end_turn',
    exitCode: 0,
    sessionId: 's1',
    model: 'composer-2.5[fast=true]',
    mode: 'agent',
    title: null,
    durationMs: 1000,
    timings: { initializeMs: 10, sessionNewMs: 20, promptMs: 900 },
    usage: null,
    structured: null,
    text: '',
    tools: [],
    permissions: [],
    questions: [],
    plans: [],
    todos: [],
    warnings: [],
    ...over,
  };
}
