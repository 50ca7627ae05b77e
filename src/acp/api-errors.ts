// Pure: the replies that read as an API failure rather than an answer. Cursor ends some failed turns with
// `end_turn` and the error as the reply's text; --strict, --retries and the `reply-looks-like-error`
// warning all read them from this one table.

/** One shape of an API failure written as a reply, and where it was seen. */
import { cutEnd } from '../sanitize/cut.js';

export interface ApiErrorPattern {
  /** Matched against the reply's first line, leading blanks skipped. */
  pattern: RegExp;
  seen: string;
}

export const API_ERROR_PATTERNS: readonly ApiErrorPattern[] = [
  {
    pattern: /^Error: \w*Error\b/,
    seen: 'cursor-agent 2026.10.01 (the spike): `Error: RetriableError: [unavailable] ...`, `Error: ConnectError: ...`',
  },
  {
    pattern: /^Error: T: \[internal\] Failed to run step\b/,
    seen: "Cursor's ACP agent in Zed: `Error: T: [internal] Failed to run step, exceeded max retries`, the reply of an end_turn",
  },
  {
    pattern: /^Connect error resource_exhausted\b/,
    seen: 'Cursor capacity windows (27 and 34 minutes): `Connect error resource_exhausted: Error`',
  },
];

// The reply's first line when it reads as an API error (any pattern of the table), else undefined.
export function replyReadsAsError(replyHead: string): string | undefined {
  const first = replyHead.replace(/^\s+/, '').split('\n')[0]!;
  // The key is masked before the cut: the head runs well past the 200 characters shown (run.ts keeps 400).
  return API_ERROR_PATTERNS.some((p) => p.pattern.test(first)) ? cutEnd(first, 200) : undefined;
}
