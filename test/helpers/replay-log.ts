// Reads the replay agent's RHO_REPLAY_LOG: one JSON event a line (start, grandchild, recv, mismatch, signal,
// eof, done, stdout-error).
import { readFileSync } from 'node:fs';

/** One replay-log event; `event` names it, the other fields depend on it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ReplayEvent = { event: string; [field: string]: any };

/** Parses the log; a log that was never written (the agent never started) is an empty list. */
export function readReplayLog(file: string): ReplayEvent[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as ReplayEvent);
}

/** The methods of the JSON-RPC messages the client sent, in order (responses show as `response:<id>`). */
export function receivedMethods(log: ReplayEvent[]): string[] {
  return log
    .filter((e) => e.event === 'recv')
    .map((e) => (typeof e.msg?.method === 'string' ? e.msg.method : `response:${String(e.msg?.id)}`));
}

/** The mismatches the replay saw (fatal ones made it exit 86). */
export function mismatches(log: ReplayEvent[]): ReplayEvent[] {
  return log.filter((e) => e.event === 'mismatch');
}
