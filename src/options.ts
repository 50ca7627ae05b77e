// Pure parsing of command-line values: durations, enumerations, and the run's resolved options.
import { RhoError } from './errors.js';

export const POLICIES = ['reject', 'allow', 'ask'] as const;
export type Policy = (typeof POLICIES)[number];

export const FORMATS = ['text', 'json', 'stream-json'] as const;
export type Format = (typeof FORMATS)[number];

export const TOOL_KINDS = [
  'read',
  'edit',
  'delete',
  'move',
  'search',
  'execute',
  'think',
  'fetch',
  'other',
] as const;
export type ToolKind = (typeof TOOL_KINDS)[number];

export interface RunOptions {
  prompt: string;
  model: string | undefined;
  plan: boolean;
  policy: Policy;
  allow: ToolKind[];
  format: Format;
  cwd: string;
  timeoutMs: number | undefined;
  stepTimeoutMs: number;
  /** --idle-timeout: no message from the agent for this long cancels the run. */
  idleTimeoutMs: number | undefined;
  agent: string;
  wireLog: string | undefined;
  /** A person can answer questions: stdin and stderr are terminals. */
  interactive: boolean;
}

/** The longest duration an option takes: 24 hours. */
export const MAX_DURATION_MS = 24 * 60 * 60 * 1000;

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m)?$/;

// Durations are `500ms`, `10s`, `2m` or plain seconds; returns milliseconds or undefined when malformed.
export function parseDuration(text: string): number | undefined {
  const match = DURATION.exec(text.trim());
  if (!match) return undefined;
  const value = Number(match[1]);
  const unit = match[2] ?? 's';
  const ms = unit === 'ms' ? value : unit === 's' ? value * 1000 : value * 60_000;
  // Checked after rounding: `0.4ms` would otherwise become 0, which run.ts reads as "no timeout".
  const rounded = Math.round(ms);
  // At most a day: longer timers would overflow Node's 2^31 ms and fire at once.
  if (!Number.isFinite(rounded) || rounded <= 0 || rounded > MAX_DURATION_MS) return undefined;
  return rounded;
}

// Checks a value against an `as const` list and names the option when it is not one of them.
export function oneOf<T extends string>(option: string, list: readonly T[], value: string): T {
  if ((list as readonly string[]).includes(value)) return value as T;
  throw new RhoError('usage', `option '${option}' must be one of ${list.join(', ')} (got '${value}')`);
}

// Parses a duration option, naming the option in the error.
export function durationOption(option: string, value: string): number {
  const ms = parseDuration(value);
  if (ms === undefined) {
    throw new RhoError(
      'usage',
      `option '${option}' takes a duration like 500ms, 10s, 2m or a number of seconds, above 0 and at most 24h (got '${value}')`,
    );
  }
  return ms;
}

// The default permission policy: ask only when a person sits at the terminal.
export function defaultPolicy(interactive: boolean): Policy {
  return interactive ? 'ask' : 'reject';
}

// Joins prompt words; `-` or no words with piped stdin means "read stdin" (signalled by undefined).
export function promptFromWords(words: string[], stdinIsTTY: boolean): string | undefined {
  if (words.length === 1 && words[0] === '-') return undefined;
  if (words.length === 0 && !stdinIsTTY) return undefined;
  return words.join(' ');
}
