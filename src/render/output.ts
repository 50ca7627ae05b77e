// Everything a run writes goes through one Output: the renderer (loaded while the agent starts), events
// that arrive before it, the spinner, warnings, the json collection, the key's redaction, and write
// failures. It closes itself at the `result` event, so nothing is ever written after it.
import { RunSummary } from '../events/collect.js';
import type { Event, JsonOutput, ResultEvent } from '../events/types.js';
import { errorAnnotation, warningAnnotation } from '../ci/github.js';
import { SurrogateJoiner } from '../events/surrogates.js';
import { Redactor } from '../lifecycle/secrets.js';
import { safeJson } from '../sanitize/json.js';
import { GuardState, inertJson } from '../sanitize/workflow.js';
import { cutEnd } from '../sanitize/cut.js';
import type { OutputPlan } from './plan.js';
import { sleepSync } from '../lifecycle/timing.js';
import { makeRenderer, startSpinner, type Spinner, type Style } from './index.js';
import { message as shownMessage } from './lines.js';
import { LineCap, NON_JSON_SHOWN, type Renderer, type Writer } from './writer.js';

export type OutputFailure = { kind: 'epipe' } | { kind: 'write_failed'; message: string };

export interface OutputOptions {
  /** What the output does, decided once from the options (planOutput). */
  plan: OutputPlan;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
  /** Text mode's colour and --quiet. */
  style?: Style;
  /** A person sits at the terminal: while the spinner runs, what they type is not echoed into it. */
  discardInput?: boolean;
}

// A stream that failed (a reader that went away, a full disk) takes no more writes and never asks to wait:
// an errored Writable returns false from write() and never emits 'drain'.
export const broken = (stream: NodeJS.WritableStream & { errored?: unknown; destroyed?: boolean }): boolean =>
  stream.errored != null || stream.destroyed === true;

/** What a sink does besides masking the key: under GitHub Actions, guard its text or make JSON inert. */
interface SinkOptions {
  /** `::stop-commands::<token>` before the first text written (the runner's command processing stops). */
  guard?: GuardState;
  /** JSON lines: `##[` written `##\u005b`, the runner's legacy command syntax made inert. */
  inert?: boolean;
}

type SinkWriter = Writer & { end(): void; atLineStart(): boolean; guarded(): boolean };

// A writer over a stream that masks the key and never throws; once the stream failed, writes are dropped.
function sinkWriter(stream: NodeJS.WriteStream, redactor: Redactor, o: SinkOptions = {}): SinkWriter {
  let guarded = false;
  let lastChar = '\n';
  /** The last two characters written: a `##` there and a `[` that follows it are one `##[`. */
  let tail = '';
  const put = (text: string): boolean => {
    if (text.length === 0 || broken(stream)) return true;
    lastChar = text[text.length - 1]!;
    return stream.write(text) || broken(stream);
  };
  // Made inert after the key is masked (found by review: the mask `[redacted]` after an agent's `##` made a
  // `##[`), across writes too: what the redactor held back comes after `##` already written. Inerting keeps
  // every `##` where it was, so the tail's length is cut off again unchanged.
  const inert = (safe: string): string => {
    if (!o.inert || safe.length === 0) return safe;
    const out = inertJson(tail + safe).slice(tail.length);
    tail = (tail + out).slice(-2);
    return out;
  };
  return {
    isTTY: stream.isTTY === true,
    write: (s) => {
      const safe = inert(redactor.push(s));
      if (safe.length === 0) return true;
      if (o.guard && !guarded) {
        guarded = true;
        // The guard line must start a line of its own to be read as a command.
        put((lastChar === '\n' ? '' : '\n') + o.guard.open());
      }
      return put(safe);
    },
    end: () => {
      put(inert(redactor.end()));
    },
    atLineStart: () => lastChar === '\n',
    guarded: () => guarded,
  };
}

// A warning as its own line on stderr, outside text mode (agent text in it shown, never interpreted).
const warningLine = (message: string): string => `rho-cursor: warning: ${shownMessage(message)}\n`;

/** How long the resume on stderr waits after the one on stdout, so the runner reads them in two batches. */
const RESUME_GAP_MS = 200;

/** A writer that takes everything and writes nothing (-q with --output-schema in text mode). */
const NOWHERE: Writer = { isTTY: false, write: () => true };

/** Warning annotations kept for the end of a run under GitHub Actions, and the longest message of one. */
const MAX_ANNOTATIONS = 20;
const ANNOTATION_MAX = 2000;

