// --wire-log: every wire message of a run in the spike's {dir, ms, msg} rows, and a closing summary row.
// Each row is one JSON line whatever the agent sent: a line is embedded only when it parsed as JSON,
// otherwise it is logged as a JSON string, so a crafted line can neither break the file nor forge a row. An
// embedded line is made well-formed and inert as every JSON output is (sanitize/json.ts), and its CRs, which
// JSON reads as whitespace there and Python's splitlines as line ends, become spaces.
import { createWriteStream, openSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { RhoError } from './errors.js';
import { endWithin, isPipe, openPipe, pipeStream } from './files/pipes.js';
import { redact, secretForms } from './lifecycle/secrets.js';
import { consolePath } from './ci/console.js';
import { safeJson } from './sanitize/json.js';
import { inertJson } from './sanitize/workflow.js';

export class WireLog {
  private readonly stream: Writable;
  private readonly forms: string[];
  private readonly inert: boolean;
  private failed = false;

  constructor(
    private readonly path: string,
    private readonly now: () => number,
    private readonly t0: number,
    secret: string | undefined,
    /** Called once if the log cannot be written (a full disk): the run goes on and reports it. */
    private readonly onFailure: (message: string) => void,
    /** Under GitHub Actions: a log written to our own stdout or stderr gets `##[` escaped in its rows. */
    github = false,
  ) {
    this.inert = github && consolePath(path);
    try {
      // A FIFO (`--wire-log >(gzip >log)`) without ever blocking on it: see files/pipes.ts.
      this.stream = isPipe(path)
        ? pipeStream(openPipe(path))
        : createWriteStream('', { fd: openSync(path, 'w', 0o600) });
    } catch (err) {
      throw new RhoError('usage', `option '--wire-log' cannot open ${path}: ${(err as Error).message}`);
    }
    this.forms = secret && secret.length >= 8 ? secretForms(secret) : [];
    this.stream.on('error', (e) => {
      if (this.failed) return;
      this.failed = true;
      this.onFailure(`cannot write the wire log ${this.path}: ${e.message}`);
    });
  }

  // Writes one row; `json` says the line parsed as JSON (only then is it embedded as it arrived).
  row(dir: 'c2a' | 'a2c', line: string, json: boolean): void {
    const ms = Math.round(this.now() - this.t0);
    const msg = safeJson(json ? line.replace(/\r/g, ' ') : JSON.stringify(line));
    this.write(`{"dir":"${dir}","ms":${ms},"msg":${msg}}\n`);
  }

  summary(fields: Record<string, unknown>): void {
    const ms = Math.round(this.now() - this.t0);
    // Its fields carry the agent's words too (a stopReason is any string it sent): as inert as the rows.
    this.write(safeJson(JSON.stringify({ dir: 'summary', ms, msg: fields })) + '\n');
  }

  // Ends the log; `giveUp` stops waiting for a reader (a FIFO's) that takes nothing: the rest is dropped. A
  // failure to write was reported when it happened.
  async close(giveUp?: AbortSignal): Promise<void> {
    if (this.stream.destroyed) return;
    await endWithin(this.stream, giveUp).catch(() => {});
  }

  // A key never reaches the log, in any form the agent could spell it.
  private write(text: string): void {
    if (this.failed) return;
    const masked = this.forms.length > 0 ? redact(text, this.forms) : text;
    // Each row is one JSON line starting with `{`: only the legacy `##[command]` could act, in a string.
    this.stream.write(this.inert ? inertJson(masked) : masked);
  }
}
