// Pure: what a GitHub Actions job reads: workflow-command annotations on stderr and step outputs in
// $GITHUB_OUTPUT (multi-line values with the heredoc delimiter syntax).
import { STOP_REASONS } from '../acp/answers.js';
import { unitEscapes } from '../sanitize/json.js';
import { oneLine } from '../sanitize/terminal.js';
import { escapeData, escapeProperty } from '../sanitize/workflow.js';

// An annotation's message may quote the agent: its controls, bidi and invisible characters are shown, not
// passed to the log viewer or a terminal that replays the log; then escaped as the runner requires.
export function warningAnnotation(code: string, message: string): string {
  return `::warning title=${escapeProperty(`rho-cursor ${code}`)}::${escapeData(shown(message))}\n`;
}

export function errorAnnotation(message: string): string {
  return `::error title=rho-cursor::${escapeData(shown(message))}\n`;
}

// One line, as on a terminal (newlines and CRs visible: ␊ ␍): GitHub shows an annotation's %0A as a line
// break, where a message quoting the agent could stand in for lines of rho-cursor's own.
const shown = oneLine;

// The stop-reason output: one of the values ACP defines, else empty (an agent's own string is never a value a
// workflow might paste into a script).
export function knownStopReason(stopReason: string | null): string {
  return stopReason !== null && (STOP_REASONS as readonly string[]).includes(stopReason) ? stopReason : '';
}

// The session-id output: the agent's id when it is a plain token (a UUID, letters, digits and . _ : - @ + =,
// at most 256), else empty; the whole id stays in the result event.
export function plainToken(id: string | null): string {
  return id !== null && /^[A-Za-z0-9][A-Za-z0-9._:@+=-]{0,255}$/.test(id) ? id : '';
}

// JSON text a workflow may paste into a script (`echo '${{ steps.x.outputs.structured }}' | jq .`): the
// characters that end a single-quoted string (') or run a command in a heredoc (`, $) are written as \uXXXX
// escapes, the same value to any JSON reader. They can only be inside strings: JSON's own syntax has none.
// An escaped backslash (`\\`) is written `\u005c` too: a heredoc reads `\\` as one backslash, so
// `"C:\\new"` would reach jq as `"C:\new"`, a newline. Matched left to right, `\\` is always a whole escape.
export function shellInertJson(json: string): string {
  return json.replace(/\\\\|['`$]/g, (c) => (c === '\\\\' ? '\\u005c' : unitEscapes(c)));
}

// name=value lines, or name<<DELIM ... DELIM for a value with a newline; the delimiter never occurs in it.
export function outputLines(
  values: Record<string, string>,
  // Web Crypto: Node loads it on first use, so runs outside GitHub Actions do not pay for it at start-up.
  delimiter = (): string => `rho_${Buffer.from(crypto.getRandomValues(new Uint8Array(8))).toString('hex')}`,
): string {
  let out = '';
  for (const [name, value] of Object.entries(values)) {
    if (!/[\r\n]/.test(value)) {
      out += `${name}=${value}\n`;
      continue;
    }
    let d = delimiter();
    while (value.includes(d)) d = delimiter();
    out += `${name}<<${d}\n${value}\n${d}\n`;
  }
  return out;
}
