// --wire-log: every wire message of a run in the spike's {dir, ms, msg} rows, and a closing summary row.
// Each row is one JSON line whatever the agent sent: a line is embedded only when it parsed as JSON,
// otherwise it is logged as a JSON string, so a crafted line can neither break the file nor forge a row. An
// embedded line is made well-formed and inert as every JSON output is (sanitize/json.ts), and its CRs, which
// JSON reads as whitespace there and Python's splitlines as line ends, become spaces.
import { createWriteStream, fstatSync, openSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { RhoError } from './errors.js';
import { endWithin, isPipe, openPipe, pipeStream } from './files/pipes.js';
import { redact, secretForms } from './lifecycle/secrets.js';
import { consolePath, type FileId } from './ci/console.js';
import { safeJson } from './sanitize/json.js';
import { inertJson } from './sanitize/workflow.js';

/**
 * What may wait in memory for the reader of a wire log that is a FIFO or a pipe (`--wire-log >(gzip >log)`):
 * past it the reader is too far behind (or not reading at all), and the log stops (wire-log-failed). A
 * regular file has no cap: the disk always takes what is written.
 */
export const WIRE_LOG_MAX_PENDING = 16 * 1024 * 1024;

export class WireLog {
  private readonly stream: Writable;
  private readonly pipe: boolean;
  private readonly forms: string[];
  private readonly inert: boolean;
  private failed = false;
  /** The regular file the log is written to (its identity, and the path it was opened at); undefined for a
   * FIFO or a device. The ledger leaves it out of the workspace's changes while it is still that file. */
  readonly file: FileId | undefined;

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
    this.pipe = isPipe(path);
    try {
      // A FIFO (`--wire-log >(gzip >log)`) without ever blocking on it: see files/pipes.ts.
      const fd = this.pipe ? undefined : openSync(path, 'w', 0o600);
      this.stream = fd === undefined ? pipeStream(openPipe(path)) : createWriteStream('', { fd });
      const st = fd === undefined ? undefined : fstatSync(fd);
      this.file = st?.isFile() ? { dev: st.dev, ino: st.ino, path: resolve(path) } : undefined;
    } catch (err) {
      throw new RhoError('usage', `option '--wire-log' cannot open ${path}: ${(err as Error).message}`);
    }
    this.forms = secret && secret.length >= 8 ? secretForms(secret) : [];
    this.stream.on('error', (e) => this.fail(`cannot write the wire log ${this.path}: ${e.message}`));
  }

  // The log stops for good; the run is told once.
  private fail(message: string): void {
    if (this.failed) return;
    this.failed = true;
    this.onFailure(message);
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

  // Ends the log; `giveUp` stops waiting for a reader (a FIFO's) that takes nothing: the rest is dropped, and
  // that is a failure like any other (its reason says when: `before SIGINT`, `within 2s of the timeout`). A
  // failure to write was reported when it happened.
  async close(giveUp?: AbortSignal): Promise<void> {
    if (this.stream.destroyed) return;
    const taken = await endWithin(this.stream, giveUp).catch(() => true);
    if (!taken)
      this.fail(
        `the reader of the wire log ${this.path} did not take it ${String(giveUp?.reason)}: the rest is dropped`,
      );
  }

  // A key never reaches the log, in any form the agent could spell it.
  private write(text: string): void {
    if (this.failed) return;
    const masked = this.forms.length > 0 ? redact(text, this.forms) : text;
    // Each row is one JSON line starting with `{`: only the legacy `##[command]` could act, in a string.
    this.stream.write(this.inert ? inertJson(masked) : masked);
    // A pipe's reader that falls too far behind would make the run hold the whole log in memory (found by
    // review: 529 MB for a flood its reader never read). It stops here instead; waiting for the reader would
    // let a log nobody reads stall the run.
    if (this.pipe && this.stream.writableLength > WIRE_LOG_MAX_PENDING) {
      this.stream.destroy();
      this.fail(
        `the reader of the wire log ${this.path} fell more than ${WIRE_LOG_MAX_PENDING / 1024 / 1024} MiB behind: the rest is dropped`,
      );
    }
  }
}
