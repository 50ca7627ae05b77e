// Pure: what GitHub Actions' runner reads from a step's output. Agent text must never start a workflow command
// (`::error::`, `::add-mask::`, `::stop-commands::`, the legacy `##[...]`): annotations are escaped as the
// runner requires, and agent text sits between `::stop-commands::<token>` and `::<token>::` (GuardState).

// The message of a workflow command: %, CR and LF escaped.
export const escapeData = (s: string): string =>
  s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');

// A property of a workflow command (title=...): also : and , escaped.
export const escapeProperty = (s: string): string => escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');

// A random token nobody could have guessed, so agent text cannot end the guard (Web Crypto, loaded on use).
export function guardToken(): string {
  return `rho-${Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('hex')}`;
}

export const stopCommands = (token: string): string => `::stop-commands::${token}\n`;
export const resumeCommands = (token: string): string => `::${token}::\n`;

// One JSON line made inert for the runner's legacy `##[command]` syntax, which it finds anywhere in a line:
// `##[` inside a JSON string is written `##\u005b`, the same value to any JSON reader.
export function inertJson(line: string): string {
  return line.includes('##[') ? line.replaceAll('##[', '##\\u005b') : line;
}

/** Whether the runner's command processing is stopped by our guard; one token, shared by stdout and stderr. */
export class GuardState {
  private stopped = false;

  constructor(readonly token: string = guardToken()) {}

  // The line that stops command processing, written before a stream's first text.
  open(): string {
    this.stopped = true;
    return stopCommands(this.token);
  }

  // The line that resumes it, once, at the very end before rho-cursor's own annotations ('' if never stopped).
  close(): string {
    if (!this.stopped) return '';
    this.stopped = false;
    return resumeCommands(this.token);
  }
}