/**
 * What may be read from the agent while a question waits for the person (its output is held to be drawn
 * after the answer): past this, reading stops until the answer, and the pipe holds the agent.
 */
export const MAX_HELD_BYTES = 4 * 1024 * 1024;

export class Output {
  readonly plan: OutputPlan;
  private renderer: Renderer | undefined;
  private readonly early: Event[] = [];
  private spinner: Spinner | undefined;
  /** The spinner's text while one is wanted (it starts asynchronously); undefined once it is stopped. */
  private spinnerWanted: string | undefined;
  private readonly summary: RunSummary | undefined;
  private readonly out: SinkWriter;
  private readonly err: SinkWriter;
  /** Under GitHub Actions: the guard both streams share, and our own annotations, written after it ends. */
  private readonly guard: GuardState | undefined;
  /** The guard's token, masked in everything written (none without a guard). */
  private readonly guardToken: string[];
  private readonly annotations: string[] = [];
  private annotationsLeft = 0;
  /** A failure's annotations, after every warning's. */
  private readonly errorAnnotations: string[] = [];
  /** What arrived while a person was answering a question: drawn after the answer, in wire order. */
  private held: Array<Event | string> = [];
  /** A question waits for the person (hold/resume): what is drawn meanwhile is held. */
  private holding = false;
  /** Bytes read from the agent since the question opened; past MAX_HELD_BYTES reading waits for resume. */
  private heldBytes = 0;
  /** Bytes read from the agent in all (what stream-json's tool events may write grows with it). */
  private readBytes = 0;
  /** The agent's reader, paused for that: going on once no question waits (or the output closed). */
  private readonly afterHold: Array<() => void> = [];
  private readonly joiner = new SurrogateJoiner();
  private readonly secret: string | undefined;
  private closed = false;
  /** Non-JSON lines from the agent: the first few are lines on stderr (or annotations), as in text mode. */
  private readonly nonJson = new LineCap(NON_JSON_SHOWN);
  /** The last non-JSON line's warning was within that cap. */
  private nonJsonShown = true;
  /** The last answer checked against --output-schema matched it (its value may be null). */
  private matched = false;
  /** Why stdout's last output was dropped (its reader did not take it in time); undefined when it was not. */
  dropped: string | undefined;
  /** Set once stdout failed; further writes are pointless but the run still reads the agent to the end. */
  failure: OutputFailure | undefined;
  /** Resolves once stdout fails: a reader that went away, or a write error such as a full disk. */
  readonly failed: Promise<OutputFailure>;
  private fail: (f: OutputFailure) => void = () => {};

  constructor(private readonly o: OutputOptions) {
    this.failed = new Promise((resolve) => (this.fail = resolve));
    const secret = o.env.CURSOR_API_KEY;
    this.secret = secret;
    const { plan } = o;
    this.plan = plan;
    this.guard = plan.annotate ? new GuardState() : undefined;
    const outGuard = plan.guardStdout ? this.guard : undefined;
    // The guard's token is masked in whatever rho-cursor writes, as the key is: agent text that spells it (the
    // agent read it where stderr went, a log file in the workspace, found by review) cannot lift the guard.
    this.guardToken = this.guard ? [this.guard.token] : [];
    this.out = sinkWriter(o.stdout, new Redactor(secret, this.guardToken), {
      guard: outGuard,
      inert: plan.inertStdout,
    });
    this.err = sinkWriter(o.stderr, new Redactor(secret, this.guardToken), { guard: this.guard });
    this.summary = plan.collect ? new RunSummary() : undefined;
    o.stdout.on('error', (e: NodeJS.ErrnoException) => this.stdoutFailed(e));
    // stderr is where failures are reported: if it fails too, there is nowhere left to say so.
    o.stderr.on('error', () => {});
  }

  // Loads the renderer and writes what arrived before it.
  async open(): Promise<void> {
    if (this.renderer) return;
    // With --output-schema the answer's text goes to stderr, and under -q nowhere: stdout has the value.
    const to = this.plan.answerTo;
    const answerTo = to === 'stdout' ? this.out : to === 'stderr' ? this.err : NOWHERE;
    const renderer = await makeRenderer(
      this.plan.format,
      answerTo,
      this.err,
      this.o.env,
      this.o.style,
      () => this.readBytes,
    );
    this.renderer ??= renderer;
    for (const e of this.early.splice(0)) this.draw(e);
  }

