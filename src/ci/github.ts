// Pure: what a GitHub Actions job reads: workflow-command annotations on stderr and step outputs in
// $GITHUB_OUTPUT (multi-line values with the heredoc delimiter syntax).
import { escapeData, escapeProperty } from '../sanitize/workflow.js';

export function warningAnnotation(code: string, message: string): string {
  return `::warning title=${escapeProperty(`rho-cursor ${code}`)}::${escapeData(message)}\n`;
}

export function errorAnnotation(message: string): string {
  return `::error title=rho-cursor::${escapeData(message)}\n`;
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
