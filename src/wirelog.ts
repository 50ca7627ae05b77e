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
import { MIN_SECRET_LENGTH, redact, Redactor, secretForms } from './lifecycle/secrets.js';
import { consolePath, type FileId } from './ci/console.js';
import { safeJson } from './sanitize/json.js';
import { inertJson } from './sanitize/workflow.js';

/**
 * What may wait in memory for the reader of a wire log that is a FIFO or a pipe (`--wire-log >(gzip >log)`):
 * past it the reader is too far behind (or not reading at all), and the log stops (wire-log-failed). A
 * regular file has no cap: the disk always takes what is written.
 */
export const WIRE_LOG_MAX_PENDING = 16 * 1024 * 1024;

/** A text chunk's row; held while its end could start the key, written once the next row says what it was. */
interface HeldRow {
  head: string;
  line: string;
  msg: ChunkMsg;
  /** Its stream: the session and the kind of chunk. */
  stream: string;
  /** Its text as masked, without the end that waits. */
  text: string;
}

type ChunkMsg = {
  params: { sessionId?: unknown; update: { sessionUpdate: string; content: { text: string } } };
};

export class WireLog {
  private readonly stream: Writable;
  private readonly pipe: boolean;
  private readonly forms: string[];
  /** The key masked across the rows of one stream of text chunks (with a key set). */
  private readonly chunks: Redactor;
  private held: HeldRow | undefined;
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
    this.forms = secret && secret.length >= MIN_SECRET_LENGTH ? secretForms(secret) : [];
    this.chunks = new Redactor(secret);
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
    const head = `{"dir":"${dir}","ms":${ms},"msg":`;
    if (this.chunks.active && dir === 'a2c' && json && this.chunkRow(head, line)) return;
    this.release();
    const msg = safeJson(json ? line.replace(/\r/g, ' ') : JSON.stringify(line));
    this.write(`${head}${msg}}\n`);
  }

  // A row is masked alone, and an agent streams a key it repeats in pieces, one chunk row each. With a key
  // set, the text of consecutive text-chunk rows of one stream (a session's message or thought chunks) is
  // masked as one text, as the run's events are (events/key-chunks.ts): a row whose text ends in what could
  // start the key waits for the next row. When the next is a chunk of the same stream, the end moves to it;
  // each row whose text so changed is written re-serialised, `"rewritten":"key"` after its msg. Any other
  // row, or the log's end, writes the waiting row as it came. False: not a text chunk's row.
  private chunkRow(head: string, line: string): boolean {
    if (!line.includes('_chunk') && !line.includes('\\u')) return false;
    const msg = textChunk(line);
    if (msg === undefined) return false;
    const stream = `${String(msg.params.sessionId)}\n${msg.params.update.sessionUpdate}`;
    if (this.held && this.held.stream !== stream) this.release();
    const came = msg.params.update.content.text;
    const text = this.chunks.push(came);
    // The waiting row's end is this row's start now.
    if (this.held) this.settle(this.held, this.held.text);
    this.held = undefined;
    const row = { head, line, msg, stream, text };
    if (this.chunks.holding) this.held = row;
    else this.settle(row, text);
    return true;
  }

  // The waiting row, once no chunk of its stream follows: its end was not the key.
  private release(): void {
    const h = this.held;
    if (!h) return;
    this.held = undefined;
    this.settle(h, h.text + this.chunks.end());
  }

  // A chunk's row with the text the key's masking left it: as it came when that is its own, else rewritten.
  private settle(r: HeldRow, text: string): void {
    const msg = r.msg;
    if (text === msg.params.update.content.text) {
      this.write(`${r.head}${safeJson(r.line.replace(/\r/g, ' '))}}\n`);
      return;
    }
    msg.params.update.content.text = text;
    this.write(`${r.head}${safeJson(JSON.stringify(msg))},"rewritten":"key"}\n`);
  }

  summary(fields: Record<string, unknown>): void {
    this.release();
    const ms = Math.round(this.now() - this.t0);
    // Its fields carry the agent's words too (a stopReason is any string it sent): as inert as the rows.
    this.write(safeJson(JSON.stringify({ dir: 'summary', ms, msg: fields })) + '\n');
  }

  // Ends the log; `giveUp` stops waiting for a reader (a FIFO's) that takes nothing: the rest is dropped, and
  // that is a failure like any other (its reason says when: `before SIGINT`, `within 2s of the timeout`). A
  // failure to write was reported when it happened.
  async close(giveUp?: AbortSignal): Promise<void> {
    this.release();
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

// The line as a session/update carrying a text chunk (message or thought), or undefined.
function textChunk(line: string): ChunkMsg | undefined {
  let msg: unknown;
  try {
    msg = JSON.parse(line);
  } catch {
    return undefined;
  }
  const m = msg as { method?: unknown; params?: { update?: { sessionUpdate?: unknown; content?: unknown } } };
  const u = m.method === 'session/update' ? m.params?.update : undefined;
  const kind = u?.sessionUpdate;
  if (kind !== 'agent_message_chunk' && kind !== 'agent_thought_chunk') return undefined;
  const c = u?.content as { type?: unknown; text?: unknown } | null | undefined;
  return c?.type === 'text' && typeof c.text === 'string' ? (msg as ChunkMsg) : undefined;
}