  // A spinner on a terminal's stderr during the handshake (text mode only, never on an unsized pty).
  async startSpinner(text: string): Promise<void> {
    const s = this.o.stderr;
    if (!this.plan.spinner || !s.isTTY || (s.columns ?? 0) <= 0 || this.closed) return;
    this.spinnerWanted = text;
    const spinner = await startSpinner(s, text, this.o.env, this.o.style, this.o.discardInput);
    // The handshake may have moved on (or ended the spinner) while ora loaded: follow it.
    if (this.spinnerWanted === undefined || this.closed) return spinner.stop();
    this.spinner = spinner;
    if (this.spinnerWanted !== text) spinner.text(this.spinnerWanted);
  }

  spinnerText(text: string): void {
    if (this.spinnerWanted !== undefined) this.spinnerWanted = text;
    this.spinner?.text(text);
  }

  stopSpinner(): void {
    this.spinnerWanted = undefined;
    this.spinner?.stop();
    this.spinner = undefined;
  }

  // Every event of the run, in wire order; after `result` nothing more is written. Returns the event as the
  // run's facts should see it (surrogates joined), or undefined when it is not one of the run's (dropped:
  // the output closed, an empty chunk, a silenced warning). An empty chunk that carries `extra` is written
  // in stream-json, for its extra. It calls nothing back.
  emit(e: Event): Event | undefined {
    if (this.closed) return undefined;
    // A warning that writes nothing here (silenced) leaves the spinner running.
    if (e.type === 'warning' && this.plan.silenced.has(e.code) && !this.plan.silencedAsEvents)
      return undefined;
    // A surrogate pair split across two chunks is joined; a lone one becomes U+FFFD.
    if (e.type === 'message' || e.type === 'thought') {
      e = this.joiner.take(e);
      if (e.text === '' && e.content === undefined && (e.extra === undefined || !this.plan.extraOnlyChunks))
        return undefined;
    }
    // A warning during the handshake is drawn above the spinner, which then goes on (found by review: the
    // first warning, which under allowlist comes with initialize's answer, left the slowest step blank).
    const goOn = e.type === 'warning' && this.spinner?.live ? this.spinnerWanted : undefined;
    if (this.spinner && e.type !== 'extension') this.stopSpinner();
    if (e.type === 'warning') {
      const shown = this.warningShown(e);
      if (shown !== 'drawn') {
        if (goOn !== undefined) void this.startSpinner(goOn);
        return shown === 'seen' ? e : undefined;
      }
    }
    if (e.type === 'validation') this.matched = e.valid;
    this.summary?.add(e);
    this.draw(e);
    if (goOn !== undefined) void this.startSpinner(goOn);
    return e;
  }

  // Hands an event to the renderer, unless a question is waiting for the person: then it is held, and drawn
  // after the answer, in the order it came.
  private draw(e: Event | string): void {
    if (!this.renderer) {
      if (typeof e === 'string') this.err.write(e);
      else this.early.push(e);
      return;
    }
    if (this.holding) {
      this.held.push(e);
      return;
    }
    if (this.held.length > 0) this.release();
    if (typeof e === 'string') this.err.write(e);
    else this.renderer.emit(e);
  }

  // A person decides a question at the terminal (QuestionScreen): it starts on a fresh line, and nothing the
  // agent sends is drawn over it meanwhile.
  hold(): void {
    this.settle();
    this.holding = true;
  }

  /** A question waits for the person (whichever try asked it). */
  get asking(): boolean {
    return this.holding;
  }

  // No question waits any more: what was held is drawn now, in the order it came.
  resume(): void {
    this.holding = false;
    this.heldBytes = 0;
    if (this.held.length > 0) this.release();
    this.goOn();
  }

  // The agent's reader, if paused while a question waited, reads again.
  private goOn(): void {
    for (const go of this.afterHold.splice(0)) go();
  }

  // Has more been read while a question waits than may be held?
  private get overHeld(): boolean {
    return this.holding && this.heldBytes > MAX_HELD_BYTES;
  }

  // Draws what was held while a question waited.
  private release(): void {
    const held = this.held;
    this.held = [];
    for (const h of held) {
      if (typeof h === 'string') this.err.write(h);
      else this.renderer!.emit(h);
    }
  }

  // Where a warning goes: a silenced one only into stream-json and json (not one of the run's facts); under
  // GitHub Actions the annotation is its one line on stderr, at the end of the run (in text mode the renderer
  // would print it a second time: a fact, not drawn). 'drawn': goes on as any event.
  private warningShown(e: Event & { type: 'warning' }): 'drawn' | 'seen' | 'silenced' {
    if (this.plan.silenced.has(e.code)) {
      if (this.plan.silencedAsEvents) {
        this.summary?.add(e);
        this.draw(e);
      }
      return 'silenced';
    }
    if (e.code === 'agent-non-json') this.nonJsonShown = this.nonJson.take() === 'shown';
    if (!this.plan.annotate) return 'drawn';
    if (e.code !== 'agent-non-json' || this.nonJsonShown) {
      // Annotations wait for the end: the guard around agent text is lifted once, after it (see endStderr).
      // Only the first few are kept (GitHub shows ten warnings a step), each cut: an agent that sends
      // thousands of long notices cannot make the run hold them all (found by review: 533 MB for 8k). The
      // rest are lines of the log, as without GitHub Actions, and the last annotation counts them.
      if (this.annotations.length >= MAX_ANNOTATIONS) {
        this.annotationsLeft++;
        // Text mode's renderer draws it as any warning; the other formats write the line they would write.
        if (this.plan.stderrLines) this.draw(warningLine(e.message));
        return 'drawn';
      }
      this.annotations.push(warningAnnotation(e.code, cutEnd(e.message, ANNOTATION_MAX)));
    }
    return this.plan.stderrLines ? 'drawn' : 'seen';
  }

  // A warning is an event, and also a line on stderr outside text mode (text mode renders it there itself;
  // under GitHub Actions its annotation is that line).
  warn(code: string, message: string, line?: string): Event | undefined {
    if (this.closed) return undefined;
    const seen = this.emit({ type: 'warning', code, message, ...(line === undefined ? {} : { line }) });
    // Non-JSON lines from the agent are all events, but only the first few are lines on stderr.
    const shown = code !== 'agent-non-json' || this.nonJsonShown;
    const silenced = this.plan.silenced.has(code);
    if (this.plan.stderrLines && shown && !silenced && !this.plan.annotate) this.draw(warningLine(message));
    return seen;
  }

  // Leaves the terminal at the start of a line, everything so far written, before a question is shown.
  settle(): void {
    this.stopSpinner();
    if (!this.closed) this.renderer?.settle();
  }

  // Writes what was batched; false asks the agent's reader to pause until stdout drains, or until the
  // question that holds the output is answered once `read` bytes (what was just read from the agent) have
  // brought what it holds past MAX_HELD_BYTES.
  flush(read = 0): boolean {
    this.readBytes += read;
    if (this.holding) this.heldBytes += read;
    if (!this.renderer || this.closed) return true;
    if (this.overHeld) return false;
    const ok = this.renderer.flush();
    // A failed stdout will never drain: keep reading the agent so its answer still ends the turn.
    return ok || this.failure !== undefined;
  }

  // Calls `go` once the stream that asked for a pause can take more: it drained, or it failed (a stderr
  // nobody reads must never hold the run; a failed stdout is reported by its own 'error').
  whenWritable(go: () => void): void {
    if (this.overHeld && !this.closed) {
      this.afterHold.push(go);
      return;
    }
    const target = this.o.stdout.writableNeedDrain && !broken(this.o.stdout) ? this.o.stdout : this.o.stderr;
    if (broken(target) || !target.writableNeedDrain) return go();
    const once = (): void => {
      target.off('drain', once);
      target.off('error', once);
      target.off('close', once);
      go();
    };
    target.on('drain', once);
    target.on('error', once);
    target.on('close', once);
  }

  // The last event: writes the result (and the json object), then closes. With `giveUp` (aborted at a signal
  // during the end, or once a timeout's grace is spent), a reader that has not taken everything by then no
  // longer holds the run: the rest is dropped, which is a write failure (`dropped` says why), so the agent is
  // still ended, the run still exits, and never with 0.
  async close(result: ResultEvent, giveUp?: AbortSignal): Promise<void> {
    if (this.closed) return;
    this.stopSpinner();
    await this.open();
    if (this.held.length > 0) this.release();
    for (const e of this.joiner.drain()) this.emit(e);
    if (this.failure === undefined) {
      this.renderer!.emit(result);
      this.renderer!.finish(this.jsonOutput(result));
      // Text mode with --output-schema: stdout is the validated value alone (null too), one line of JSON;
      // under GitHub Actions made inert by the sink, never guarded (a script reads it: `| jq -e .safe`).
      if (this.plan.valueOnStdout && this.matched)
        this.out.write(safeJson(JSON.stringify(result.structured)) + '\n');
    }
    this.out.end();
    this.closed = true;
    // Nothing more is drawn: a reader paused behind a question reads on (to the agent's end).
    this.holding = false;
    this.goOn();
    // Wait until stdout has taken it all, so a write that fails now (a full disk under json, which writes
    // everything here) is known before the run decides its exit code and its error line.
    const stdout = this.o.stdout;
    // A write to a file fails synchronously: the stream is errored now, its 'error' event comes a tick later.
    if (stdout.errored) this.stdoutFailed(stdout.errored);
    else if (!stdout.destroyed && stdout.writable) {
      let onAbort: (() => void) | undefined;
      const why = await new Promise<string | undefined>((resolve) => {
        stdout.write('', (e) => {
          // The callback can learn of the failure before the 'error' event does.
          if (e) this.stdoutFailed(e);
          resolve(undefined);
        });
        if (!giveUp) return;
        // Already given up (a signal during the end's earlier steps): only what is still queued is dropped.
        if (giveUp.aborted && stdout.writableLength === 0) return resolve(undefined);
        onAbort = () => resolve(String(giveUp.reason));
        if (giveUp.aborted) onAbort();
        else giveUp.addEventListener('abort', onAbort, { once: true });
      });
      if (onAbort) giveUp?.removeEventListener('abort', onAbort);
      if (why !== undefined) {
        this.dropped = `stdout did not take the output ${why}: the rest is dropped`;
        this.failure ??= { kind: 'write_failed', message: this.dropped };
        // Ended, so nothing waits on it any more (what it holds is dropped when the process exits).
        stdout.end();
      }
    }
  }

  /** Output is closed: the result was written (or stdout had failed); nothing more is drawn. */
  get isClosed(): boolean {
    return this.closed;
  }

  private stdoutFailed(e: NodeJS.ErrnoException): void {
    if (this.failure) return;
    this.failure =
      e.code === 'EPIPE'
        ? { kind: 'epipe' }
        : { kind: 'write_failed', message: `cannot write to stdout: ${e.message}` };
    this.fail(this.failure);
  }

  // One line on stderr (the run's error, outside text mode): always one line, whatever the agent put in it.
  line(text: string): void {
    this.err.write(shownMessage(text) + '\n');
  }

  // Under GitHub Actions, a failure is also an annotation: written after the guard ends, escaped.
  annotateError(message: string): void {
    if (this.plan.annotate) this.errorAnnotations.push(errorAnnotation(message));
  }

  // The end of stderr: what the key's redactor held back, then (GitHub Actions) the guard lifted and our own
  // annotations, which the runner must read as commands. When stdout carries the answer behind the guard, it
  // is lifted on stdout first, after the answer's last line, and again on stderr RESUME_GAP_MS later: the
  // runner handles a batch's stderr lines before its stdout lines, so a resume on stderr alone could be read
  // before the answer's last lines, which would then run as commands; and stdout alone may never reach the
  // runner (`ANSWER=$(rho-cursor ...)`), which would leave command processing off for the rest of the step.
  // The second resume, once the first was read, is a line of text; the annotations follow it on stderr.
  endStderr(): void {
    this.err.end();
    if (!this.guard) return;
    const redactor = new Redactor(this.secret, this.guardToken);
    const resume = this.guard.close();
    const stdout = this.o.stdout;
    if (resume && this.out.guarded() && !broken(stdout) && stdout.writable) {
      stdout.write((this.out.atLineStart() ? '' : '\n') + resume);
      sleepSync(RESUME_GAP_MS);
    }
    let tail = resume;
    if (tail && !this.err.atLineStart()) tail = '\n' + tail;
    if (this.annotationsLeft > 0)
      this.annotations.push(
        warningAnnotation('warnings', `${this.annotationsLeft} more warnings: each is a line of the log`),
      );
    tail += [...this.annotations, ...this.errorAnnotations].map((a) => redactor.push(a)).join('');
    tail += redactor.end();
    if (tail && !broken(this.o.stderr)) this.o.stderr.write(tail);
  }

  private jsonOutput(result: ResultEvent): JsonOutput {
    return (this.summary ?? new RunSummary()).output(result);
  }
}
